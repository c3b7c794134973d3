"""Queue-topic records to the matcher's events: the inbound direction of the edge.

:func:`read` is the one entry: the fast decoder (:func:`fast_queue_event`) for the common
well-formed record, else the validating decoder (``schemas.codec.decode_queue_event``,
pydantic) and :func:`to_domain`, one table keyed by wire type. Every rejection, its
code, field and reason, comes from the validating decoder.

The fast decoder checks the same rules, declared as msgspec Structs (docs/adr/0142), and
builds the matcher's dataclasses directly (the full path costs about as much again as a
join's fold, docs/adr/0061), but only for records it can judge with certainty: a JSON or
Avro TicketJoined or TicketLeft of the usual shape. For anything else (a WaveTick, an
escape sequence in JSON, an unknown field, any value out of bounds, any doubt) it
returns None and the full path decides.
tests/streams/test_fastpath.py proves, on generated events, that a record this path
accepts is decoded exactly as the full path decodes it, and that it accepts nothing the
full path rejects.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable
from typing import Annotated, Any, Literal

import msgspec
from fastavro import schemaless_reader
from msgspec import UNSET, Meta, Struct, UnsetType

from matcher.core import Player, Ticket
from matcher.fastbuild import builder
from matcher.queue import LeaveReason, QueueEvent, TicketJoined, TicketLeft, WaveTick
from matcher.queue.claims import ClaimDecided, ClaimReleased, ClaimRequested, SearchHeld
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

#: A raw DEL or C1 control character: JSON lets it stand unescaped in a string, the
#: models refuse it (C0 ones are refused by the JSON parser, escapes by the caller).
_C1 = re.compile(r"[\x7f-\x9f]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_KEY_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
#: In JSON without a backslash every quote delimits a string, so a quote followed by a
#: colon ends an object key: counting them finds keys that the parser merged.
_KEY_END = re.compile(rb'"[ \t\n\r]*:')
#: Queue, region and latency-group names that passed ``_KEY_PART``: checked once each,
#: and each mapped to its first copy, which every ticket then holds instead of its own
#: (the parser makes a new string per value; a queued ticket keeps two of them).
_KEY_PARTS_SEEN: dict[str, str] = {}
_MAGIC_FIRST = MAGIC[0]
_AVRO_MODELS = {wire.TicketJoined: "TicketJoined", wire.TicketLeft: "TicketLeft"}

# The models' bounds as msgspec constraints (printable and key-part rules: see _strings).
_Id = Annotated[str, Meta(min_length=1, max_length=128)]
_Name = Annotated[str, Meta(min_length=1, max_length=64)]
_Part = Annotated[str, Meta(min_length=1, max_length=64)]
_Rating = Annotated[int, Meta(ge=0, le=wire.MAX_RATING)]
_Latency = Annotated[int, Meta(ge=0, le=wire.MAX_LATENCY_MS)]
_Time = Annotated[int, Meta(ge=wire.MIN_TIMESTAMP_MS, lt=wire.MAX_TIMESTAMP_MS)]
#: The models' finite floats: the bounds refuse infinities and NaN.
_Figure = Annotated[float, Meta(ge=-sys.float_info.max, le=sys.float_info.max)]
_OpenAfter = Annotated[int, Meta(ge=0, le=wire.MAX_OPEN_AFTER_MS)]
_Priority = Annotated[int, Meta(ge=-wire.MAX_PRIORITY, le=wire.MAX_PRIORITY)]
#: Opaque data (docs/adr/0173) is rare and has its own bounds: only an empty map stays
#: here, any entry sends the record to the full path.
_NoData = Annotated[dict[str, Any], Meta(max_length=0)]
_NAMES = Meta(max_length=wire.MAX_NAMES_PER_PLAYER)
_Blocked = Annotated[list[_Id], Meta(max_length=wire.MAX_BLOCKED_PLAYERS)]


class _Player(Struct, forbid_unknown_fields=True):
    """``wire.Player``'s shape; an absent optional field stays UNSET (its keys are counted)."""

    player_id: _Id
    ratings: Annotated[dict[_Name, _Rating], Meta(min_length=1), _NAMES]
    roles: Annotated[list[_Name], _NAMES] | UnsetType = UNSET
    vetoed_maps: Annotated[list[_Name], Meta(max_length=wire.MAX_VETOED_MAPS)] | UnsetType = UNSET
    latency_ms: Annotated[dict[_Part, _Latency], _NAMES] | UnsetType = UNSET
    can_host: bool | UnsetType = UNSET
    attributes: Annotated[dict[_Name, _Name], _NAMES] | UnsetType = UNSET
    blocked_players: _Blocked | UnsetType = UNSET
    deviation: _Rating | UnsetType | None = UNSET
    numbers: Annotated[dict[_Name, _Figure], _NAMES] | UnsetType = UNSET
    data: _NoData | UnsetType = UNSET
    #: Round trips to other players (docs/adr/0185) are rare: any entry takes the full path.
    peer_latency_ms: _NoData | UnsetType = UNSET


