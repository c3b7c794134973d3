"""The one error the codec raises for bad input: a stable code, the field, one human line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Code:
    """One dead-letter code: what it means and whether its DeadLetter names a field."""

    meaning: str
    #: "always", "never" or "sometimes" (the dotted path when one field is to blame).
    names_field: str


#: Every code a DeadLetter may carry (``DeadLetter.error_code``), with what it means: the
#: one list, from which schemas/README.md's table is generated (``python -m schemas.errors``;
#: tests/schemas/test_readme_contract.py checks they agree). Codes are part of the contract:
#: add new ones, never rename one.
ERROR_CODES: Final[dict[str, Code]] = {
    "empty": Code("the message value has no bytes", "never"),
    "oversize": Code("the message value is longer than the limit (64 KiB for events)", "never"),
    "garbage": Code("the value is neither Avro single-object encoded nor a JSON object", "never"),
    "bad_marker": Code(
        "the value does not start with the Avro single-object marker C3 01", "never"
    ),
    "truncated": Code("the Avro value ends before the record does", "sometimes"),
    "trailing_bytes": Code("the Avro value goes on after the record ends", "never"),
    "unknown_fingerprint": Code("no known schema has the value's fingerprint", "never"),
    "unexpected_event": Code("a known event, but not one this decoder accepts", "never"),
    "bad_avro": Code(
        "the Avro payload breaks the encoding (bad UTF-8, union index, ...)", "sometimes"
    ),
    "bad_json": Code(
        "the value is not a valid UTF-8 JSON object without duplicate keys "
        "(nesting deeper than the decoder's recursion limit included)",
        "never",
    ),
    "unknown_type": Code(
        'the JSON object\'s "type" is missing or names no accepted event', "always"
    ),
    "missing_field": Code("a required field is absent", "always"),
    "unknown_field": Code("a field that the schema does not have", "always"),
    "unknown_symbol": Code("an enum value that is not one of the enum's symbols", "always"),
    "invalid_field": Code(
        "a field has the wrong type or a value outside its bounds (an id with a control "
        "character, C0, DEL or C1, included)",
        "sometimes",
    ),
    "key_mismatch": Code(
        'the record key is not the event\'s "<queue>/<region>" (a missing key included)',
        "always",
    ),
    "misrouted": Code(
        "the record is in another partition than murmur2 of its key chooses", "always"
    ),
    "implausible_time": Code(
        "a WaveTick's instant, a TicketJoined's joined_at_ms, a TicketLeft's left_at_ms or a "
        "BackfillRequested's requested_at_ms ahead of it, or a ReadyCheckAnswered's or "
        "PlacementReported's time is further from the record's broker timestamp than the "
        "queue's tolerance (docs/adr/0074, 0115-0117), or an answer is dated before its "
        "proposal",
        "always",
    ),
    "unknown_config": Code(
        "a WaveTick whose config_fingerprint is neither the worker's configuration nor one "
        "published to wavematch.config.v1: no wave closes, the region keeps its configuration "
        "(docs/adr/0210)",
        "always",
    ),
    "wave_failed": Code(
        "the wave closed by this WaveTick broke its checker or its strategy raised: no "
        "match was made (a worker bug); tickets past their TTL still expire, and only "
        "the first failure for a reason is reported",
        "never",
    ),
    "internal_error": Code(
        "the worker failed on the record for a reason of its own (a bug): the record "
        "costs one DeadLetter, never the worker",
        "never",
    ),
    "unhandled": Code("a decoder failed on the value for a reason of its own (a bug)", "never"),
    # A match's life after the wave (docs/adr/0110-0113): the region's fold decides these.
    "unknown_queue": Code(
        "a ready-check answer, placement report or backfill request for a queue or region "
        "the service does not run",
        "always",
    ),
    "unknown_match": Code(
        "a ready-check answer or placement report for a match with nothing open to decide",
        "always",
    ),
    "match_closed": Code(
        "a ready-check answer or placement report for a match already decided", "always"
    ),
    "not_in_match": Code("a ready-check answer from a player who is not in the match", "always"),
    "answer_too_late": Code(
        "a ready-check answer timed after the proposal's deadline_at_ms", "always"
    ),
    "backfill_too_large": Code(
        "a backfill request with more teams, or more players and open slots in a team, than "
        "the queue's matches have",
        "always",
    ),
    "unknown_session": Code("a backfill cancel for a session without an active request", "always"),
    "no_registry": Code(
        "a registry-framed value (00 + schema id) to a worker without a schema registry",
        "always",
    ),
    "unknown_schema_id": Code("the schema registry has no schema with the value's id", "always"),
    "unknown_schema": Code(
        "the value's registry schema is no committed revision of a wavematch schema", "always"
    ),
    "registry_unreachable": Code(
        "the schema registry did not answer when the value's schema id was looked up "
        "(a worker waits and asks again instead: docs/adr/0168)",
        "always",
    ),
}
#: Code -> meaning, for callers that need only the words.
CODES: Final[dict[str, str]] = {code: entry.meaning for code, entry in ERROR_CODES.items()}


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
    flat = "".join(" " if _is_control(char) else char for char in text).strip()
    # A lone surrogate (from a JSON "\\ud800" or a decoded key) cannot be UTF-8: shown as "?".
    flat = flat.encode("utf-8", "replace").decode("utf-8")
    if not flat:
        flat = "(no reason given)"
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _is_control(char: str) -> bool:
    """C0, DEL and C1 (U+0080-U+009F): the characters the contract refuses in ids."""
    code = ord(char)
    return code < 32 or 127 <= code <= 159


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


def codes_table() -> str:
    """The Markdown table of :data:`ERROR_CODES` that schemas/README.md shows.

    >>> codes_table().splitlines()[2]
    '| `empty` | the message value has no bytes | never |'
    """
    lines = ["| code | meaning | names a field |", "|---|---|---|"]
    lines += [
        f"| `{code}` | {entry.meaning} | {entry.names_field} |"
        for code, entry in ERROR_CODES.items()
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(codes_table())
