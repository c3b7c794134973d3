"""Packed JSON values (snapshots, finished-id journals): what ``pack`` writes, ``unpack``
reads back whole, and a value packed by ``json.dumps`` (snapshots written by earlier
releases) reads the same."""

from __future__ import annotations

import hashlib
import json
import zlib

from streams.worker.packed import CHUNK_BYTES, pack, unpack

VALUE = {
    "queue": "5v5",
    "tickets": [
        ["t1", "1v1", "eu", None, 1_767_225_600_000, [["joueur-é", [["mmr", 1500]]]]],
        ["t2", "1v1", "eu", "p", 2**62, [["игрок", [], True, 0.1 + 0.2, -3]]],
    ],
    "arrival_rate_per_s": 1e-7,
    "failing": False,
    "estimator": {"mean": 12.5, "samples": [1.0, 2.5e16]},
}


def _read(chunks: list[bytes]):  # type: ignore[no-untyped-def]
    table = {str(i): chunk for i, chunk in enumerate(chunks)}
    return table.get, list(table)


def test_a_packed_value_reads_back_equal_non_ascii_and_big_numbers_included() -> None:
    chunks, sha256 = pack(VALUE)
    read, keys = _read(chunks)
    assert unpack(read, keys, sha256, "test") == VALUE


def test_a_value_packed_by_json_dumps_reads_the_same() -> None:
    packed = zlib.compress(json.dumps(VALUE, separators=(",", ":")).encode(), 1)
    read, keys = _read([packed])
    assert unpack(read, keys, hashlib.sha256(packed).hexdigest(), "old") == VALUE


def test_a_big_value_is_cut_into_chunks_below_kafkas_message_size() -> None:
    # Hashes, which zlib cannot shrink much: ~2 MB packed.
    big = {"ids": [hashlib.sha256(str(n).encode()).hexdigest() for n in range(60_000)]}
    chunks, sha256 = pack(big)
    assert len(chunks) > 1 and all(len(chunk) <= CHUNK_BYTES for chunk in chunks)
    read, keys = _read(chunks)
    assert unpack(read, keys, sha256, "big") == big
