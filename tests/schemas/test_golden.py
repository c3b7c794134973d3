"""Committed golden payloads: the frozen wire format, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.codec import decode, decode_json, encode, encode_json
from schemas.models import EVENTS

GOLDEN = Path(__file__).resolve().parents[2] / "schemas" / "golden"
CASES = sorted(
    path.relative_to(GOLDEN).with_suffix("").as_posix() for path in GOLDEN.rglob("*.avro")
)


def test_every_event_has_a_golden_payload() -> None:
    assert {case.split("/")[0] for case in CASES} == set(EVENTS)
    assert (
        sorted(p.relative_to(GOLDEN).with_suffix("").as_posix() for p in GOLDEN.rglob("*.json"))
        == CASES
    )


@pytest.mark.parametrize("case", CASES)
def test_golden_avro_round_trips_byte_for_byte(case: str) -> None:
    data = (GOLDEN / f"{case}.avro").read_bytes()
    event = decode(data)
    assert type(event).__name__ == case.split("/")[0]
    assert encode(event) == data


@pytest.mark.parametrize("case", CASES)
def test_golden_json_is_the_same_event_and_round_trips(case: str) -> None:
    text = (GOLDEN / f"{case}.json").read_bytes()
    event = decode_json(text)
    assert event == decode((GOLDEN / f"{case}.avro").read_bytes())
    assert encode_json(event) + b"\n" == text
