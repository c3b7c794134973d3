"""Queue-topic records to the matcher's events: the inbound direction of the edge.

:func:`read` is the one entry: the fast decoder (:func:`fast_queue_event`) for the common
well-formed record, else the validating decoder (``schemas.codec.decode_queue_event``,
pydantic) and :func:`to_domain`, one table keyed by wire type. Every rejection, its
code, field and reason, comes from the validating decoder.

The fast decoder checks the same rules by hand and builds the matcher's dataclasses
directly (the full path costs about as much again as a join's fold, docs/adr/0061), but
only for records it can judge with certainty: a JSON or Avro TicketJoined or TicketLeft
of the usual shape. For anything else (a WaveTick, an escape sequence in JSON, an unknown
field, any value out of bounds, any doubt) it returns None and the full path decides.
tests/streams/test_fastpath.py proves, on generated events, that a record this path
accepts is decoded exactly as the full path decodes it, and that it accepts nothing the
full path rejects.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Callable
from typing import Any

from fastavro import schemaless_reader

from matcher.core import Player, Ticket
from matcher.fastbuild import builder
from matcher.queue import LeaveReason, QueueEvent, TicketJoined, TicketLeft, WaveTick
from matcher.queue.claims import ClaimDecided, ClaimReleased, ClaimRequested
from matcher.queue.events import Nearby, Search
from matcher.queue.lifecycle import (
    BackfillCancelled,
    BackfillRequested,
    BackfillTeam,
    Connection,
    PlacementOutcome,
    PlacementReported,
    ReadyCheckAnswered,
)
from schemas import models as wire
from schemas.codec import HEADER_BYTES, KNOWN, MAGIC, MAX_EVENT_BYTES, decode_queue_event
from schemas.topics import claim_key, search_key

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_KEY_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
#: In JSON without a backslash every quote delimits a string, so a quote followed by a
#: colon ends an object key: counting them finds keys that ``json.loads`` merged.
_KEY_END = re.compile(r'"[ \t\n\r]*:')

_JOINED_FIELDS = frozenset(
    ("ticket_id", "queue", "region", "party_id", "players", "joined_at_ms", "data")
)
_JOINED_REQUIRED = frozenset(("ticket_id", "queue", "region", "players", "joined_at_ms"))
_LEFT_FIELDS = frozenset(("ticket_id", "queue", "region", "reason", "left_at_ms"))
_PLAYER_FIELDS = frozenset(
    (
        "player_id",
        "ratings",
        "roles",
        "vetoed_maps",
        "latency_ms",
        "can_host",
        "attributes",
        "blocked_players",
        "deviation",
        "data",
    )
)
_PLAYER_FIELDS |= {"numbers"}
_REASONS = {"REQUESTED": LeaveReason.REQUESTED, "DISCONNECTED": LeaveReason.DISCONNECTED}
_NO_LATENCY: dict[str, int] = {}
_NO_ATTRIBUTES: dict[str, str] = {}
_NO_NUMBERS: dict[str, float] = {}
#: ``json.loads`` is this scanner plus whitespace checks around it (json/decoder.py).
_scan_once = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set in __init__, not typed
#: Queue, region and latency-group names that passed ``_KEY_PART``: checked once each.
_KEY_PARTS_SEEN: set[str] = set()
_AVRO_MODELS = {wire.TicketJoined: "TicketJoined", wire.TicketLeft: "TicketLeft"}


# Frozen dataclasses built without __init__'s per-field object.__setattr__ (equal objects).
_make_player = builder(Player)
_make_ticket = builder(Ticket)
_make_joined = builder(TicketJoined)
_make_left = builder(TicketLeft)
_make_search = builder(Search)


class _Unsure(Exception):
    """The record is not one this path can judge: take the full path."""


def fast_queue_event(data: bytes | None) -> QueueEvent | None:
    """The matcher event in ``data`` if it is a plainly valid join or leave, else None.

    >>> event = fast_queue_event(b'{"type": "TicketLeft", "ticket_id": "t-1", "queue": "1v1",'
    ...     b' "region": "eu", "reason": "REQUESTED", "left_at_ms": 1767225630000}')
    >>> event.reason
    <LeaveReason.REQUESTED: 'requested'>
    >>> fast_queue_event(b'{"type": "TicketLeft"}') is None  # the full path says why
    True
    """
    if not data or len(data) > MAX_EVENT_BYTES:
        return None
    try:
        if data[:2] == MAGIC:
            return _from_avro(data)
        return _from_json(data)
    except _Unsure:
        return None


def _from_json(data: bytes) -> QueueEvent:
    try:
        text = data.decode("utf-8")
    except ValueError:
        raise _Unsure from None
    if "\\" in text:
        raise _Unsure
    try:
        if text[:1] == "{":  # the usual record: json.loads' own scanner, without its wrapper
            body, end = _scan_once(text, 0)
            if end != len(text) and text[end:].strip(" \t\n\r"):
                raise _Unsure
        else:
            body = json.loads(text)
    except (ValueError, StopIteration, RecursionError):  # deep nesting: the full path says why
        raise _Unsure from None
    if type(body) is not dict:  # json.loads allows only JSON whitespace before the "{"
        raise _Unsure
    kind = body.pop("type", None)
    if kind == "TicketJoined":
        fields = len(body) + _search_keys(body.get("searches"))  # before _joined drops it
        event: QueueEvent = _joined(body)
        keys = 1 + fields + _nested_keys(body["players"])
    elif kind == "TicketLeft":
        event = _left(body)
        keys = 1 + len(body)
    else:
        raise _Unsure
    # A repeated key (json.loads keeps the last; the full path refuses it) shows as more
    # key ends than keys. When every colon of the text ends a key, counting colons is enough.
    if text.count(":") != keys and len(_KEY_END.findall(text)) != keys:
        raise _Unsure
    return event


def _nested_keys(players: list[dict[str, Any]]) -> int:
    keys = 0
    for player in players:
        keys += len(player) + len(player["ratings"]) + len(player.get("latency_ms", ()))
        keys += len(player.get("attributes", ())) + len(player.get("numbers", ()))
        # Data is always empty here (:func:`_no_data`): nothing to count inside it.
    return keys


def _from_avro(data: bytes) -> QueueEvent:
    known = KNOWN.get(bytes(data[2:HEADER_BYTES]))
    if known is None or known.model not in _AVRO_MODELS:
        raise _Unsure
    stream = io.BytesIO(data)
    stream.seek(HEADER_BYTES)
    try:
        body = schemaless_reader(stream, known.writer, known.reader)
    except Exception:
        raise _Unsure from None
    if stream.tell() != len(data) or type(body) is not dict:
        raise _Unsure
    return _joined(body) if known.model is wire.TicketJoined else _left(body)


def _search_keys(searches: Any) -> int:
    if type(searches) is not list:
        return 0
    return sum(len(place) if type(place) is dict else 0 for place in searches)


def _joined(body: dict[str, Any]) -> TicketJoined:
    places = body.pop("searches", None)
    if body.pop("nearby", None) is not None:  # rare: the model's path checks it
        raise _Unsure
    priority = body.pop("priority", None)  # every Avro join has it, most JSON joins not
    if priority is None:
        priority = 0
    elif type(priority) is not int or not -wire.MAX_PRIORITY <= priority <= wire.MAX_PRIORITY:
        raise _Unsure
    if not body.keys() <= _JOINED_FIELDS or not body.keys() >= _JOINED_REQUIRED:
        raise _Unsure
    _no_data(body)
    party_id = body.get("party_id")
    if party_id is not None:
        _id(party_id)
    players = body["players"]
    if type(players) is not list or not 1 <= len(players) <= wire.MAX_PLAYERS_PER_TICKET:
        raise _Unsure
    members = tuple([_player(player) for player in players])
    if len({player.player_id for player in members}) != len(members):
        raise _Unsure
    ticket = _make_ticket(
        _id(body["ticket_id"]),
        _key_part(body["queue"]),
        _key_part(body["region"]),
        members,
        _timestamp(body["joined_at_ms"]),
        party_id,
        (),
        priority,
    )
    return _make_joined(
        ticket, _searches(places, ticket.queue, ticket.region) if places else (), None
    )


_SEARCH_FIELDS = frozenset(("region", "queue", "open_after_ms"))


def _searches(places: Any, queue: str, region: str) -> tuple[Search, ...]:
    """A join's places, when plainly valid (the model's rules, docs/adr/0145)."""
    if type(places) is not list or len(places) > wire.MAX_SEARCHES:
        raise _Unsure
    out = []
    for place in places:
        if type(place) is not dict:
            raise _Unsure
        if len(place) == 1:  # the usual place, a copy's too: its region only
            out.append(_make_search(queue, _key_part(place.get("region")), 0))
            continue
        if not place.keys() <= _SEARCH_FIELDS or "region" not in place:
            raise _Unsure
        named = place.get("queue")
        after = place.get("open_after_ms", 0)
        if type(after) is not int or not 0 <= after <= wire.MAX_OPEN_AFTER_MS:
            raise _Unsure
        out.append(
            _make_search(
                queue if named is None else _key_part(named), _key_part(place["region"]), after
            )
        )
    if out[0].open_after_ms or len({(s.queue, s.region) for s in out}) != len(out):
        raise _Unsure
    if not any(s.queue == queue and s.region == region for s in out):
        raise _Unsure
    return tuple(out)


def _player(body: Any) -> Player:
    if type(body) is not dict or not body.keys() <= _PLAYER_FIELDS:
        raise _Unsure
    ratings = body.get("ratings")
    if type(ratings) is not dict or not 1 <= len(ratings) <= wire.MAX_NAMES_PER_PLAYER:
        raise _Unsure
    for name, rating in ratings.items():
        _name(name)
        if type(rating) is not int or not 0 <= rating <= wire.MAX_RATING:
            raise _Unsure
    latency = body.get("latency_ms", _NO_LATENCY)  # an explicit null is the full path's to refuse
    if latency:
        if type(latency) is not dict or len(latency) > wire.MAX_NAMES_PER_PLAYER:
            raise _Unsure
        for group, ms in latency.items():
            _key_part(group)
            if type(ms) is not int or not 0 <= ms <= wire.MAX_LATENCY_MS:
                raise _Unsure
        latency_ms = tuple(sorted(latency.items()))
    elif type(latency) is dict:
        latency_ms = ()
    else:
        raise _Unsure
    can_host = body.get("can_host", False)
    if type(can_host) is not bool:
        raise _Unsure
    _no_data(body)
    return _make_player(
        _id(body.get("player_id")),
        tuple(sorted(ratings.items())) if len(ratings) > 1 else tuple(ratings.items()),
        _names(body.get("roles", ()), wire.MAX_NAMES_PER_PLAYER),
        _names(body.get("vetoed_maps", ()), wire.MAX_VETOED_MAPS),
        latency_ms,
        can_host,
        _attributes(body.get("attributes", _NO_ATTRIBUTES)),
        _blocked(body.get("blocked_players", ())),
        _deviation(body.get("deviation")),
        _numbers(body.get("numbers", _NO_NUMBERS)),
        (),
    )


def _deviation(value: Any) -> int | None:
    if value is None or (type(value) is int and 0 <= value <= wire.MAX_RATING):
        return value
    raise _Unsure


def _blocked(ids: Any) -> tuple[str, ...]:
    if not ids and type(ids) in (list, tuple):  # the usual join: none
        return ()
    if type(ids) is not list or len(ids) > wire.MAX_BLOCKED_PLAYERS:
        raise _Unsure  # an explicit null too: the full path's to refuse
    return tuple([_id(player_id) for player_id in ids])


def _no_data(body: dict[str, Any]) -> None:
    """Opaque data (docs/adr/0173) is rare and has its own bounds: the full path checks it."""
    data = body.get("data", _NO_ATTRIBUTES)
    if data or type(data) is not dict:
        raise _Unsure


def _attributes(attributes: Any) -> tuple[tuple[str, str], ...]:
    if not attributes and type(attributes) is dict:  # the usual join: none
        return ()
    if type(attributes) is not dict or len(attributes) > wire.MAX_NAMES_PER_PLAYER:
        raise _Unsure  # an explicit null too: the full path's to refuse
    for name, value in attributes.items():
        _name(name)
        _name(value)
    return tuple(sorted(attributes.items()))


def _numbers(numbers: Any) -> tuple[tuple[str, float], ...]:
    if not numbers and type(numbers) is dict:  # the usual join: none
        return ()
    if type(numbers) is not dict or len(numbers) > wire.MAX_NAMES_PER_PLAYER:
        raise _Unsure  # an explicit null too: the full path's to refuse
    for name, value in numbers.items():
        _name(name)
        if type(value) not in (int, float) or not math.isfinite(value):
            raise _Unsure
    return tuple(sorted((name, float(value)) for name, value in numbers.items()))


def _left(body: dict[str, Any]) -> TicketLeft:
    if body.keys() != _LEFT_FIELDS:
        raise _Unsure
    reason = _REASONS.get(body["reason"]) if type(body["reason"]) is str else None
    if reason is None:
        raise _Unsure
    return _make_left(
        _id(body["ticket_id"]),
        _key_part(body["queue"]),
        _key_part(body["region"]),
        reason,
        _timestamp(body["left_at_ms"]),
    )


def _printable(value: Any, longest: int) -> str:
    """The wire's ``Id`` (128) and ``Name`` (64) rule: 1 to ``longest`` characters, no
    control character."""
    if type(value) is not str or not 1 <= len(value) <= longest:
        raise _Unsure
    # Printable ASCII is exactly ASCII without the refused control characters.
    if not (value.isascii() and value.isprintable()) and _CONTROL.search(value):
        raise _Unsure
    return value


def _id(value: Any) -> str:
    return _printable(value, 128)


def _name(value: Any) -> str:
    return _printable(value, 64)


def _names(values: Any, most: int) -> tuple[str, ...]:
    if not values and type(values) in (list, tuple):
        return ()
    if type(values) not in (list, tuple) or len(values) > most:
        raise _Unsure
    return tuple([_name(value) for value in values])


def _key_part(value: Any) -> str:
    if type(value) is str and value in _KEY_PARTS_SEEN:  # a worker sees few queues, regions
        return value
    if type(value) is not str or len(value) > 64 or not _KEY_PART.fullmatch(value):
        raise _Unsure
    if len(_KEY_PARTS_SEEN) < 4_096:
        _KEY_PARTS_SEEN.add(value)
    return value


def _timestamp(value: Any) -> int:
    if type(value) is not int or not wire.MIN_TIMESTAMP_MS <= value < wire.MAX_TIMESTAMP_MS:
        raise _Unsure
    return value


# -- the validating path: wire models to the matcher's events -----------------------------

#: Every event of the queue topic, as the matcher folds it.
Inbound = (
    QueueEvent
    | ReadyCheckAnswered
    | PlacementReported
    | ClaimRequested
    | ClaimDecided
    | ClaimReleased
    | BackfillRequested
    | BackfillCancelled
)


def read(data: bytes | None) -> Inbound:
    """The matcher event in a queue-topic record's value.

    Raises :class:`schemas.errors.InvalidEvent` (code, field, reason) for a value the
    contract refuses.
    """
    return fast_queue_event(data) or decode(data)


def decode(data: bytes | None) -> Inbound:
    """The validating path of :func:`read` (its caller tried the fast decoder first)."""
    return to_domain(decode_queue_event(data or b""))


def to_domain(event: wire.QueueEvent) -> Inbound:
    """The matcher's event for a validated wire event of the queue topic."""
    return _TO_DOMAIN[type(event)](event)


