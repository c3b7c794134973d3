"""Measure the codec's cost per event: decode + validate is on every input event's path.

    .venv/bin/python scripts/bench_codec.py [--number 20000] [--repeat 7]

Prints the median and the best of ``--repeat`` runs of ``--number`` calls each, in
microseconds per call, and the events per second one core sustains at the median.
The target is decode + validate well under 50 us per typical TicketJoined (20,000
events/s per worker). Figures depend on the machine and its load: run it more than once.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fastavro import schemaless_reader  # noqa: E402

from schemas import models as m  # noqa: E402
from schemas.codec import (  # noqa: E402
    HEADER_BYTES,
    KNOWN,
    decode_queue_event,
    encode,
    encode_json,
    encoder_for,
)

GOLDEN = ROOT / "schemas" / "golden"


def _party(size: int) -> m.TicketJoined:
    solo = decode_queue_event((GOLDEN / "TicketJoined" / "solo.avro").read_bytes())
    assert isinstance(solo, m.TicketJoined)
    players = [solo.players[0].model_copy(update={"player_id": f"p-{i}"}) for i in range(size)]
    return solo.model_copy(update={"players": tuple(players), "party_id": "party-1"})


def cases() -> dict[str, Callable[[], object]]:
    solo = (GOLDEN / "TicketJoined" / "solo.avro").read_bytes()
    solo_json = (GOLDEN / "TicketJoined" / "solo.json").read_bytes()
    party = encode(_party(5))
    left = (GOLDEN / "TicketLeft" / "requested.avro").read_bytes()
    tick = (GOLDEN / "WaveTick" / "tick-42.avro").read_bytes()
    known = KNOWN[solo[2:HEADER_BYTES]]  # the revision the golden join is written in
    event = decode_queue_event(solo)
    record = schemaless_reader(io.BytesIO(solo[HEADER_BYTES:]), known.writer, None)
    match = decode_queue_event  # keep names short below
    match_body = _match_body()
    encode_match = encoder_for("MatchCreated")

    def fastavro_only() -> object:
        return schemaless_reader(io.BytesIO(solo[HEADER_BYTES:]), known.writer, None)

    return {
        "decode_queue_event TicketJoined (Avro, 1 player)": lambda: match(solo),
        "  of which fastavro read": fastavro_only,
        "  of which pydantic validate": lambda: m.TicketJoined.model_validate(record),
        "decode_queue_event TicketJoined (JSON, 1 player)": lambda: match(solo_json),
        "decode_queue_event TicketJoined (Avro, 5 players)": lambda: match(party),
        "decode_queue_event TicketLeft (Avro)": lambda: match(left),
        "decode_queue_event WaveTick (Avro)": lambda: match(tick),
        "encode TicketJoined (model)": lambda: encode(event),
        "encode_json TicketJoined (model)": lambda: encode_json(event),
        "encoder_for MatchCreated (dict, no validation)": lambda: encode_match(match_body),
    }


def _match_body() -> dict[str, object]:
    from schemas.codec import decode

    body = decode((GOLDEN / "MatchCreated" / "duel.avro").read_bytes()).model_dump()
    return body


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=20_000, help="calls per run")
    parser.add_argument("--repeat", type=int, default=7, help="runs per case")
    args = parser.parse_args()
    print(f"{'case':52} {'median us':>10} {'best us':>9} {'median/s':>10}")
    for name, call in cases().items():
        runs = [
            t / args.number * 1e6
            for t in timeit.repeat(call, number=args.number, repeat=args.repeat)
        ]
        median = statistics.median(runs)
        print(f"{name:52} {median:10.2f} {min(runs):9.2f} {1e6 / median:10,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
