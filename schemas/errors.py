"""The one error the codec raises for bad input: a stable code, the field, one human line."""

from __future__ import annotations

from typing import Final

#: Every code :class:`InvalidEvent` may carry, with what it means. Codes are part of the
#: contract (they land in DeadLetter.error_code): add new ones, never rename one.
CODES: Final[dict[str, str]] = {
    "empty": "the message value has no bytes",
    "oversize": "the message value is longer than the limit (64 KiB for events)",
    "garbage": "the value is neither Avro single-object encoded nor a JSON object",
    "bad_marker": "the value does not start with the Avro single-object marker C3 01",
    "truncated": "the Avro value ends before the record does",
    "trailing_bytes": "the Avro value goes on after the record ends",
    "unknown_fingerprint": "no known schema has the value's fingerprint",
    "unexpected_event": "a known event, but not one this decoder accepts",
    "bad_avro": "the Avro payload breaks the encoding (bad UTF-8, union index, ...)",
    "bad_json": "the value is not a valid UTF-8 JSON object without duplicate keys",
    "unknown_type": 'the JSON object\'s "type" is missing or names no accepted event',
    "missing_field": "a required field is absent",
    "unknown_field": "a field that the schema does not have",
    "unknown_symbol": "an enum value that is not one of the enum's symbols",
    "invalid_field": "a field has the wrong type or a value outside its bounds",
    "unhandled": "the worker failed on the event for a reason of its own (a bug)",
    # A match's life after the wave (docs/adr/0111); the fold decides these.
    "unknown_queue": "an answer, report or backfill for a queue or region the service does not run",
    "unknown_match": "an answer or placement report for a match with nothing open to decide",
    "match_closed": "an answer or placement report for a match already decided",
    "not_in_match": "a ready-check answer from a player who is not in the match",
    "answer_too_late": "a ready-check answer timed after the proposal's deadline_at_ms",
}


class InvalidEvent(ValueError):
    """A message that cannot become an event.

    ``code`` is a short stable machine code (a key of :data:`CODES`), ``field`` the dotted
    path of the failing field (``players[2].ratings.zerg``) or None, and ``reason`` one
    human-readable line naming the field; ``str(error)`` is that line.

    >>> error = InvalidEvent("invalid_field", "TicketLeft reason: bad", field="reason")
    >>> (error.code, error.field, str(error))
    ('invalid_field', 'reason', 'TicketLeft reason: bad')
    """

    def __init__(self, code: str, reason: str, field: str | None = None) -> None:
        if code not in CODES:
            raise ValueError(f"unknown InvalidEvent code {code!r}")
        self.code = code
        self.field = field
        self.reason = one_line(reason)
        super().__init__(self.reason)

    def __str__(self) -> str:
        return self.reason

    def __repr__(self) -> str:
        return f"InvalidEvent(code={self.code!r}, field={self.field!r}, reason={self.reason!r})"


def one_line(text: str, limit: int = 1024) -> str:
    """Return ``text`` with control characters as spaces, cut to ``limit`` characters.

    >>> one_line("a\\nb", limit=10)
    'a b'
    """
    flat = "".join(" " if ord(char) < 32 or ord(char) == 127 else char for char in text).strip()
    if not flat:
        flat = "(no reason given)"
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def child_path(path: str, part: str | int) -> str:
    """Extend a dotted field path by a field name, map key or list index.

    >>> child_path(child_path(child_path("", "players"), 2), "ratings")
    'players[2].ratings'
    >>> child_path("players[0].latency_ms", "us-east")
    "players[0].latency_ms['us-east']"
    """
    if isinstance(part, int):
        return f"{path}[{part}]"
    if part.isidentifier():
        return f"{path}.{part}" if path else part
    return f"{path}[{part!r}]"
