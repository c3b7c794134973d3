"""Pydantic v2 mirrors of the v1 Avro records: one frozen model per ``.avsc``, same name.

The ``.avsc`` files say what the bytes look like; these models say which values are
acceptable (bounds, patterns, cross-field rules). ``tests/schemas/test_contract.py``
derives an Avro schema from each model and proves it equals the ``.avsc`` field for field.

Scalar types carry their Avro type in their metadata (``AvroType("long")``) where Python's
``int`` is ambiguous; every ``int`` field is bounded so that its values fit the Avro type.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Final

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
)

#: 2000-01-01T00:00:00Z, the earliest accepted timestamp (inclusive), in ms since the epoch.
MIN_TIMESTAMP_MS: Final = 946_684_800_000
#: 2200-01-01T00:00:00Z, the first rejected timestamp (exclusive), in ms since the epoch.
MAX_TIMESTAMP_MS: Final = 7_258_118_400_000
MAX_RATING: Final = 10_000
MAX_PLAYERS_PER_TICKET: Final = 10
MAX_VETOED_MAPS: Final = 64
#: The most player ids one player's block list may hold.
MAX_BLOCKED_PLAYERS: Final = 100
#: Round trips a player may report to other players (peer-to-peer games): a match of
#: two full teams of 50 stays within it.
MAX_PEER_LATENCIES: Final = 100
#: A ticket's priority lies within plus or minus this (``TicketJoined.priority``).
MAX_PRIORITY: Final = 1_000_000
#: Ratings, offered roles and latencies per player: generous, and it keeps a full
#: ticket's worst case within a few tens of KiB.
MAX_NAMES_PER_PLAYER: Final = 16
MAX_LATENCY_MS: Final = 60_000
MAX_INTERVAL_MS: Final = 86_400_000
#: Opaque data per player and per ticket (docs/adr/0173): entries per map, the longest
#: value, and a ticket's data as its seats carry it (the ticket's entries once per player,
#: plus each player's own), in UTF-8 bytes of names and values. The budget keeps a match
#: of a few dozen seats well inside the 64 KiB an event may have.
MAX_DATA_ENTRIES: Final = 16
MAX_DATA_VALUE_CHARS: Final = 1024
MAX_TICKET_DATA_BYTES: Final = 2048
#: DeadLetter keeps at most this much of the original value and key (see codec.dead_letter_for).
MAX_DEAD_LETTER_ORIGINAL_BYTES: Final = 65_536
MAX_DEAD_LETTER_KEY_BYTES: Final = 1_024
INT32_MAX: Final = 2**31 - 1
INT64_MAX: Final = 2**63 - 1


@dataclass(frozen=True, slots=True)
class AvroType:
    """Names the Avro primitive of an ``int`` field ("int" unless marked "long")."""

    name: str


_LONG = AvroType("long")
# Ids are opaque to us but end up in logs, keys and channel names: no control characters
# (C0, DEL and C1: U+0085 NEXT LINE breaks a log line as surely as "\n").
_PRINTABLE = r"^[^\x00-\x1f\x7f-\x9f]+$"
# Queue and region form the partition key "<queue>/<region>", so neither may hold a "/".
_KEY_PART = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"

Id = Annotated[
    str, StringConstraints(strict=True, min_length=1, max_length=128, pattern=_PRINTABLE)
]
Name = Annotated[
    str, StringConstraints(strict=True, min_length=1, max_length=64, pattern=_PRINTABLE)
]
KeyPart = Annotated[
    str, StringConstraints(strict=True, min_length=1, max_length=64, pattern=_KEY_PART)
]
Line = Annotated[
    str, StringConstraints(strict=True, min_length=1, max_length=1024, pattern=_PRINTABLE)
]
#: A data value is opaque (JSON text, a base64 blob): any characters, none read by us.
DataValue = Annotated[str, StringConstraints(strict=True, max_length=MAX_DATA_VALUE_CHARS)]
Data = Annotated[dict[Name, DataValue], Field(max_length=MAX_DATA_ENTRIES)]
Rating = Annotated[int, Field(strict=True, ge=0, le=MAX_RATING)]
Latency = Annotated[int, Field(strict=True, ge=0, le=MAX_LATENCY_MS)]
Count = Annotated[int, Field(strict=True, ge=0, le=INT32_MAX)]
Position = Annotated[int, Field(strict=True, ge=1, le=INT32_MAX)]
Long = Annotated[int, _LONG, Field(strict=True, ge=0, le=INT64_MAX)]
IntervalMs = Annotated[int, _LONG, Field(strict=True, ge=1, le=MAX_INTERVAL_MS)]
TimestampMs = Annotated[int, _LONG, Field(strict=True, ge=MIN_TIMESTAMP_MS, lt=MAX_TIMESTAMP_MS)]
Figure = Annotated[float, Field(strict=True, allow_inf_nan=False)]
NonNegativeFigure = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=0.0)]


class Record(BaseModel):
    """Base of every model: immutable, and an unknown field is an error, not a shrug."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        ser_json_bytes="base64",
        val_json_bytes="base64",
        # Each model builds its validator when first used: a command that publishes one
        # event type does not pay for all of them.
        defer_build=True,
    )


