"""Connection tokens are kept out of dead letters: JSON and Avro originals (ADR 0171)."""

from __future__ import annotations

from schemas import models as m
from schemas.codec import decode, encode
from schemas.masking import MASK, masked_original

SECRET = "k36b-avro-secret-token"
STARTED = m.PlacementReported(
    match_id="0f8e7a52-3c1d-5b7e-9a41-2d6c8e0b1f37",
    queue="1v1",
    region="eu",
    outcome=m.PlacementOutcome.STARTED,
    reported_at_ms=1767225612000,
    connection=m.Connection(address="203.0.113.7", port=7777, token=SECRET),
)


def test_an_avro_report_keeps_everything_but_its_token() -> None:
    masked = masked_original(encode(STARTED))
    assert SECRET.encode() not in masked
    event = decode(masked)
    assert isinstance(event, m.PlacementReported)
    assert event.connection == m.Connection(address="203.0.113.7", port=7777, token=MASK)
    assert event.model_copy(update={"connection": STARTED.connection}) == STARTED


def test_an_undecodable_avro_report_keeps_no_byte_and_others_are_untouched() -> None:
    data = encode(STARTED)
    assert masked_original(data[:-3]) == b""  # cut inside the token: nothing kept
    unconnected = encode(STARTED.model_copy(update={"connection": None}))
    assert masked_original(unconnected) == unconnected
    join = b'{"type": "TicketJoined", "ticket_id": "t-1"}'
    assert masked_original(join) == join


def test_the_models_repr_hides_the_token() -> None:
    assert SECRET not in repr(STARTED) and SECRET not in str(STARTED)


def test_an_avro_report_the_model_refuses_keeps_its_bytes_with_the_token_masked() -> None:
    """A FAILED report with connection details decodes as Avro but breaks the model:
    its dead letter keeps the record, as written, with the token masked."""
    import io

    from fastavro import schemaless_reader, schemaless_writer

    from schemas.codec import HEADER_BYTES, KNOWN
    from schemas.errors import InvalidEvent

    data = encode(STARTED)
    writer = KNOWN[data[2:HEADER_BYTES]].writer

    def record_of(value: bytes) -> dict[str, object]:
        stream = io.BytesIO(value[HEADER_BYTES:])
        return schemaless_reader(stream, writer, None)  # type: ignore[return-value]

    failed = {**record_of(data), "outcome": "FAILED"}
    out = io.BytesIO()
    schemaless_writer(out, writer, failed)
    refused = data[:HEADER_BYTES] + out.getvalue()
    try:
        decode(refused)
    except InvalidEvent as error:
        assert "STARTED" in error.reason
    else:
        raise AssertionError("the model accepted a FAILED report with connection details")

    masked = masked_original(refused)
    assert SECRET.encode() not in masked and masked[:HEADER_BYTES] == data[:HEADER_BYTES]
    assert record_of(masked) == {**failed, "connection": {**failed["connection"], "token": MASK}}


def test_a_report_framed_with_another_records_header_keeps_no_byte() -> None:
    """A placement report behind a TicketLeft's header (a platform's framing mistake)
    decodes as neither: its token must not be kept in plain text (an outside try found
    it kept whole). A record valid under its own header keeps its bytes."""
    from schemas.codec import CURRENT, HEADER_BYTES

    body = encode(STARTED)[HEADER_BYTES:]
    for other in (m.TicketLeft, m.TicketJoined, m.DeadLetter):
        framed = CURRENT[other].header + body
        assert masked_original(framed) == b"", other.__name__
        registry_framed = b"\x00\x00\x00\x00\x09" + body  # its id resolved to `other`
        assert masked_original(registry_framed, framed) == b"", other.__name__
    unknown = b"\xc3\x01" + b"\x5a" * 8 + body  # a header no schema we know has
    assert masked_original(unknown) == b""
    leave = encode(
        m.TicketLeft(
            ticket_id="t-1", queue="1v1", region="eu", reason="REQUESTED", left_at_ms=1767225612000
        )
    )
    assert masked_original(leave) == leave
    assert masked_original(leave + b"\x00") == leave + b"\x00"  # bad, but hides no token
