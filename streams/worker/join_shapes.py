"""JSON joins in a layout seen before, read by one regular expression instead of json's scanner.

A producer writes its joins alike: the same keys in the same order, as many ratings,
the same literals where a value does not vary (``null``, ``false``, ``[]``, ``{}``).
Once the hot-path decoder (:mod:`streams.worker.fastpath`) has accepted a solo join, its
layout is remembered as a pattern: the keys and literals as they were, JSON whitespace
allowed between tokens, and each varying value a group of exactly what the models allow
there (an id: 1 to 128 characters, none of them a quote, a backslash or a control
character; a queue or region: the key-part rule; a rating name: 1 to 64 such
characters; a number: JSON's integer syntax). A record that matches a remembered
pattern in full is that structure with other values: its keys are the learned ones
(known, required, none repeated), so what is left to check is the numbers' bounds and
that rating names differ. A match costs a quarter of ``json``'s scan alone, and the
general path's checks are skipped: 3 instead of 7 us a join (docs/benchmarks/worker.md,
session 6).

Anything else (no pattern matches, a number out of bounds, equal rating names) gives
None: the caller takes the general path, which decides and may teach a new layout.
tests/streams/test_join_shapes.py proves that a record read here is the event the full
path decodes, and that records with values the models refuse are not read here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from matcher.core import Player, Ticket
from matcher.fastbuild import builder
from matcher.queue import TicketJoined
from schemas import models as wire

_W = r"[ \t\n\r]*"
_TEXT = r'[^"\\\x00-\x1f\x7f]'
# Each varying value is one group; a string's quotes stay outside it.
_ID = rf"({_TEXT}{{1,128}})"
_NAME = rf"({_TEXT}{{1,64}})"
_KEY_PART = r"([A-Za-z0-9][A-Za-z0-9_.-]{0,63})"
_INT = r"(-?(?:0|[1-9][0-9]{0,18}))"
#: The group of each kind of value, by its key (a rating's name and value: by kind).
_KINDS = {"ticket_id": _ID, "queue": _KEY_PART, "region": _KEY_PART, "player_id": _ID}
_KINDS.update({"joined_at_ms": _INT, "name": _NAME, "rating": _INT})
_GROUPS = {key: f'"{_KINDS[key]}"' for key in ("ticket_id", "queue", "region")}
_GROUPS["joined_at_ms"] = _INT
_EMPTY = {
    "roles": rf"\[{_W}\]",
    "vetoed_maps": rf"\[{_W}\]",
    "latency_ms": rf"\{{{_W}\}}",
    "attributes": rf"\{{{_W}\}}",
}
_LITERALS = {True: "true", False: "false"}
#: Layouts, and colon counts, remembered before starting over (a worker's producers
#: write a few layouts; ids with colons spread one over several counts).
MAX_SHAPES = 64
#: Learning a layout costs ~20 us, a new one ~1.3 ms (its patterns compiled): each costs
#: a token, and a token comes back every LEARN_REFILL joins the general path reads. So a
#: producer whose every join is laid out anew (keys in random order, say) costs at most
#: ~1 us a join more, while the first MAX_SHAPES layouts are learned at once.
LEARN_REFILL = 1_024
_TOKENS = [float(MAX_SHAPES)]

# Frozen dataclasses built without __init__'s per-field object.__setattr__ (equal objects).
make_player = builder(Player)
make_ticket = builder(Ticket)
make_joined = builder(TicketJoined)

Read = Callable[[tuple[Any, ...]], TicketJoined | None]
#: Per number of colons in the text (a cheap first sort): (fullmatch, read) per layout.
_SHAPES: dict[int, list[tuple[Callable[[str], re.Match[str] | None], Read]]] = {}
_PATTERNS: dict[str, tuple[Callable[[str], re.Match[str] | None], Read]] = {}


def read_join(text: str) -> TicketJoined | None:
    """The join in ``text`` if it matches a remembered layout with values in bounds."""
    shapes = _SHAPES.get(text.count(":"))
    if shapes is None:
        return None
    for fullmatch, read in shapes:
        match = fullmatch(text)
        if match is not None:
            return read(match.groups())
    return None


def learn(text: str, keys: list[str], body: dict[str, Any]) -> None:
    """Remember the layout of ``text``, a solo join the general path accepted.

    ``keys``: the object's keys in the text's order (``type`` included); ``body``: its
    values. A layout with a party, roles, vetoed maps or latencies is not remembered
    (nor, when the tokens are spent, any: see LEARN_REFILL).
    """
    tokens = _TOKENS[0] = min(float(MAX_SHAPES), _TOKENS[0] + 1 / LEARN_REFILL)
    players = body["players"]
    if len(players) != 1 or body.get("party_id") is not None:
        return
    player = players[0]
    if player.get("roles") or player.get("vetoed_maps") or player.get("latency_ms"):
        return
    if tokens < 1:
        return
    _TOKENS[0] = tokens - 1
    layout = _layout(keys, body)
    if layout is None:
        return
    loose, groups, slots = layout
    match = re.fullmatch(loose, text)
    if match is None:  # cannot be (the layout is this text's): then nothing is learned
        return
    pattern, colons = _exact(text, match, groups), text.count(":")
    shape = _PATTERNS.get(pattern)
    if shape is not None and shape in _SHAPES.get(colons, ()):
        return
    if len(_PATTERNS) >= MAX_SHAPES or len(_SHAPES) >= MAX_SHAPES:
        _PATTERNS.clear()
        _SHAPES.clear()
    if shape is None:
        shape = (re.compile(pattern).fullmatch, _reader(**slots))
    _PATTERNS[pattern] = shape
    _SHAPES.setdefault(colons, []).append(shape)


def forget() -> None:
    """Forget every layout and give the learning tokens back (for tests)."""
    _PATTERNS.clear()
    _SHAPES.clear()
    _TOKENS[0] = float(MAX_SHAPES)


def _exact(text: str, match: re.Match[str], groups: list[str]) -> str:
    """The pattern of exactly ``text``'s layout: its characters outside the values as they
    are (whitespace too: about twice as fast to match as JSON's optional whitespace)."""
    pieces: list[str] = []
    end = 0
    for index, kind in enumerate(groups, start=1):
        start, stop = match.span(index)
        pieces += (re.escape(text[end:start]), _KINDS[kind])
        end = stop
    pieces.append(re.escape(text[end:]))
    return "".join(pieces)


def _layout(keys: list[str], body: dict[str, Any]) -> tuple[str, list[str], dict[str, Any]] | None:
    """The pattern of a solo join's layout with optional whitespace, the kind of value of
    each of its groups, and where the ticket's values are among them."""
    players = body["players"]
    groups: list[str] = []
    slots: dict[str, Any] = {}
    members = []
    for key in keys:
        if key == "type":
            value = '"TicketJoined"'
        elif key == "players":
            player = _player_layout(players[0], groups, slots)
            if player is None:
                return None
            value = rf"\[{_W}{player}{_W}\]"
        elif key == "party_id":
            value = "null"
        elif key in _GROUPS:
            value = _GROUPS[key]
            slots[key] = len(groups)
            groups.append(key)
        else:
            return None
        members.append(rf'"{re.escape(key)}"{_W}:{_W}{value}')
    pattern = rf"{_W}\{{{_W}" + rf"{_W},{_W}".join(members) + rf"{_W}\}}{_W}"
    return pattern, groups, slots


def _player_layout(player: dict[str, Any], groups: list[str], slots: dict[str, Any]) -> str | None:
    members = []
    slots["can_host"] = player.get("can_host", False)
    for key, value in player.items():
        if key == "player_id":
            slots[key] = len(groups)
            groups.append(key)
            text = f'"{_ID}"'
        elif key == "ratings":
            pairs = []
            slots["ratings"] = []
            for _ in value:
                slots["ratings"].append((len(groups), len(groups) + 1))
                groups += ("name", "rating")
                pairs.append(rf'"{_NAME}"{_W}:{_W}{_INT}')
            text = rf"\{{{_W}" + rf"{_W},{_W}".join(pairs) + rf"{_W}\}}"
        elif key == "can_host":
            text = _LITERALS[value]
        elif value or key not in _EMPTY:  # roles, vetoed maps, latencies, attributes
            return None
        else:
            text = _EMPTY[key]
        members.append(rf'"{re.escape(key)}"{_W}:{_W}{text}')
    return rf"\{{{_W}" + rf"{_W},{_W}".join(members) + rf"{_W}\}}"


def _reader(
    ticket_id: int,
    queue: int,
    region: int,
    joined_at_ms: int,
    player_id: int,
    ratings: list[tuple[int, int]],
    can_host: bool,
) -> Read:
    """``read(groups)``: the join, or None when a number is out of bounds or two rating
    names are equal (left to the general path, which says why)."""
    lowest, highest = wire.MIN_TIMESTAMP_MS, wire.MAX_TIMESTAMP_MS
    most = wire.MAX_RATING

    def _joined(groups: tuple[Any, ...], player: Player, joined_at: int) -> TicketJoined:
        return make_joined(
            make_ticket(
                groups[ticket_id], groups[queue], groups[region], (player,), joined_at, None
            )
        )

    if len(ratings) == 1:  # the usual player: one rating, nothing to sort or compare
        ((name, value),) = ratings

        def read_one(groups: tuple[Any, ...]) -> TicketJoined | None:
            joined_at, rating = int(groups[joined_at_ms]), int(groups[value])
            if not (lowest <= joined_at < highest and 0 <= rating <= most):
                return None
            player = make_player(
                groups[player_id], ((groups[name], rating),), (), (), (), can_host, ()
            )
            return _joined(groups, player, joined_at)

        return read_one

    def read(groups: tuple[Any, ...]) -> TicketJoined | None:
        joined_at = int(groups[joined_at_ms])
        pairs = sorted([(groups[name], int(groups[value])) for name, value in ratings])
        if not lowest <= joined_at < highest:
            return None
        for _, rating in pairs:
            if not 0 <= rating <= most:
                return None
        if len({name for name, _ in pairs}) != len(pairs):
            return None
        player = make_player(groups[player_id], tuple(pairs), (), (), (), can_host, ())
        return _joined(groups, player, joined_at)

    return read