class LeaveReason(StrEnum):
    REQUESTED = "REQUESTED"
    DISCONNECTED = "DISCONNECTED"


class DequeueReason(StrEnum):
    MATCHED = "MATCHED"
    LEFT = "LEFT"
    EXPIRED = "EXPIRED"
    REJECTED = "REJECTED"


class TicketState(StrEnum):
    SEARCHING = "SEARCHING"


class TicketStage(StrEnum):
    SEARCHING = "SEARCHING"
    REQUIRES_ACCEPTANCE = "REQUIRES_ACCEPTANCE"
    PLACING = "PLACING"
    MATCHED = "MATCHED"


class DequeueCause(StrEnum):
    OTHER = "OTHER"
    DECLINED = "DECLINED"
    ACCEPTANCE_TIMED_OUT = "ACCEPTANCE_TIMED_OUT"
    PLACEMENT_FAILED = "PLACEMENT_FAILED"


class PlacementOutcome(StrEnum):
    STARTED = "STARTED"
    FAILED = "FAILED"


class BackfillOutcome(StrEnum):
    FILLED = "FILLED"
    EXPIRED = "EXPIRED"


class SearchClaimAction(StrEnum):
    REQUESTED = "REQUESTED"
    GRANTED = "GRANTED"
    REFUSED = "REFUSED"
    RELEASED = "RELEASED"
    ENDED = "ENDED"


class SearchEnd(StrEnum):
    MATCHED_ELSEWHERE = "MATCHED_ELSEWHERE"
    LEFT = "LEFT"


#: The most places one ticket searches (docs/adr/0145): each is a copy of the join.
MAX_SEARCHES: Final = 16
MAX_OPEN_AFTER_MS: Final = 86_400_000


def _duplicates(values: list[str]) -> list[str]:
    return sorted(value for value, count in Counter(values).items() if count > 1)


# --- input -----------------------------------------------------------------------------


class Player(Record):
    player_id: Id
    ratings: Annotated[dict[Name, Rating], Field(min_length=1, max_length=MAX_NAMES_PER_PLAYER)]
    roles: Annotated[tuple[Name, ...], Field(max_length=MAX_NAMES_PER_PLAYER)] = ()
    vetoed_maps: Annotated[tuple[Name, ...], Field(max_length=MAX_VETOED_MAPS)] = ()
    latency_ms: Annotated[dict[KeyPart, Latency], Field(max_length=MAX_NAMES_PER_PLAYER)] = {}
    can_host: Annotated[bool, Field(strict=True)] = False
    attributes: Annotated[dict[Name, Name], Field(max_length=MAX_NAMES_PER_PLAYER)] = {}
    blocked_players: Annotated[tuple[Id, ...], Field(max_length=MAX_BLOCKED_PLAYERS)] = ()
    deviation: Rating | None = None
    numbers: Annotated[dict[Name, Figure], Field(max_length=MAX_NAMES_PER_PLAYER)] = {}
    data: Data = {}
    peer_latency_ms: Annotated[dict[Id, Latency], Field(max_length=MAX_PEER_LATENCIES)] = {}

    @field_validator("peer_latency_ms")
    @classmethod
    def _peers_are_others(cls, peers: dict[str, int], info: ValidationInfo) -> dict[str, int]:
        if info.data.get("player_id") in peers:
            raise ValueError("a player's round trip to themselves is not a peer latency")
        return peers