def routing_key(event: Inbound) -> bytes | None:
    """The key an event must carry when it is not ``"<queue>/<region>"``: a claim's is
    its player's (docs/adr/0110), a search claim's its ticket's (docs/adr/0145)."""
    if type(event) in OWN_KEYED:
        if event.match_id is not None:  # type: ignore[union-attr]
            return search_key(event.ticket_id)  # type: ignore[union-attr]
        return claim_key(event.player_id)  # type: ignore[union-attr]
    return None


#: The events keyed by something else than their queue and region.
OWN_KEYED = frozenset((ClaimRequested, ClaimReleased))


def ticket_from_wire(event: wire.TicketJoined) -> Ticket:
    players = tuple(
        Player(
            player_id=p.player_id,
            ratings=tuple(sorted(p.ratings.items())),
            roles=tuple(p.roles),
            vetoed_maps=tuple(p.vetoed_maps),
            latency_ms=tuple(sorted(p.latency_ms.items())),
            can_host=bool(getattr(p, "can_host", False)),
            attributes=tuple(sorted(p.attributes.items())),
            blocked=tuple(p.blocked_players),
            deviation=p.deviation,
            numbers=tuple(sorted((k, float(v)) for k, v in p.numbers.items())),
            data=tuple(sorted(p.data.items())),
        )
        for p in event.players
    )
    return Ticket(
        event.ticket_id,
        event.queue,
        event.region,
        players,
        event.joined_at_ms,
        event.party_id,
        tuple(sorted(event.data.items())),
        event.priority or 0,
    )


