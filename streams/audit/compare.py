"""Compare re-derived outputs with published ones, field by field where they differ.

Two fields are not functions of the log and are left out of the comparison:
WaveClosed.duration_ms (wall-clock compute time) and DeadLetter.failed_at_ms.
At-least-once delivery can publish a record twice; identical copies are counted as
duplicates, never as differences.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from schemas.codec import decode, decode_json
from schemas.errors import InvalidEvent
from schemas.topics import DEADLETTER, WAVES
from streams.worker.publisher import Record

#: Fields outside the pure function of the log, per topic.
UNCOMPARED = {WAVES.name: ("duration_ms",), DEADLETTER.name: ("failed_at_ms",)}
#: The entry of a comparable form naming its record's type; no field is spelled so.
KIND = "@record"


def comparable(topic: str, value: bytes) -> tuple[Any, ...]:
    """A hashable, decoded form of a record without its non-deterministic fields.

    Its type is part of it: a MatchProposed and the MatchCreated of the same match
    share a key and most fields, yet are two records.
    """
    try:
        # The service's one JSON record: the copy of a join searching several places.
        event = decode_json(value) if value[:1] == b"{" else decode(value)
        body = event.model_dump(mode="json")
    except InvalidEvent as error:
        return ("undecodable", value, error.reason)
    for name in UNCOMPARED.get(topic, ()):
        body.pop(name, None)
    body[KIND] = type(event).__name__
    return tuple(sorted((k, _freeze(v)) for k, v in body.items()))


def kind(form: tuple[Any, ...]) -> str | None:
    """The record type a :func:`comparable` form is of; None when undecodable."""
    if undecodable(form):
        return None
    name = dict(form).get(KIND)
    return name if isinstance(name, str) else None


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


@dataclass
class Verdict:
    checked: Counter[str] = field(default_factory=Counter)
    identical: Counter[str] = field(default_factory=Counter)
    duplicates: Counter[str] = field(default_factory=Counter)
    #: Re-derived from input the workers had not yet committed, and not (yet) published.
    pending: Counter[str] = field(default_factory=Counter)
    #: (topic, key, description, comparable form) of each record short of its copies.
    missing: list[tuple[str, bytes | None, str, tuple[Any, ...]]] = field(default_factory=list)
    unexpected: list[tuple[str, bytes | None, str, tuple[Any, ...]]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.missing and not self.unexpected


def compare(
    derived: Iterable[Record], published: Iterable[Record], pending: Iterable[Record] = ()
) -> Verdict:
    """Match every derived record with a published one of the same topic, key and content.

    ``pending`` records (derived from input not yet committed) count when published and
    are reported as pending when not; they are never missing.
    """
    verdict = Verdict()
    expected: Counter[tuple[str, bytes | None, tuple[Any, ...]]] = Counter()
    for topic, key, value in derived:
        expected[(topic, key, comparable(topic, value))] += 1
        verdict.checked[topic] += 1
    seen: Counter[tuple[str, bytes | None, tuple[Any, ...]]] = Counter()
    for topic, key, value in published:
        seen[(topic, key, comparable(topic, value))] += 1
    for topic, key, value in pending:
        item = (topic, key, comparable(topic, value))
        if seen.get(item, 0) > expected.get(item, 0):
            expected[item] += 1
            verdict.checked[topic] += 1
        else:
            verdict.pending[topic] += 1
    for item, count in expected.items():
        have = seen.get(item, 0)
        topic = item[0]
        verdict.identical[topic] += min(have, count)
        if have > count:
            verdict.duplicates[topic] += have - count
        if have < count:
            verdict.missing.append((topic, item[1], _describe(item[2]), item[2]))
    for item in seen:
        if item not in expected:
            verdict.unexpected.append((item[0], item[1], _describe(item[2]), item[2]))
    return verdict


def undecodable(form: tuple[Any, ...]) -> bool:
    """Whether a :func:`comparable` form is that of a record no schema reads."""
    return form[:1] == ("undecodable",)


def _describe(body: tuple[Any, ...]) -> str:
    """A record's fields in a line: its type and unset fields left out (said elsewhere)."""
    if undecodable(body):
        return f"undecodable ({body[2]}): {body[1][:40]!r}"
    return ", ".join(f"{k}={v!r}" for k, v in body if k != KIND and v is not None)[:300]