class Search(Record):
    region: KeyPart
    queue: KeyPart | None = None
    open_after_ms: Annotated[int, _LONG, Field(strict=True, ge=0, le=MAX_OPEN_AFTER_MS)] = 0


class Nearby(Record):
    open_after_ms: Annotated[int, _LONG, Field(strict=True, ge=0, le=MAX_OPEN_AFTER_MS)] = 0
    max_latency_ms: Latency | None = None


class TicketJoined(Record):
    ticket_id: Id
    queue: KeyPart
    region: KeyPart
    party_id: Id | None = None
    players: Annotated[tuple[Player, ...], Field(min_length=1, max_length=MAX_PLAYERS_PER_TICKET)]
    joined_at_ms: TimestampMs
    searches: Annotated[tuple[Search, ...], Field(max_length=MAX_SEARCHES)] = ()
    # Validated when absent too: the budget counts the players' own data, which may
    # exceed it in a join that carries no ticket data of its own.
    data: Annotated[Data, Field(validate_default=True)] = {}

    @field_validator("searches")
    @classmethod
    def _searches_name_this_place(
        cls, searches: tuple[Search, ...], info: ValidationInfo
    ) -> tuple[Search, ...]:
        """The platform keys the join by its first place; a copy wavematch writes to
        another place names that one (docs/adr/0145)."""
        if not searches:
            return searches
        queue, region = info.data.get("queue"), info.data.get("region")
        places = [(s.queue or queue, s.region) for s in searches]
        repeated = _duplicates([f"{q}/{r}" for q, r in places])
        if repeated:
            raise ValueError(f"a place is named twice: {repeated}")
        if (queue, region) not in places:
            raise ValueError(f"must name the join's own place {queue}/{region} (its key) first")
        if searches[0].open_after_ms:
            raise ValueError("the first place opens at once: its open_after_ms must be 0")
        return searches

    @field_validator("players")
    @classmethod
    def _players_unique(cls, players: tuple[Player, ...]) -> tuple[Player, ...]:
        repeated = _duplicates([player.player_id for player in players])
        if repeated:
            raise ValueError(f"player ids must be unique within a ticket; repeated: {repeated}")
        return players

    #: Regions chosen from latency by the home's worker (docs/adr/0147).
    nearby: Nearby | None = None
    # Null rather than 0 by default: a join without it is written as it was before it.
    priority: Annotated[int, Field(ge=-MAX_PRIORITY, le=MAX_PRIORITY)] | None = None

    @field_validator("data")
    @classmethod
    def _data_within_budget(cls, data: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        players = info.data.get("players")
        if players is not None:
            size = seats_data_bytes(data, [player.data for player in players])
            if size > MAX_TICKET_DATA_BYTES:
                raise ValueError(
                    f"the ticket's data is {size} bytes as its seats carry it (its own entries "
                    f"once per player, plus each player's), over the "
                    f"{MAX_TICKET_DATA_BYTES}-byte limit"
                )
        return data


def seats_data_bytes(ticket: Mapping[str, str], players: Sequence[Mapping[str, str]]) -> int:
    """The UTF-8 bytes of names and values a ticket's data takes in its players' seats."""
    own = sum(len(k.encode()) + len(v.encode()) for k, v in ticket.items())
    each = sum(len(k.encode()) + len(v.encode()) for p in players for k, v in p.items())
    return own * len(players) + each


class TicketLeft(Record):
    ticket_id: Id
    queue: KeyPart
    region: KeyPart
    reason: LeaveReason
    left_at_ms: TimestampMs


class WaveTick(Record):
    queue: KeyPart
    region: KeyPart
    wave_id: Id
    sequence: Long
    tick_at_ms: TimestampMs
    config_fingerprint: Id
    interval_ms: IntervalMs


class ReadyCheckAnswered(Record):
    match_id: Id
    queue: KeyPart
    region: KeyPart
    player_id: Id
    accepted: Annotated[bool, Field(strict=True)]
    answered_at_ms: TimestampMs


class Connection(Record):
    """Where a started match's players connect (docs/adr/0171); the token is a secret."""

    address: Annotated[
        str,
        StringConstraints(
            strict=True, min_length=1, max_length=253, pattern=r"^[^\x00-\x20\x7f-\x9f]+$"
        ),
    ]
    port: Annotated[int, Field(strict=True, ge=1, le=65535)]
    # repr=False: a model printed in a log line or an error must not show it.
    token: Line | None = Field(default=None, repr=False)


class PlacementReported(Record):
    match_id: Id
    queue: KeyPart
    region: KeyPart
    outcome: PlacementOutcome
    detail: Line | None = None
    reported_at_ms: TimestampMs
    connection: Connection | None = None

    @field_validator("connection")
    @classmethod
    def _only_when_started(
        cls, value: Connection | None, info: ValidationInfo
    ) -> Connection | None:
        if value is not None and info.data.get("outcome") is not PlacementOutcome.STARTED:
            raise ValueError("only a STARTED placement carries connection details")
        return value


class BackfillPlayer(Record):
    player_id: Id
    rating: Rating


class BackfillTeam(Record):
    name: Name
    players: Annotated[tuple[BackfillPlayer, ...], Field(max_length=100)]
    open_slots: Annotated[int, Field(strict=True, ge=0, le=100)]


class BackfillRequested(Record):
    session_id: Id
    queue: KeyPart
    region: KeyPart
    teams: Annotated[tuple[BackfillTeam, ...], Field(min_length=1, max_length=64)]
    deadline_at_ms: TimestampMs | None = None
    requested_at_ms: TimestampMs


class BackfillCancelled(Record):
    session_id: Id
    queue: KeyPart
    region: KeyPart
    cancelled_at_ms: TimestampMs


# Claims (docs/adr/0110): written by wavematch itself to the queue topic.


class ClaimRequested(Record):
    player_id: Id
    ticket_id: Id
    queue: KeyPart
    region: KeyPart
    requested_at_ms: TimestampMs


class ClaimDecided(Record):
    player_id: Id
    ticket_id: Id
    queue: KeyPart
    region: KeyPart
    granted: Annotated[bool, Field(strict=True)]
    holder_ticket_id: Id | None = None
    holder_queue: KeyPart | None = None
    holder_region: KeyPart | None = None
    decided_at_ms: TimestampMs


class SearchClaim(Record):
    """The coordination of a ticket searching several places (docs/adr/0145)."""

    action: SearchClaimAction
    ticket_id: Id
    player_id: Id
    queue: KeyPart
    region: KeyPart
    match_id: Id | None = None
    holder_queue: KeyPart | None = None
    holder_region: KeyPart | None = None
    ended: SearchEnd | None = None
    at_ms: TimestampMs

    @field_validator("match_id")
    @classmethod
    def _match_named(cls, match_id: str | None, info: ValidationInfo) -> str | None:
        # A REQUESTED without a match is a leave's claim (docs/adr/0146).
        unmatched = (SearchClaimAction.ENDED, SearchClaimAction.REQUESTED)
        if match_id is None and info.data.get("action") not in unmatched:
            raise ValueError("required unless action is ENDED or REQUESTED (a leave)")
        return match_id


class SearchHeld(Record):
    """A place's match holds a ticket searching several places, or gave it back: a
    notice to each of the ticket's other places (docs/adr/0204)."""

    ticket_id: Id
    player_id: Id
    queue: KeyPart
    region: KeyPart
    match_id: Id
    holder_queue: KeyPart
    holder_region: KeyPart
    held: Annotated[bool, Field(strict=True)]
    at_ms: TimestampMs


class ClaimReleased(Record):
    player_id: Id
    ticket_id: Id
    queue: KeyPart
    region: KeyPart
    released_at_ms: TimestampMs


# --- output ----------------------------------------------------------------------------


#: A seat's role is empty when the queue declares no roles (a plain team queue).
OptionalName = Annotated[
    str, StringConstraints(strict=True, max_length=64, pattern=r"^[^\x00-\x1f\x7f-\x9f]*$")
]


class Seat(Record):
    ticket_id: Id
    player_id: Id
    role: OptionalName
    rating: Rating
    #: The ticket's data merged with the player's: up to both maps' entries.
    data: Annotated[dict[Name, DataValue], Field(max_length=2 * MAX_DATA_ENTRIES)] = {}


class Team(Record):
    name: Name
    players: Annotated[tuple[Seat, ...], Field(min_length=1, max_length=100)]


def _seated_once(teams: tuple[Team, ...]) -> tuple[Team, ...]:
    repeated = _duplicates([team.name for team in teams])
    if repeated:
        raise ValueError(f"team names must be unique within a match; repeated: {repeated}")
    repeated = _duplicates([seat.player_id for team in teams for seat in team.players])
    if repeated:
        raise ValueError(f"each player takes one seat per match; repeated: {repeated}")
    return teams


class MatchCreated(Record):
    match_id: Id
    queue: KeyPart
    region: KeyPart
    wave_id: Id
    teams: Annotated[tuple[Team, ...], Field(min_length=1, max_length=64)]
    map: Name
    server: Id
    channel: Id
    quality: Annotated[dict[Name, Figure], Field(max_length=64)]
    strategy: Name
    config_fingerprint: Id
    created_at_ms: TimestampMs

    @field_validator("teams")
    @classmethod
    def _seated_once(cls, teams: tuple[Team, ...]) -> tuple[Team, ...]:
        return _seated_once(teams)


class MatchProposed(Record):
    match_id: Id
    queue: KeyPart
    region: KeyPart
    wave_id: Id
    teams: Annotated[tuple[Team, ...], Field(min_length=1, max_length=64)]
    map: Name
    server: Id
    channel: Id
    quality: Annotated[dict[Name, Figure], Field(max_length=64)]
    strategy: Name
    config_fingerprint: Id
    proposed_at_ms: TimestampMs
    deadline_at_ms: TimestampMs

    @field_validator("teams")
    @classmethod
    def _seated_once(cls, teams: tuple[Team, ...]) -> tuple[Team, ...]:
        return _seated_once(teams)


class BackfillResult(Record):
    session_id: Id
    queue: KeyPart
    region: KeyPart
    wave_id: Id
    outcome: BackfillOutcome
    teams: Annotated[tuple[Team, ...], Field(max_length=64)]
    decided_at_ms: TimestampMs

    @field_validator("teams")
    @classmethod
    def _seated_once(cls, teams: tuple[Team, ...]) -> tuple[Team, ...]:
        return _seated_once(teams)


class TicketDequeued(Record):
    ticket_id: Id
    queue: KeyPart
    region: KeyPart
    reason: DequeueReason
    match_id: Id | None = None
    wave_id: Id | None = None
    waves_waited: Count
    detail: Line | None = None
    at_ms: TimestampMs
    cause: DequeueCause | None = None

    @field_validator("match_id")
    @classmethod
    def _match_id_iff_matched(cls, match_id: str | None, info: ValidationInfo) -> str | None:
        reason = info.data.get("reason")
        if reason is None:  # reason itself failed; that error is the one to report
            return match_id
        if reason is DequeueReason.MATCHED and match_id is None:
            raise ValueError("is required when reason is MATCHED")
        if reason is not DequeueReason.MATCHED and match_id is not None:
            raise ValueError(f"must be null when reason is {reason.value}")
        return match_id


class TicketStatus(Record):
    ticket_id: Id
    queue: KeyPart
    region: KeyPart
    state: TicketState
    position: Position
    waves_waited: Count
    estimated_wait_ms: Long | None = None
    next_wave_at_ms: TimestampMs | None = None
    wave_id: Id | None = None
    at_ms: TimestampMs
    stage: TicketStage | None = None
    match_id: Id | None = None
    deadline_at_ms: TimestampMs | None = None
    detail: Line | None = None
    connection: Connection | None = None


class WaveClosed(Record):
    queue: KeyPart
    region: KeyPart
    wave_id: Id
    wave_number: Long
    players_in_snapshot: Count
    tickets_in_snapshot: Count
    matches: Count
    matched_players: Count
    unmatched: Count
    expired: Count
    avg_rating_diff: NonNegativeFigure | None = None
    min_rating_diff: NonNegativeFigure | None = None
    max_rating_diff: NonNegativeFigure | None = None
    strategy: Name
    config_fingerprint: Id
    closed_at_ms: TimestampMs
    duration_ms: NonNegativeFigure

    @field_validator("tickets_in_snapshot", "matched_players")
    @classmethod
    def _within_players(cls, value: int, info: ValidationInfo) -> int:
        return _at_most(value, info, "players_in_snapshot")

    @field_validator("unmatched")
    @classmethod
    def _within_tickets(cls, value: int, info: ValidationInfo) -> int:
        return _at_most(value, info, "tickets_in_snapshot")

    @field_validator("max_rating_diff")
    @classmethod
    def _max_not_below_min(cls, value: float | None, info: ValidationInfo) -> float | None:
        low = info.data.get("min_rating_diff")
        if value is not None and low is not None and value < low:
            raise ValueError(f"must be at least min_rating_diff ({low})")
        return value


def _at_most(value: int, info: ValidationInfo, bound_field: str) -> int:
    bound = info.data.get(bound_field)
    if bound is not None and value > bound:
        raise ValueError(f"must be at most {bound_field} ({bound})")
    return value


class DeadLetter(Record):
    original: Annotated[bytes, Field(strict=True, max_length=MAX_DEAD_LETTER_ORIGINAL_BYTES)]
    original_size: Count
    original_key: (
        Annotated[bytes, Field(strict=True, max_length=MAX_DEAD_LETTER_KEY_BYTES)] | None
    ) = None
    topic: Annotated[str, StringConstraints(strict=True, min_length=1, max_length=249)]
    partition: Count
    offset: Long
    error_code: Annotated[str, StringConstraints(strict=True, pattern=r"^[a-z][a-z0-9_]{0,63}$")]
    reason: Line
    field: Annotated[str, StringConstraints(strict=True, min_length=1, max_length=512)] | None = (
        None
    )
    failed_at_ms: TimestampMs

    @field_validator("original_size")
    @classmethod
    def _size_covers_original(cls, size: int, info: ValidationInfo) -> int:
        original = info.data.get("original")
        if original is not None and size < len(original):
            raise ValueError(f"must be at least the length of original ({len(original)})")
        return size


class ConfigPublished(Record):
    config_fingerprint: Id
    settings_json: Annotated[str, StringConstraints(strict=True, min_length=2, max_length=60_000)]
    release: Annotated[str, StringConstraints(strict=True, min_length=1, max_length=64)]
    published_at_ms: TimestampMs


#: Every top-level event, by its Avro record name (which is also the class name).
EVENTS: Final[dict[str, type[Record]]] = {
    model.__name__: model
    for model in (
        TicketJoined,
        TicketLeft,
        WaveTick,
        MatchCreated,
        TicketDequeued,
        TicketStatus,
        WaveClosed,
        DeadLetter,
        ReadyCheckAnswered,
        PlacementReported,
        ClaimRequested,
        ClaimDecided,
        ClaimReleased,
        MatchProposed,
        BackfillRequested,
        BackfillCancelled,
        BackfillResult,
        ConfigPublished,
        SearchClaim,
        SearchHeld,
    )
}
#: The events platforms, the timer and the claims (docs/adr/0110) publish to wavematch.queue.v1.
QUEUE_EVENTS: Final = (
    TicketJoined,
    TicketLeft,
    WaveTick,
    ReadyCheckAnswered,
    PlacementReported,
    ClaimRequested,
    ClaimDecided,
    ClaimReleased,
    BackfillRequested,
    BackfillCancelled,
    SearchClaim,
    SearchHeld,
)
QueueEvent = (
    TicketJoined
    | TicketLeft
    | WaveTick
    | ReadyCheckAnswered
    | PlacementReported
    | ClaimRequested
    | ClaimDecided
    | ClaimReleased
    | BackfillRequested
    | BackfillCancelled
    | SearchClaim
    | SearchHeld
)