def _joined_event(event: wire.TicketJoined) -> TicketJoined:
    ticket = ticket_from_wire(event)
    near = event.nearby
    nearby = None if near is None else Nearby(near.open_after_ms, near.max_latency_ms)
    if not event.searches and nearby is None:
        return TicketJoined(ticket)
    searches = tuple(
        Search(s.queue or event.queue, s.region, s.open_after_ms) for s in event.searches
    )
    return TicketJoined(ticket, searches, nearby)


def _search_claim(event: wire.SearchClaim) -> ClaimRequested | ClaimDecided | ClaimReleased:
    """A SearchClaim as the claim event it carries (docs/adr/0145)."""
    action, at_ms = event.action, event.at_ms
    head = (event.player_id, event.ticket_id, event.queue, event.region)
    if action is wire.SearchClaimAction.REQUESTED:
        return ClaimRequested(*head, at_ms, event.match_id or "")
    if action is wire.SearchClaimAction.RELEASED:
        return ClaimReleased(*head, at_ms, event.match_id or "")
    holder = None
    if event.holder_queue is not None and event.holder_region is not None:
        holder = (event.ticket_id, event.holder_queue, event.holder_region)
    granted = action is wire.SearchClaimAction.GRANTED
    ended = None
    if action is wire.SearchClaimAction.ENDED:
        ended = (event.ended or wire.SearchEnd.MATCHED_ELSEWHERE).value.lower()
    return ClaimDecided(*head, granted, at_ms, holder, event.match_id, ended)


