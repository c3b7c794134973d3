"""One fuzz case of the worker's per-record path (decode -> translate -> fold -> encode), and
the promise it checks: the record ends applied, as a no-op or as exactly one DeadLetter, and
every output record decodes with the validating decoder.

Shared by the hypothesis properties, the bounded atheris run of the test suite and
scripts/fuzz_worker_path.py (longer runs). A case is the bytes ``mode | key? | value``:
``mode`` picks the record key (the event's own, none, or the bytes that follow).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from schemas.codec import decode, decode_json, encode
from schemas.errors import ERROR_CODES
from schemas.models import DeadLetter
from schemas.topics import DEADLETTER, QUEUE, queue_key
from streams.settings import QueueSettings, Settings
from streams.wire.outbound import Writer
from streams.worker.folding import Folder, PartitionState
from streams.worker.outputs import records_of

GOLDEN = Path(__file__).resolve().parents[2] / "schemas" / "golden"
#: The golden inputs' queues, configured as they say (one partition: every key is home).
SETTINGS = Settings(
    partitions=1,
    queues=(
        QueueSettings(name="1v1", regions=("eu",)),
        QueueSettings(name="5v5-ranked", strategy="rebalance", regions=("eu-west",), team_size=5),
    ),
    ticket_ttl_ms=60_000,
)
KEYS = (queue_key("1v1", "eu"), queue_key("5v5-ranked", "eu-west"))
TICK = (GOLDEN / "WaveTick" / "tick-42.avro").read_bytes()


def seeds() -> list[bytes]:
    """The starting corpus: every golden queue input, Avro and JSON, under each key mode."""
    values = [
        path.read_bytes()
        for event in ("TicketJoined", "TicketLeft", "WaveTick")
        for path in sorted((GOLDEN / event).iterdir())
    ]
    return [bytes([mode]) + value for value in values for mode in (0, 1, 2)]


@cache
def folder() -> Folder:
    return Folder.from_settings(SETTINGS)


def split(data: bytes) -> tuple[bytes | None, bytes]:
    """The record key and value a case stands for."""
    if not data:
        return KEYS[0], b""
    mode, rest = data[0], data[1:]
    if mode % 4 == 1:
        return None, rest
    if mode % 4 == 2 and rest:
        size = rest[0]
        return rest[1 : 1 + size], rest[1 + size :]
    return KEYS[mode % 4 == 3], rest


def run_case(data: bytes) -> None:
    """Fold the case's record into a queue holding golden tickets, then close a wave; raise
    AssertionError when a promise breaks (any other exception is a crash of the path)."""
    key, value = split(data)
    state = _queue_with_tickets()
    check(state, key, value, offset=2)
    check(state, KEYS[0], TICK, offset=3)  # the wave takes the fuzzed ticket in, if any


def check(state: PartitionState, key: bytes | None, value: bytes, offset: int) -> None:
    folded = folder().fold(state, key, value, offset)
    assert folded is not None and state.applied_offset == offset
    outputs = records_of(Writer(), folded, topic=QUEUE.name, partition=0, key=key, value=value)
    letters = [decode(v) for topic, _, v in outputs if topic == DEADLETTER.name]
    for _, _, encoded in outputs:
        # Every output is valid on the wire; the copy of a join searching several places
        # is written in the JSON input form (docs/adr/0145).
        (decode_json if encoded[:1] == b"{" else decode)(encoded)
    if folded.rejection is None:
        assert not letters, letters
        return
    assert len(outputs) == 1 and len(letters) == 1, outputs
    letter = letters[0]
    assert isinstance(letter, DeadLetter) and letter.error_code in ERROR_CODES, letter
    assert letter.offset == offset and letter.original == value[: len(letter.original)]
    assert outputs[0][1] == key


def _queue_with_tickets() -> PartitionState:
    state = folder().new_state(0)
    for offset, (key, value) in enumerate(_PRELUDE):
        folded = folder().fold(state, key, value, offset)
        assert folded is not None and folded.step is not None and not folded.step.dequeued
    return state


def _prelude() -> list[tuple[bytes, bytes]]:
    """A 1v1 ticket that the fuzzed record can be matched with, and a party of three."""
    solo = decode((GOLDEN / "TicketJoined" / "solo.avro").read_bytes())
    player = solo.players[0].model_copy(update={"ratings": {"bw": 1850, "sc2": 1720}})
    queued = solo.model_copy(update={"ticket_id": "t-queued", "players": (player,)})
    party = (GOLDEN / "TicketJoined" / "party.avro").read_bytes()
    return [(KEYS[0], encode(queued)), (KEYS[1], party)]


_PRELUDE = _prelude()