class _Search(Struct, forbid_unknown_fields=True, frozen=True):
    """``wire.Search``'s shape (docs/adr/0145); hashable, to key :data:`_PLACES_SEEN`."""

    region: _Part
    queue: _Part | UnsetType | None = UNSET
    open_after_ms: _OpenAfter | UnsetType = UNSET


class _Joined(Struct, tag_field="type", tag="TicketJoined", forbid_unknown_fields=True):
    ticket_id: _Id
    queue: _Part
    region: _Part
    players: Annotated[list[_Player], Meta(min_length=1, max_length=wire.MAX_PLAYERS_PER_TICKET)]
    joined_at_ms: _Time
    party_id: _Id | UnsetType | None = UNSET
    searches: Annotated[list[_Search], Meta(max_length=wire.MAX_SEARCHES)] | UnsetType = UNSET
    data: _NoData | UnsetType = UNSET
    #: Regions chosen from latency (docs/adr/0147) are rare: any but null takes the full path.
    nearby: UnsetType | None = UNSET
    priority: _Priority | UnsetType | None = UNSET


class _Left(Struct, tag_field="type", tag="TicketLeft", forbid_unknown_fields=True):
    ticket_id: _Id
    queue: _Part
    region: _Part
    reason: Literal["REQUESTED", "DISCONNECTED"]
    left_at_ms: _Time


# msgspec parses and checks types and bounds in one C pass: the fast path's JSON half
# is this declaration, not a hand-written walk over json's dicts (docs/adr/0142).
_json_event = msgspec.json.Decoder(_Joined | _Left).decode
_REASONS = {"REQUESTED": LeaveReason.REQUESTED, "DISCONNECTED": LeaveReason.DISCONNECTED}

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
        if data[0] == _MAGIC_FIRST and data[:2] == MAGIC:  # JSON's "{" costs no slice
            return _from_avro(data)
        return _from_json(data)
    except _Unsure:
        return None


def _from_json(data: bytes) -> QueueEvent:
    # Searched as str: bytes' ``in`` first tries its operand as an int (a TypeError's
    # cost). A backslash's byte is never inside a UTF-8 character: both find the same.
    if data.isascii():
        text = data.decode("ascii")
        unsure = "\\" in text or "\x7f" in text
    else:
        text = data.decode("utf-8", "replace")
        unsure = "\\" in text or _C1.search(text) is not None
    if unsure:  # an escape could hide a control character or a key's name
        raise _Unsure
    try:
        body = _json_event(data)
    except (msgspec.DecodeError, RecursionError):  # deep nesting: the full path says why
        raise _Unsure from None
    if isinstance(body, _Joined):
        event: QueueEvent = _joined(body)
        keys = _join_keys(body)
    else:
        event = _left(body)
        keys = 6
    # A repeated key (the parser keeps the last; the full path refuses it) shows as more
    # key ends than keys. When every colon of the text ends a key, counting colons is enough.
    if data.count(b":") != keys and len(_KEY_END.findall(data)) != keys:
        raise _Unsure
    return event


def _join_keys(t: _Joined) -> int:
    """The keys of a join's JSON text, as the parser saw them (one function, not one per
    player: a call less on every join)."""
    keys = 6
    if t.party_id is not UNSET:
        keys += 1
    if t.searches is not UNSET:
        keys += 1
        for place in t.searches:
            keys += 1 + (place.queue is not UNSET) + (place.open_after_ms is not UNSET)
    if t.data is not UNSET:  # empty: nothing to count inside it
        keys += 1
    if t.nearby is not UNSET:
        keys += 1
    if t.priority is not UNSET:
        keys += 1
    for p in t.players:
        keys += 2 + len(p.ratings)
        if p.roles is not UNSET:
            keys += 1
        if p.vetoed_maps is not UNSET:
            keys += 1
        if p.latency_ms is not UNSET:
            keys += 1 + len(p.latency_ms)
        if p.can_host is not UNSET:
            keys += 1
        if p.attributes is not UNSET:
            keys += 1 + len(p.attributes)
        if p.blocked_players is not UNSET:
            keys += 1
        if p.deviation is not UNSET:
            keys += 1
        if p.numbers is not UNSET:
            keys += 1 + len(p.numbers)
        if p.data is not UNSET:  # empty: nothing to count inside it
            keys += 1
        if p.peer_latency_ms is not UNSET:  # empty, as data
            keys += 1
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
    try:
        if known.model is wire.TicketJoined:
            joined = msgspec.convert(body, _Joined)
            _strings_printable(joined)
            return _joined(joined)
        return _left(msgspec.convert(body, _Left))
    except msgspec.ValidationError:
        raise _Unsure from None


def _strings_printable(joined: _Joined) -> None:
    """Avro strings may hold any character: each must pass the models' printable rule
    (in JSON, the caller's scan of the text covers every string at once)."""
    _printable(joined.ticket_id)
    if joined.party_id:
        _printable(joined.party_id)
    for p in joined.players:
        _printable(p.player_id)
        for name in (*p.ratings, *(p.roles or ()), *(p.vetoed_maps or ())):
            _printable(name)
        for pair in (p.attributes or {}).items():
            _printable(pair[0])
            _printable(pair[1])
        for name in (*(p.blocked_players or ()), *(p.numbers or ())):
            _printable(name)