def _left_event(event: wire.TicketLeft) -> TicketLeft:
    reason = LeaveReason[event.reason.name]
    return TicketLeft(event.ticket_id, event.queue, event.region, reason, event.left_at_ms)


def _tick(event: wire.WaveTick) -> WaveTick:
    return WaveTick(
        event.queue,
        event.region,
        event.wave_id,
        event.sequence,
        event.tick_at_ms,
        event.config_fingerprint,
        event.interval_ms,
    )


def _backfill_requested(event: wire.BackfillRequested) -> BackfillRequested:
    teams = tuple(
        BackfillTeam(t.name, tuple((p.player_id, p.rating) for p in t.players), t.open_slots)
        for t in event.teams
    )
    return BackfillRequested(
        event.session_id,
        event.queue,
        event.region,
        teams,
        event.requested_at_ms,
        event.deadline_at_ms,
    )


def _backfill_cancelled(event: wire.BackfillCancelled) -> BackfillCancelled:
    return BackfillCancelled(event.session_id, event.queue, event.region, event.cancelled_at_ms)


def _answered(event: wire.ReadyCheckAnswered) -> ReadyCheckAnswered:
    return ReadyCheckAnswered(
        event.match_id,
        event.queue,
        event.region,
        event.player_id,
        event.accepted,
        event.answered_at_ms,
    )


