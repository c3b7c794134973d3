"""Valid sample events and hypothesis strategies for every event of the contract."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from schemas import models as m

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z


def ticket_joined(**changes: Any) -> m.TicketJoined:
    body: dict[str, Any] = {
        "ticket_id": "t-2f9c1b7e",
        "queue": "1v1",
        "region": "eu",
        "party_id": None,
        "players": [
            {
                "player_id": "p-4411",
                "ratings": {"zerg": 1850, "protoss": 1720},
                "roles": ["zerg"],
                "vetoed_maps": ["Frost"],
                "latency_ms": {"eu": 18, "us-east": 95},
            }
        ],
        "joined_at_ms": T0,
    }
    return m.TicketJoined.model_validate({**body, **changes})


_CLAIM = {"player_id": "p-4411", "ticket_id": "t-2f9c1b7e", "queue": "1v1", "region": "eu"}
_LIFECYCLE_SAMPLES: dict[type[m.Record], dict[str, Any]] = {
    m.ReadyCheckAnswered: {
        "match_id": "0f8e7a52-3c1d-5b7e-9a41-2d6c8e0b1f37",
        "queue": "1v1",
        "region": "eu",
        "player_id": "p-4411",
        "accepted": False,
        "answered_at_ms": T0 + 7_000,
    },
    m.PlacementReported: {
        "match_id": "0f8e7a52-3c1d-5b7e-9a41-2d6c8e0b1f37",
        "queue": "1v1",
        "region": "eu",
        "outcome": "FAILED",
        "detail": "no capacity",
        "reported_at_ms": T0 + 12_000,
    },
    m.ClaimRequested: _CLAIM | {"requested_at_ms": T0},
    m.ClaimDecided: _CLAIM
    | {
        "granted": False,
        "holder_ticket_id": "t-1",
        "holder_queue": "3v3",
        "holder_region": "na",
        "decided_at_ms": T0,
    },
    m.ClaimReleased: _CLAIM | {"released_at_ms": T0 + 5_000},
    m.SearchClaim: {
        "action": "REFUSED",
        "ticket_id": "t-2f9c1b7e",
        "player_id": "p-4411",
        "queue": "1v1",
        "region": "na",
        "match_id": "0f8e7a52-3c1d-5b7e-9a41-2d6c8e0b1f37",
        "holder_queue": "2v2",
        "holder_region": "eu",
        "at_ms": T0 + 6_000,
    },
    m.SearchHeld: {
        "ticket_id": "t-2f9c1b7e",
        "player_id": "p-4411",
        "queue": "1v1",
        "region": "na",
        "match_id": "0f8e7a52-3c1d-5b7e-9a41-2d6c8e0b1f37",
        "holder_queue": "2v2",
        "holder_region": "eu",
        "held": True,
        "at_ms": T0 + 6_000,
    },
    m.BackfillRequested: {
        "session_id": "session-7f2c",
        "queue": "5v5",
        "region": "eu",
        "teams": [
            {"name": "blue", "players": [{"player_id": "p-b1", "rating": 1490}], "open_slots": 2}
        ],
        "deadline_at_ms": T0 + 60_000,
        "requested_at_ms": T0,
    },
    m.BackfillCancelled: {
        "session_id": "session-7f2c",
        "queue": "5v5",
        "region": "eu",
        "cancelled_at_ms": T0,
    },
    m.BackfillResult: {
        "session_id": "session-7f2c",
        "queue": "5v5",
        "region": "eu",
        "wave_id": "1767225610000",
        "outcome": "FILLED",
        "teams": [
            {
                "name": "blue",
                "players": [{"ticket_id": "t-1", "player_id": "p-1", "role": "", "rating": 1500}],
            }
        ],
        "decided_at_ms": T0 + 10_000,
    },
}


def sample(model: type[m.Record]) -> m.Record:
    """Return one typical valid event of ``model``."""
    bodies: dict[type[m.Record], dict[str, Any]] = {
        m.TicketLeft: {
            "ticket_id": "t-2f9c1b7e",
            "queue": "1v1",
            "region": "eu",
            "reason": "DISCONNECTED",
            "left_at_ms": T0 + 30_000,
        },
        m.WaveTick: {
            "queue": "1v1",
            "region": "eu",
            "wave_id": "1v1/eu/000000000042",
            "sequence": 42,
            "tick_at_ms": T0 + 5_000,
            "config_fingerprint": "cfg-9a1f03c2",
            "interval_ms": 5_000,
        },
        m.MatchCreated: {
            "match_id": "0f8e7a52-3c1d-5b7e-9a41-2d6c8e0b1f37",
            "queue": "1v1",
            "region": "eu",
            "wave_id": "1v1/eu/000000000042",
            "teams": [
                {
                    "name": "red",
                    "players": [
                        {"ticket_id": "t-1", "player_id": "p-1", "role": "zerg", "rating": 1850}
                    ],
                },
                {
                    "name": "blue",
                    "players": [
                        {"ticket_id": "t-2", "player_id": "p-2", "role": "terran", "rating": 1815}
                    ],
                },
            ],
            "map": "Frost",
            "server": "fra-1",
            "channel": "match-0f8e7a52",
            "quality": {"rating_diff": 35.0},
            "strategy": "optimal",
            "config_fingerprint": "cfg-9a1f03c2",
            "created_at_ms": T0 + 5_000,
        },
        m.TicketDequeued: {
            "ticket_id": "t-1",
            "queue": "1v1",
            "region": "eu",
            "reason": "MATCHED",
            "match_id": "0f8e7a52-3c1d-5b7e-9a41-2d6c8e0b1f37",
            "wave_id": "1v1/eu/000000000042",
            "waves_waited": 2,
            "at_ms": T0 + 5_000,
        },
        m.TicketStatus: {
            "ticket_id": "t-3",
            "queue": "1v1",
            "region": "eu",
            "state": "SEARCHING",
            "position": 4,
            "waves_waited": 1,
            "estimated_wait_ms": 15_000,
            "next_wave_at_ms": T0 + 10_000,
            "wave_id": "1v1/eu/000000000042",
            "at_ms": T0 + 5_000,
        },
        m.WaveClosed: {
            "queue": "1v1",
            "region": "eu",
            "wave_id": "1v1/eu/000000000042",
            "wave_number": 42,
            "players_in_snapshot": 37,
            "tickets_in_snapshot": 31,
            "matches": 14,
            "matched_players": 28,
            "unmatched": 3,
            "expired": 1,
            "avg_rating_diff": 42.5,
            "min_rating_diff": 3.0,
            "max_rating_diff": 120.0,
            "strategy": "optimal",
            "config_fingerprint": "cfg-9a1f03c2",
            "closed_at_ms": T0 + 5_000,
            "duration_ms": 3.75,
        },
        m.ConfigPublished: {
            "config_fingerprint": "78ccd4449540e28b",
            "settings_json": '{"partitions": 4}',
            "release": "0.1.0",
            "published_at_ms": T0,
        },
        m.DeadLetter: {
            "original": b'{"type": "TicketJoined"}',
            "original_size": 24,
            "original_key": b"1v1/eu",
            "topic": "wavematch.queue.v1",
            "partition": 3,
            "offset": 18231,
            "error_code": "missing_field",
            "reason": "TicketJoined ticket_id: Field required",
            "field": "ticket_id",
            "failed_at_ms": T0 + 5_123,
        },
    }
    bodies |= _LIFECYCLE_SAMPLES
    if model is m.MatchProposed:
        created = bodies[m.MatchCreated]
        body = {k: v for k, v in created.items() if k != "created_at_ms"}
        return m.MatchProposed.model_validate(
            body | {"proposed_at_ms": T0 + 5_000, "deadline_at_ms": T0 + 15_000}
        )
    if model is m.TicketJoined:
        return ticket_joined()
    return model.model_validate(bodies[model])


# --- hypothesis ------------------------------------------------------------------------

_printable = st.characters(blacklist_categories=("Cc", "Cs"))
ids = st.text(_printable, min_size=1, max_size=128)
names = st.text(_printable, min_size=1, max_size=64)
key_parts = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,20}", fullmatch=True)
timestamps = st.integers(m.MIN_TIMESTAMP_MS, m.MAX_TIMESTAMP_MS - 1)
counts = st.integers(0, m.INT32_MAX)
longs = st.integers(0, m.INT64_MAX)
figures = st.floats(allow_nan=False, allow_infinity=False)
ratings = st.integers(0, m.MAX_RATING)

players = st.builds(
    m.Player,
    player_id=ids,
    ratings=st.dictionaries(names, ratings, min_size=1, max_size=4),
    roles=st.lists(names, max_size=3).map(tuple),
    vetoed_maps=st.lists(names, max_size=4).map(tuple),
    latency_ms=st.dictionaries(key_parts, st.integers(0, m.MAX_LATENCY_MS), max_size=3),
    can_host=st.booleans(),
    attributes=st.dictionaries(names, names, max_size=3),
    numbers=st.dictionaries(names, st.floats(allow_nan=False, allow_infinity=False), max_size=3),
)


@st.composite
def _ticket_joined(draw: st.DrawFn) -> m.TicketJoined:
    members = draw(
        st.lists(
            players,
            min_size=1,
            max_size=m.MAX_PLAYERS_PER_TICKET,
            unique_by=lambda player: player.player_id,
        )
    )
    return m.TicketJoined(
        ticket_id=draw(ids),
        queue=draw(key_parts),
        region=draw(key_parts),
        party_id=draw(st.none() | ids),
        players=tuple(members),
        joined_at_ms=draw(timestamps),
    )


@st.composite
def _match_created(draw: st.DrawFn) -> m.MatchCreated:
    seats = st.builds(m.Seat, ticket_id=ids, player_id=ids, role=names, rating=ratings)
    all_seats = draw(st.lists(seats, min_size=1, max_size=8, unique_by=lambda s: s.player_id))
    team_names = draw(
        st.lists(names, min_size=len(all_seats), max_size=len(all_seats), unique=True)
    )
    teams = tuple(m.Team(name=n, players=(s,)) for n, s in zip(team_names, all_seats, strict=True))
    return m.MatchCreated(
        match_id=draw(ids),
        queue=draw(key_parts),
        region=draw(key_parts),
        wave_id=draw(ids),
        teams=teams,
        map=draw(names),
        server=draw(ids),
        channel=draw(ids),
        quality=draw(st.dictionaries(names, figures, max_size=3)),
        strategy=draw(names),
        config_fingerprint=draw(ids),
        created_at_ms=draw(timestamps),
    )


@st.composite
def _ticket_dequeued(draw: st.DrawFn) -> m.TicketDequeued:
    reason = draw(st.sampled_from(m.DequeueReason))
    return m.TicketDequeued(
        ticket_id=draw(ids),
        queue=draw(key_parts),
        region=draw(key_parts),
        reason=reason,
        match_id=draw(ids) if reason is m.DequeueReason.MATCHED else None,
        wave_id=draw(st.none() | ids),
        waves_waited=draw(counts),
        detail=draw(st.none() | st.text(_printable, min_size=1, max_size=200)),
        at_ms=draw(timestamps),
    )


@st.composite
def _wave_closed(draw: st.DrawFn) -> m.WaveClosed:
    players_in = draw(st.integers(0, 10_000))
    tickets = draw(st.integers(0, players_in))
    diffs = sorted(draw(st.lists(st.floats(0, 1e6), min_size=3, max_size=3)))
    have_diffs = draw(st.booleans())
    return m.WaveClosed(
        queue=draw(key_parts),
        region=draw(key_parts),
        wave_id=draw(ids),
        wave_number=draw(longs),
        players_in_snapshot=players_in,
        tickets_in_snapshot=tickets,
        matches=draw(st.integers(0, players_in)),
        matched_players=draw(st.integers(0, players_in)),
        unmatched=draw(st.integers(0, tickets)),
        expired=draw(st.integers(0, tickets)),
        avg_rating_diff=diffs[1] if have_diffs else None,
        min_rating_diff=diffs[0] if have_diffs else None,
        max_rating_diff=diffs[2] if have_diffs else None,
        strategy=draw(names),
        config_fingerprint=draw(ids),
        closed_at_ms=draw(timestamps),
        duration_ms=draw(st.floats(0, 1e7)),
    )


@st.composite
def _dead_letter(draw: st.DrawFn) -> m.DeadLetter:
    original = draw(st.binary(max_size=300))
    return m.DeadLetter(
        original=original,
        original_size=len(original) + draw(st.integers(0, 10)),
        original_key=draw(st.none() | st.binary(max_size=40)),
        topic=draw(key_parts),
        partition=draw(counts),
        offset=draw(longs),
        error_code=draw(st.sampled_from(["invalid_field", "truncated", "garbage"])),
        reason=draw(st.text(_printable, min_size=1, max_size=100)),
        field=draw(st.none() | names),
        failed_at_ms=draw(timestamps),
    )


@st.composite
def _match_proposed(draw: st.DrawFn) -> m.MatchProposed:
    created = draw(_match_created())
    body = created.model_dump()
    body["proposed_at_ms"] = body.pop("created_at_ms")
    return m.MatchProposed.model_validate(body | {"deadline_at_ms": draw(timestamps)})


_claim = {"player_id": ids, "ticket_id": ids, "queue": key_parts, "region": key_parts}

_backfill_team = st.builds(
    m.BackfillTeam,
    name=names,
    players=st.lists(st.builds(m.BackfillPlayer, player_id=ids, rating=ratings), max_size=5).map(
        tuple
    ),
    open_slots=st.integers(0, 100),
)


@st.composite
def _backfill_result(draw: st.DrawFn) -> m.BackfillResult:
    created = draw(_match_created())
    outcome = draw(st.sampled_from(m.BackfillOutcome))
    return m.BackfillResult(
        session_id=draw(ids),
        queue=draw(key_parts),
        region=draw(key_parts),
        wave_id=draw(ids),
        outcome=outcome,
        teams=created.teams if outcome is m.BackfillOutcome.FILLED else (),
        decided_at_ms=draw(timestamps),
    )


STRATEGIES: dict[type[m.Record], st.SearchStrategy[Any]] = {
    m.BackfillRequested: st.builds(
        m.BackfillRequested,
        session_id=ids,
        queue=key_parts,
        region=key_parts,
        teams=st.lists(_backfill_team, min_size=1, max_size=3).map(tuple),
        deadline_at_ms=st.none() | timestamps,
        requested_at_ms=timestamps,
    ),
    m.BackfillCancelled: st.builds(
        m.BackfillCancelled,
        session_id=ids,
        queue=key_parts,
        region=key_parts,
        cancelled_at_ms=timestamps,
    ),
    m.BackfillResult: _backfill_result(),
    m.ReadyCheckAnswered: st.builds(
        m.ReadyCheckAnswered,
        match_id=ids,
        queue=key_parts,
        region=key_parts,
        player_id=ids,
        accepted=st.booleans(),
        answered_at_ms=timestamps,
    ),
    m.PlacementReported: st.builds(
        m.PlacementReported,
        match_id=ids,
        queue=key_parts,
        region=key_parts,
        outcome=st.sampled_from(m.PlacementOutcome),
        detail=st.none() | st.text(_printable, min_size=1, max_size=200),
        reported_at_ms=timestamps,
    ),
    m.ClaimRequested: st.builds(m.ClaimRequested, **_claim, requested_at_ms=timestamps),
    m.ClaimReleased: st.builds(m.ClaimReleased, **_claim, released_at_ms=timestamps),
    m.ClaimDecided: st.builds(
        m.ClaimDecided,
        **_claim,
        granted=st.booleans(),
        holder_ticket_id=st.none() | ids,
        holder_queue=st.none() | key_parts,
        holder_region=st.none() | key_parts,
        decided_at_ms=timestamps,
    ),
    m.SearchClaim: st.builds(
        m.SearchClaim,
        action=st.sampled_from(m.SearchClaimAction),
        ticket_id=ids,
        player_id=ids,
        queue=key_parts,
        region=key_parts,
        match_id=ids,
        holder_queue=st.none() | key_parts,
        holder_region=st.none() | key_parts,
        ended=st.none() | st.sampled_from(m.SearchEnd),
        at_ms=timestamps,
    ),
    m.SearchHeld: st.builds(
        m.SearchHeld,
        ticket_id=ids,
        player_id=ids,
        queue=key_parts,
        region=key_parts,
        match_id=ids,
        holder_queue=key_parts,
        holder_region=key_parts,
        held=st.booleans(),
        at_ms=timestamps,
    ),
    m.MatchProposed: _match_proposed(),
    m.TicketJoined: _ticket_joined(),
    m.TicketLeft: st.builds(
        m.TicketLeft,
        ticket_id=ids,
        queue=key_parts,
        region=key_parts,
        reason=st.sampled_from(m.LeaveReason),
        left_at_ms=timestamps,
    ),
    m.WaveTick: st.builds(
        m.WaveTick,
        queue=key_parts,
        region=key_parts,
        wave_id=ids,
        sequence=longs,
        tick_at_ms=timestamps,
        config_fingerprint=ids,
        interval_ms=st.integers(1, m.MAX_INTERVAL_MS),
    ),
    m.MatchCreated: _match_created(),
    m.TicketDequeued: _ticket_dequeued(),
    m.TicketStatus: st.builds(
        m.TicketStatus,
        ticket_id=ids,
        queue=key_parts,
        region=key_parts,
        state=st.just(m.TicketState.SEARCHING),
        position=st.integers(1, m.INT32_MAX),
        waves_waited=counts,
        estimated_wait_ms=st.none() | longs,
        next_wave_at_ms=st.none() | timestamps,
        wave_id=st.none() | ids,
        at_ms=timestamps,
    ),
    m.WaveClosed: _wave_closed(),
    m.DeadLetter: _dead_letter(),
    m.ConfigPublished: st.builds(
        m.ConfigPublished,
        config_fingerprint=ids,
        settings_json=st.text(min_size=2, max_size=300),
        release=st.text(min_size=1, max_size=64),
        published_at_ms=timestamps,
    ),
}
any_event = st.one_of(*STRATEGIES.values())
