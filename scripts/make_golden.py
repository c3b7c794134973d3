"""Write golden payloads for schemas/golden/ - only the missing ones, never overwrite.

Golden files are the frozen wire format: tests/schemas/test_golden.py decodes each and
requires that re-encoding gives the same bytes. Regenerating them would hide exactly
the change they exist to catch, so this script refuses to touch an existing file.

    .venv/bin/python scripts/make_golden.py
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schemas import models as m  # noqa: E402
from schemas.codec import encode, encode_json  # noqa: E402

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z
MATCH = "abdc3540-f6cd-5abc-9510-02adf8125e26"
#: Wave ids are the decimal tick instant (docs/adr/0007).
WAVE = "1767225605000"
#: MatchProposed/duel, ReadyCheckAnswered/* and PlacementReported/failed and /started are
#: frozen at the ids they were written with, those of the example events in
#: tests/schemas/events.py: a hand-picked match id and a queue/region/number wave id. A
#: golden never changes, so these cases keep them.
LIFECYCLE_MATCH = "0f8e7a52-3c1d-5b7e-9a41-2d6c8e0b1f37"
LIFECYCLE_WAVE = "1v1/eu/000000000042"


def _seat(ticket: str, player: str, role: str, rating: int) -> dict[str, Any]:
    return {"ticket_id": ticket, "player_id": player, "role": role, "rating": rating}


#: The player of TicketJoined/attributes; TicketJoined/blocked is the same player with a
#: block list.
_ATTRIBUTED_PLAYER: dict[str, Any] = {
    "player_id": "p-4411",
    "ratings": {"zerg": 1850, "protoss": 1720},
    "roles": ["zerg"],
    "vetoed_maps": ["Frost"],
    "latency_ms": {"eu": 18, "us-east": 95},
    "attributes": {"language": "de", "platform": "pc"},
}

CASES: dict[str, tuple[type[m.Record], dict[str, Any]]] = {
    "TicketJoined/solo": (
        m.TicketJoined,
        {
            "ticket_id": "t-2f9c1b7e",
            "queue": "1v1",
            "region": "eu",
            "players": [
                {
                    "player_id": "p-4411",
                    "ratings": {"bw": 1850, "sc2": 1720},
                    "roles": [],
                    "vetoed_maps": ["Frost"],
                    "latency_ms": {"eu": 18, "us-east": 95},
                }
            ],
            "joined_at_ms": T0,
        },
    ),
    "TicketJoined/numbers": (
        m.TicketJoined,
        {
            "ticket_id": "t-numbers",
            "queue": "dungeon",
            "region": "eu",
            "players": [
                {
                    "player_id": "p-4412",
                    "ratings": {"tank": 1500},
                    "attributes": {"class": "tank"},
                    "numbers": {"level": 42, "account_age_days": 380.5},
                }
            ],
            "joined_at_ms": T0,
        },
    ),
    "TicketJoined/attributes": (
        m.TicketJoined,
        {
            "ticket_id": "t-attributes",
            "queue": "1v1",
            "region": "eu",
            "players": [_ATTRIBUTED_PLAYER],
            "joined_at_ms": T0,
        },
    ),
    "TicketJoined/blocked": (
        m.TicketJoined,
        {
            "ticket_id": "t-blocked",
            "queue": "1v1",
            "region": "eu",
            "players": [{**_ATTRIBUTED_PLAYER, "blocked_players": ["p-9001", "p-9002"]}],
            "joined_at_ms": T0,
        },
    ),
    "TicketJoined/deviation": (
        m.TicketJoined,
        {
            "ticket_id": "t-deviation",
            "queue": "1v1",
            "region": "eu",
            "players": [
                {
                    "player_id": "p-4411",
                    "ratings": {"bw": 1850, "sc2": 1720},
                    "vetoed_maps": ["Frost"],
                    "latency_ms": {"eu": 18, "us-east": 95},
                    "deviation": 120,
                }
            ],
            "joined_at_ms": T0,
        },
    ),
    "TicketJoined/party": (
        m.TicketJoined,
        {
            "ticket_id": "t-party-81",
            "queue": "5v5-ranked",
            "region": "eu-west",
            "party_id": "party-81",
            "players": [
                {
                    "player_id": "Łukasz-7",
                    "ratings": {"tank": 2210, "healer": 1990},
                    "roles": ["tank", "healer"],
                    "can_host": True,
                },
                {"player_id": "p-ñandú", "ratings": {"damage": 0}},
                {
                    "player_id": "p-10000",
                    "ratings": {"damage": 10000},
                    "vetoed_maps": ["Nightshade", "Île de la Cité"],
                    "latency_ms": {"eu-west": 0},
                },
            ],
            "joined_at_ms": T0 + 1,
        },
    ),
    # Opaque data for the game server (docs/adr/0173): the ticket's and the player's own,
    # merged on the player's seat (the player's entry wins on a shared name).
    "TicketJoined/data": (
        m.TicketJoined,
        {
            "ticket_id": "t-data-3",
            "queue": "1v1",
            "region": "eu",
            "players": [
                {
                    "player_id": "p-3301",
                    "ratings": {"bw": 1850},
                    "latency_ms": {"eu": 18},
                    "data": {"cosmetics": "hat-17,cape-2", "skin": "crimson"},
                }
            ],
            "joined_at_ms": T0,
            "data": {"build": "1.4.2", "skin": "default", "session": '{"lobby":"L-9"}'},
        },
    ),
    "TicketLeft/requested": (
        m.TicketLeft,
        {
            "ticket_id": "t-2f9c1b7e",
            "queue": "1v1",
            "region": "eu",
            "reason": "REQUESTED",
            "left_at_ms": T0 + 30_000,
        },
    ),
    "WaveTick/tick-42": (
        m.WaveTick,
        {
            "queue": "1v1",
            "region": "eu",
            "wave_id": WAVE,
            "sequence": T0 + 5_000,
            "tick_at_ms": T0 + 5_000,
            "config_fingerprint": "cfg-9a1f03c2",
            "interval_ms": 5_000,
        },
    ),
    "ReadyCheckAnswered/accepted": (
        m.ReadyCheckAnswered,
        {
            "match_id": LIFECYCLE_MATCH,
            "queue": "1v1",
            "region": "eu",
            "player_id": "p-1",
            "accepted": True,
            "answered_at_ms": T0 + 7_000,
        },
    ),
    "ReadyCheckAnswered/declined": (
        m.ReadyCheckAnswered,
        {
            "match_id": LIFECYCLE_MATCH,
            "queue": "1v1",
            "region": "eu",
            "player_id": "p-2",
            "accepted": False,
            "answered_at_ms": T0 + 8_000,
        },
    ),
    "PlacementReported/failed": (
        m.PlacementReported,
        {
            "match_id": LIFECYCLE_MATCH,
            "queue": "1v1",
            "region": "eu",
            "outcome": "FAILED",
            "detail": "no capacity in eu-west-1",
            "reported_at_ms": T0 + 12_000,
        },
    ),
    "PlacementReported/started": (
        m.PlacementReported,
        {
            "match_id": LIFECYCLE_MATCH,
            "queue": "1v1",
            "region": "eu",
            "outcome": "STARTED",
            "reported_at_ms": T0 + 12_000,
        },
    ),
    "PlacementReported/started-connection": (
        m.PlacementReported,
        {
            "match_id": MATCH,
            "queue": "1v1",
            "region": "eu",
            "outcome": "STARTED",
            "reported_at_ms": T0 + 12_000,
            "connection": {"address": "203.0.113.7", "port": 7777, "token": "k7Yq2m9X"},
        },
    ),
    "ClaimRequested/join": (
        m.ClaimRequested,
        {
            "player_id": "p-4411",
            "ticket_id": "t-2f9c1b7e",
            "queue": "1v1",
            "region": "eu",
            "requested_at_ms": T0,
        },
    ),
    "ClaimDecided/granted": (
        m.ClaimDecided,
        {
            "player_id": "p-4411",
            "ticket_id": "t-2f9c1b7e",
            "queue": "1v1",
            "region": "eu",
            "granted": True,
            "decided_at_ms": T0,
        },
    ),
    "ClaimDecided/refused": (
        m.ClaimDecided,
        {
            "player_id": "p-4411",
            "ticket_id": "t-77c0",
            "queue": "1v1",
            "region": "na",
            "granted": False,
            "holder_ticket_id": "t-2f9c1b7e",
            "holder_queue": "1v1",
            "holder_region": "eu",
            "decided_at_ms": T0 + 2_000,
        },
    ),
    "TicketJoined/searches": (
        m.TicketJoined,
        {
            "ticket_id": "t-5d21aa90",
            "queue": "1v1",
            "region": "eu",
            "players": [{"player_id": "p-5120", "ratings": {"sc2": 1790}}],
            "joined_at_ms": T0,
            "searches": [
                {"region": "eu", "queue": None, "open_after_ms": 0},
                {"region": "na", "queue": None, "open_after_ms": 30_000},
                {"region": "eu", "queue": "2v2", "open_after_ms": 0},
            ],
        },
    ),
    "TicketJoined/nearby": (
        m.TicketJoined,
        {
            "ticket_id": "t-7e03c6d1",
            "queue": "1v1",
            "region": "na",
            "players": [
                {
                    "player_id": "p-6230",
                    "ratings": {"sc2": 1640},
                    "latency_ms": {"na": 25, "eu": 85},
                }
            ],
            "joined_at_ms": T0,
            "nearby": {"open_after_ms": 60_000, "max_latency_ms": 100},
        },
    ),
    "TicketJoined/priority": (
        m.TicketJoined,
        {
            "ticket_id": "t-8a03c6d1",
            "queue": "5v5",
            "region": "eu",
            "players": [{"player_id": "p-7302", "ratings": {"mmr": 1640}}],
            "joined_at_ms": T0,
            "priority": 10,
        },
    ),
    "TicketJoined/peers": (
        m.TicketJoined,
        {
            "ticket_id": "t-9b14d7e2",
            "queue": "3v3",
            "region": "eu",
            "players": [
                {
                    "player_id": "p-8101",
                    "ratings": {"mmr": 1710},
                    "latency_ms": {"eu": 24},
                    "can_host": True,
                    "peer_latency_ms": {"p-8102": 35, "p-9001": 120},
                }
            ],
            "joined_at_ms": T0,
        },
    ),
    "SearchClaim/requested": (
        m.SearchClaim,
        {
            "action": "REQUESTED",
            "ticket_id": "t-5d21aa90",
            "player_id": "p-5120",
            "queue": "1v1",
            "region": "na",
            "match_id": MATCH,
            "at_ms": T0 + 35_000,
        },
    ),
    "SearchClaim/ended": (
        m.SearchClaim,
        {
            "action": "ENDED",
            "ticket_id": "t-5d21aa90",
            "player_id": "p-5120",
            "queue": "2v2",
            "region": "eu",
            "match_id": MATCH,
            "holder_queue": "1v1",
            "holder_region": "na",
            "ended": "MATCHED_ELSEWHERE",
            "at_ms": T0 + 35_000,
        },
    ),
    "SearchHeld/held": (
        m.SearchHeld,
        {
            "ticket_id": "t-5d21aa90",
            "player_id": "p-5120",
            "queue": "2v2",
            "region": "eu",
            "match_id": MATCH,
            "holder_queue": "1v1",
            "holder_region": "na",
            "held": True,
            "at_ms": T0 + 35_000,
        },
    ),
    "ClaimReleased/matched": (
        m.ClaimReleased,
        {
            "player_id": "p-4411",
            "ticket_id": "t-2f9c1b7e",
            "queue": "1v1",
            "region": "eu",
            "released_at_ms": T0 + 5_000,
        },
    ),
    "MatchProposed/duel": (
        m.MatchProposed,
        {
            "match_id": LIFECYCLE_MATCH,
            "queue": "1v1",
            "region": "eu",
            "wave_id": LIFECYCLE_WAVE,
            "teams": [
                {"name": "red", "players": [_seat("t-1", "p-1", "zerg", 1850)]},
                {"name": "blue", "players": [_seat("t-2", "p-2", "terran", 1815)]},
            ],
            "map": "Frost",
            "server": "fra-1",
            "channel": "match-0f8e7a52",
            "quality": {"rating_diff": 35.0},
            "strategy": "optimal",
            "config_fingerprint": "cfg-9a1f03c2",
            "proposed_at_ms": T0 + 5_000,
            "deadline_at_ms": T0 + 15_000,
        },
    ),
    "BackfillRequested/two-open-slots": (
        m.BackfillRequested,
        {
            "session_id": "session-7f2c",
            "queue": "5v5",
            "region": "eu",
            "teams": [
                {
                    "name": "red",
                    "players": [{"player_id": f"p-r{i}", "rating": 1500 + i} for i in range(5)],
                    "open_slots": 0,
                },
                {
                    "name": "blue",
                    "players": [{"player_id": f"p-b{i}", "rating": 1490 + i} for i in range(3)],
                    "open_slots": 2,
                },
            ],
            "deadline_at_ms": T0 + 60_000,
            "requested_at_ms": T0,
        },
    ),
    "BackfillCancelled/cancelled": (
        m.BackfillCancelled,
        {
            "session_id": "session-7f2c",
            "queue": "5v5",
            "region": "eu",
            "cancelled_at_ms": T0 + 30_000,
        },
    ),
    "BackfillResult/filled": (
        m.BackfillResult,
        {
            "session_id": "session-7f2c",
            "queue": "5v5",
            "region": "eu",
            "wave_id": "1767225610000",
            "outcome": "FILLED",
            "teams": [
                {
                    "name": "blue",
                    "players": [
                        _seat("t-party-81", "p-ann", "", 1520),
                        _seat("t-party-81", "p-ben", "", 1480),
                    ],
                }
            ],
            "decided_at_ms": T0 + 10_000,
        },
    ),
    "BackfillResult/expired": (
        m.BackfillResult,
        {
            "session_id": "session-7f2c",
            "queue": "5v5",
            "region": "eu",
            "wave_id": "1767225660000",
            "outcome": "EXPIRED",
            "teams": [],
            "decided_at_ms": T0 + 60_000,
        },
    ),
    "MatchCreated/duel": (
        m.MatchCreated,
        {
            "match_id": MATCH,
            "queue": "1v1",
            "region": "eu",
            "wave_id": WAVE,
            "teams": [
                {"name": "bw", "players": [_seat("t-2f9c1b7e", "p-4411", "bw", 1850)]},
                {"name": "sc2", "players": [_seat("t-5d1e", "p-77", "sc2", 1815)]},
            ],
            "map": "Circuit Breaker",
            "server": "default",
            "channel": "scevo01",
            "quality": {"mmr_diff": 35.0},
            "strategy": "optimal",
            "config_fingerprint": "cfg-9a1f03c2",
            "created_at_ms": T0 + 5_000,
        },
    ),
    # What the "1v1" queue publishes for TicketJoined/data and the rival of MatchCreated/duel:
    # the seat of p-3301 carries its ticket's data merged with its own (docs/adr/0173).
    "MatchCreated/data": (
        m.MatchCreated,
        {
            "match_id": "108f33d0-597a-5a1d-9c1b-2481e1588c83",
            "queue": "1v1",
            "region": "eu",
            "wave_id": WAVE,
            "teams": [
                {
                    "name": "bw",
                    "players": [
                        _seat("t-data-3", "p-3301", "bw", 1850)
                        | {
                            "data": {
                                "build": "1.4.2",
                                "cosmetics": "hat-17,cape-2",
                                "session": '{"lobby":"L-9"}',
                                "skin": "crimson",
                            }
                        }
                    ],
                },
                {"name": "sc2", "players": [_seat("t-5d1e", "p-77", "sc2", 1815)]},
            ],
            "map": "Circuit Breaker",
            "server": "default",
            "channel": "scevo01",
            "quality": {"mmr_diff": 35.0},
            "strategy": "optimal",
            "config_fingerprint": "cfg-9a1f03c2",
            "created_at_ms": T0 + 5_000,
        },
    ),
    # What a "2v2" rebalance queue with roles tank and healer in us-east publishes for the
    # tickets t-7 (a party of two), t-8 and t-9 at the wave of T0 + 35 s.
    "MatchCreated/teams-2v2": (
        m.MatchCreated,
        {
            "match_id": "8d0a6883-9e59-55bc-a253-7fe5b20d1556",
            "queue": "2v2",
            "region": "us-east",
            "wave_id": "1767225635000",
            "teams": [
                {
                    "name": "team1",
                    "players": [
                        _seat("t-9", "p-90", "healer", 1470),
                        _seat("t-8", "p-80", "tank", 1510),
                    ],
                },
                {
                    "name": "team2",
                    "players": [
                        _seat("t-7", "p-70", "tank", 1500),
                        _seat("t-7", "p-71", "healer", 1480),
                    ],
                },
            ],
            "map": "Polypoid",
            "server": "default",
            "channel": "scevo01",
            "quality": {
                "team_rating_diff": 0.0,
                "rating_spread": 40.0,
                "imbalance": 15.811388300841896,
                "member_count_diff": 0.0,
            },
            "strategy": "rebalance",
            "config_fingerprint": "cfg-00ff",
            "created_at_ms": T0 + 35_000,
        },
    ),
    "TicketDequeued/matched": (
        m.TicketDequeued,
        {
            "ticket_id": "t-2f9c1b7e",
            "queue": "1v1",
            "region": "eu",
            "reason": "MATCHED",
            "match_id": MATCH,
            "wave_id": WAVE,
            "waves_waited": 1,
            "at_ms": T0 + 5_000,
        },
    ),
    "TicketDequeued/rejected": (
        m.TicketDequeued,
        {
            "ticket_id": "t-5",
            "queue": "5v5-ranked",
            "region": "eu-west",
            "reason": "REJECTED",
            "waves_waited": 0,
            "detail": "a ticket of 6 players does not fit a team of 5",
            "at_ms": T0 + 2,
        },
    ),
    "TicketStatus/matched-connection": (
        m.TicketStatus,
        {
            "ticket_id": "t-2f9c1b7e",
            "queue": "1v1",
            "region": "eu",
            "state": "SEARCHING",
            "position": 1,
            "waves_waited": 3,
            "at_ms": T0 + 12_000,
            "stage": "MATCHED",
            "match_id": MATCH,
            "connection": {"address": "203.0.113.7", "port": 7777, "token": "k7Yq2m9X"},
        },
    ),
    "TicketStatus/requires-acceptance": (
        m.TicketStatus,
        {
            "ticket_id": "t-2f9c1b7e",
            "queue": "1v1",
            "region": "eu",
            "state": "SEARCHING",
            "position": 1,
            "waves_waited": 3,
            "at_ms": T0 + 5_000,
            "stage": "REQUIRES_ACCEPTANCE",
            "match_id": MATCH,
            "deadline_at_ms": T0 + 15_000,
        },
    ),
    "TicketStatus/returned": (
        m.TicketStatus,
        {
            "ticket_id": "t-2f9c1b7e",
            "queue": "1v1",
            "region": "eu",
            "state": "SEARCHING",
            "position": 1,
            "waves_waited": 3,
            "at_ms": T0 + 8_000,
            "stage": "SEARCHING",
            "detail": f"returned to the queue: player p-2 declined match {MATCH}",
        },
    ),
    "TicketDequeued/declined": (
        m.TicketDequeued,
        {
            "ticket_id": "t-2",
            "queue": "1v1",
            "region": "eu",
            "reason": "LEFT",
            "waves_waited": 3,
            "detail": f"player p-2 declined match {MATCH}",
            "at_ms": T0 + 8_000,
            "cause": "DECLINED",
        },
    ),
    "TicketStatus/searching": (
        m.TicketStatus,
        {
            "ticket_id": "t-3",
            "queue": "1v1",
            "region": "eu",
            "state": "SEARCHING",
            "position": 4,
            "waves_waited": 1,
            "estimated_wait_ms": 15_000,
            "next_wave_at_ms": T0 + 10_000,
            "wave_id": WAVE,
            "at_ms": T0 + 5_000,
            "stage": "SEARCHING",
        },
    ),
    "TicketStatus/before-first-wave": (
        m.TicketStatus,
        {
            "ticket_id": "t-4",
            "queue": "1v1",
            "region": "eu",
            "state": "SEARCHING",
            "position": 1,
            "waves_waited": 0,
            "at_ms": T0 + 1_000,
            "stage": "SEARCHING",
        },
    ),
    "WaveClosed/wave-42": (
        m.WaveClosed,
        {
            "queue": "1v1",
            "region": "eu",
            "wave_id": WAVE,
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
    ),
    # Frozen at the queue/region/number wave id it was written with: a golden never changes.
    "WaveClosed/empty": (
        m.WaveClosed,
        {
            "queue": "1v1",
            "region": "eu",
            "wave_id": "1v1/eu/000000000000",
            "wave_number": 0,
            "players_in_snapshot": 0,
            "tickets_in_snapshot": 0,
            "matches": 0,
            "matched_players": 0,
            "unmatched": 0,
            "expired": 0,
            "strategy": "optimal",
            "config_fingerprint": "cfg-9a1f03c2",
            "closed_at_ms": T0,
            "duration_ms": 0.0,
        },
    ),
    "DeadLetter/missing-field": (
        m.DeadLetter,
        {
            "original": b'{"type": "TicketJoined"}',
            "original_size": 24,
            "original_key": b"1v1/eu",
            "topic": "wavematch.queue.v1",
            "partition": 3,
            "offset": 18231,
            "error_code": "missing_field",
            "reason": "TicketJoined ticket_id: Field required (and 5 more problems)",
            "field": "ticket_id",
            "failed_at_ms": T0 + 5_123,
        },
    ),
    "DeadLetter/garbage-no-key": (
        m.DeadLetter,
        {
            "original": b"\x00\xffhello",
            "original_size": 7,
            "topic": "wavematch.queue.v1",
            "partition": 0,
            "offset": 0,
            "error_code": "garbage",
            "reason": "the value is neither Avro single-object encoded (C3 01 ...) nor a JSON "
            "object (starts with 00 ff 68 65)",
            "failed_at_ms": T0,
        },
    ),
    "ConfigPublished/recorded-session": (
        m.ConfigPublished,
        {
            "config_fingerprint": "78ccd4449540e28b",
            # Shaped like streams/worker/config_record.py's record of a configuration like
            # tests/data/recorded-session.toml's (its fingerprint depends on the release).
            "settings_json": '{"fallback_servers":["default"],"finished_retention_ms":null,'
            '"max_clock_skew_ms":60000,"partitions":4,"publish_status":true,"queues":[{'
            '"cadence":"fixed","maps":["Fighting Spirit","Polypoid","Eclipse","Vermeer"],'
            '"name":"1v1","options":{},"pop_cap_ms":90000,"pop_floor_ms":5000,'
            '"pop_smoothing":0.3,"pop_target_matches":2.5,"regions":["eu","na","asia"],'
            '"roles":[],"strategy":"optimal","team_count":2,"team_size":1,'
            '"team_size_min":null,"wave_interval_ms":3600000}],"routes":[],'
            '"ticket_ttl_ms":8000,"verify_waves":true}',
            "release": "0.1.0",
            "published_at_ms": T0,
        },
    ),
}


def main() -> int:
    golden = ROOT / "schemas" / "golden"
    for case, (model, body) in CASES.items():
        event = model.model_validate(body)
        for suffix, data in ((".avro", encode(event)), (".json", encode_json(event) + b"\n")):
            path = golden / f"{case}{suffix}"
            if path.exists():
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