def _reported(event: wire.PlacementReported) -> PlacementReported:
    given = event.connection
    connection = None if given is None else Connection(given.address, given.port, given.token)
    return PlacementReported(
        event.match_id,
        event.queue,
        event.region,
        PlacementOutcome[event.outcome.name],
        event.reported_at_ms,
        event.detail,
        connection,
    )


def _claim_requested(event: wire.ClaimRequested) -> ClaimRequested:
    return ClaimRequested(
        event.player_id, event.ticket_id, event.queue, event.region, event.requested_at_ms
    )


def _claim_released(event: wire.ClaimReleased) -> ClaimReleased:
    return ClaimReleased(
        event.player_id, event.ticket_id, event.queue, event.region, event.released_at_ms
    )


def _claim_decided(event: wire.ClaimDecided) -> ClaimDecided:
    holder = None
    if event.holder_ticket_id is not None:
        holder = (event.holder_ticket_id, event.holder_queue or "", event.holder_region or "")
    return ClaimDecided(
        event.player_id,
        event.ticket_id,
        event.queue,
        event.region,
        event.granted,
        event.decided_at_ms,
        holder,
    )


_TO_DOMAIN: dict[type, Callable[[Any], Inbound]] = {
    wire.TicketJoined: _joined_event,
    wire.TicketLeft: _left_event,
    wire.WaveTick: _tick,
    wire.BackfillRequested: _backfill_requested,
    wire.BackfillCancelled: _backfill_cancelled,
    wire.ReadyCheckAnswered: _answered,
    wire.PlacementReported: _reported,
    wire.ClaimRequested: _claim_requested,
    wire.ClaimDecided: _claim_decided,
    wire.ClaimReleased: _claim_released,
    wire.SearchClaim: _search_claim,
}