def _joined(body: _Joined) -> TicketJoined:
    players, queue, region = body.players, body.queue, body.region
    if len(players) == 1:  # the usual solo join
        members: tuple[Player, ...] = (_player(players[0]),)
    else:
        members = tuple([_player(player) for player in players])
        if len({player.player_id for player in members}) != len(members):
            raise _Unsure
    party_id, priority, places = body.party_id, body.priority, body.searches
    queue = _KEY_PARTS_SEEN.get(queue) or _key_part(queue)
    region = _KEY_PARTS_SEEN.get(region) or _key_part(region)
    ticket = _make_ticket(
        body.ticket_id,
        queue,
        region,
        members,
        body.joined_at_ms,
        None if party_id is UNSET else party_id,
        (),
        0 if priority is UNSET or priority is None else priority,
    )
    return _make_joined(ticket, _searches(places, queue, region) if places else (), None)


def _searches(places: list[_Search], queue: str, region: str) -> tuple[Search, ...]:
    """A join's places, when plainly valid (the model's rules, docs/adr/0145): the same
    tuple for the same places of the same (queue, region)."""
    key = (queue, region, *places)
    known = _PLACES_SEEN.get(key)
    if known is not None:
        return known
    out = []
    for place in places:
        named, after = place.queue, place.open_after_ms
        out.append(
            _make_search(
                queue if named is None or named is UNSET else _key_part(named),
                _key_part(place.region),
                0 if after is UNSET else after,
            )
        )
    if out[0].open_after_ms or len({(s.queue, s.region) for s in out}) != len(out):
        raise _Unsure
    if not any(s.queue == queue and s.region == region for s in out):
        raise _Unsure
    if len(_PLACES_SEEN) >= 4_096:  # garbage places must not grow it forever
        _PLACES_SEEN.clear()
    known = _PLACES_SEEN[key] = tuple(out)
    return known


#: The places of valid joins, by (queue, region, *places): a region's joins and the
#: copies reaching it name few lists (a home and its neighbours, a few waits). Kept, a
#: list is checked and built once, and every ticket holding it shares one tuple.
_PLACES_SEEN: dict[tuple[object, ...], tuple[Search, ...]] = {}


def _player(body: _Player) -> Player:
    ratings, latency, attributes = body.ratings, body.latency_ms, body.attributes
    roles, maps, blocked, numbers = body.roles, body.vetoed_maps, body.blocked_players, body.numbers
    deviation = body.deviation
    if latency:
        for group in latency:
            _key_part(group)
    return _make_player(
        body.player_id,
        tuple(sorted(ratings.items())) if len(ratings) > 1 else tuple(ratings.items()),
        tuple(roles) if roles else (),
        tuple(maps) if maps else (),
        tuple(sorted(latency.items())) if latency else (),
        body.can_host is True,
        tuple(sorted(attributes.items())) if attributes else (),
        tuple(blocked) if blocked else (),
        None if deviation is UNSET else deviation,
        tuple(sorted(numbers.items())) if numbers else (),
        (),
        (),
    )


def _left(body: _Left) -> TicketLeft:
    return _make_left(
        body.ticket_id,
        _key_part(body.queue),
        _key_part(body.region),
        _REASONS[body.reason],
        body.left_at_ms,
    )


def _printable(value: str) -> None:
    """The wire's ``Id`` and ``Name`` rule: no control character."""
    # Printable ASCII is exactly ASCII without the refused control characters.
    if not (value.isascii() and value.isprintable()) and _CONTROL.search(value):
        raise _Unsure


def _key_part(value: str) -> str:
    known = _KEY_PARTS_SEEN.get(value)  # a worker sees few queues, regions
    if known is not None:
        return known
    if not _KEY_PART.fullmatch(value):
        raise _Unsure
    if len(_KEY_PARTS_SEEN) < 4_096:
        _KEY_PARTS_SEEN[value] = value
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
    | SearchHeld
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


def build_validators() -> None:
    """Build the validating path's models now: they are built on first use (a command
    that publishes one event type does not pay for all), and a worker's first tick
    should not wait for WaveTick's."""
    for model in wire.QUEUE_EVENTS:
        model.model_rebuild()


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


def player_from_wire(p: wire.Player) -> Player:
    """A validated wire player as the matcher's."""
    return Player(
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
        peer_latency_ms=tuple(sorted(p.peer_latency_ms.items())),
    )


def ticket_from_wire(event: wire.TicketJoined) -> Ticket:
    return Ticket(
        event.ticket_id,
        event.queue,
        event.region,
        tuple(player_from_wire(p) for p in event.players),
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


def _search_held(event: wire.SearchHeld) -> SearchHeld:
    """A place's match holds a searching ticket, or gave it back (docs/adr/0204)."""
    holder = (event.holder_queue, event.holder_region)
    head = (event.player_id, event.ticket_id, event.queue, event.region)
    return SearchHeld(*head, event.match_id, holder, event.held, event.at_ms)


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
    wire.SearchHeld: _search_held,
}
