"""The archetype configurations of docs/rules.md, tried as a new user would: each
example runs under `wavematch up --config`, joins are published with librdkafka
(confluent-kafka) as a platform would, and the matches respect the example's rules: the
players who fit are matched, and those a rule keeps out (too far in rating, too slow to
the region, another language) are in no match.

Each example runs as written except its wave interval, shortened to one second."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from schemas.codec import decode
from schemas.models import MatchCreated
from schemas.topics import MATCHES, queue_key
from tests.integration.conftest import ROOT, running_up, wait_until
from tests.integration.kafka import produce, read_topic

pytestmark = pytest.mark.integration

EXAMPLES = ROOT / "examples"


@dataclass(frozen=True)
class Up:
    process: subprocess.Popen[bytes]
    bootstrap: str
    web: str


@pytest.fixture
def up(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Up]:
    example = (EXAMPLES / f"{request.param}.toml").read_text()
    config = tmp_path / "config.toml"
    config.write_text(re.sub(r"(?m)^wave_interval_ms = \d+$", "wave_interval_ms = 1000", example))
    log = tmp_path / "up.log"
    args = ["up", "--config", str(config)]
    with running_up(args, log, tmp_path, tmp_path / "state") as (process, state):
        yield Up(process, state["broker_url"].split("://", 1)[1], state["web"][0])
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]


def join(
    queue: str, ticket: str, ratings: dict[str, int], latency: int, **player: object
) -> tuple[bytes, bytes]:
    body = {
        "type": "TicketJoined",
        "ticket_id": ticket,
        "queue": queue,
        "region": "eu",
        "joined_at_ms": int(time.time() * 1000),
        "players": [
            {"player_id": f"p-{ticket}", "ratings": ratings, "latency_ms": {"eu": latency}} | player
        ],
    }
    return queue_key(queue, "eu"), json.dumps(body).encode()


def matches_of(up: Up) -> list[set[str]]:
    records = read_topic(up.bootstrap, MATCHES.name)
    events = [decode(r.value or b"") for r in records]
    return [
        {seat.ticket_id for team in e.teams for seat in team.players}
        for e in events
        if isinstance(e, MatchCreated)
    ]


def matched_after_waves(up: Up, expected: list[set[str]], kept_out: set[str]) -> None:
    """The ``expected`` matches appear; then, three waves later, no match has anyone of
    ``kept_out``."""
    wait_until(
        lambda: all(m in matches_of(up) for m in expected),
        60,
        f"the matches {expected}",
        alive=lambda: up.process.poll() is None,
    )
    time.sleep(3)
    matches = matches_of(up)
    assert sorted(map(sorted, matches)) == sorted(map(sorted, expected))
    assert not kept_out & set().union(*matches)


@pytest.mark.parametrize("up", ["rules-1v1-ladder"], indirect=True)
def test_a_same_game_ladder(up: Up) -> None:
    queue = "1v1-ladder"
    produce(
        up.bootstrap,
        [
            join(queue, "near-a", {"mmr": 1500}, 30),
            join(queue, "near-b", {"mmr": 1560}, 40),
            join(queue, "far", {"mmr": 2600}, 30),  # beyond the 400 cap of max_distance
            join(queue, "slow", {"mmr": 1530}, 400),  # beyond the 150 ms cap of latency
        ],
    )
    matched_after_waves(up, [{"near-a", "near-b"}], {"far", "slow"})


@pytest.mark.parametrize("up", ["rules-1v1-asymmetric"], indirect=True)
def test_the_asymmetric_s0_game(up: Up) -> None:
    produce(
        up.bootstrap,
        [
            join("1v1", "bw", {"bw": 1500}, 30),
            join("1v1", "sc2", {"sc2": 1510}, 30),
            join("1v1", "slow", {"bw": 1505, "sc2": 1505}, 500),  # beyond 160 ms
        ],
    )
    matched_after_waves(up, [{"bw", "sc2"}], {"slow"})


@pytest.mark.parametrize("up", ["rules-5v5-roles"], indirect=True)
def test_a_5v5_with_roles_languages_and_platforms(up: Up) -> None:
    queue = "5v5-ranked"
    seats = ["tank"] * 2 + ["healer"] * 2 + ["dps"] * 6
    team = [
        join(
            queue,
            f"{role}-{i}",
            {role: 1500 + 10 * i},
            30,
            roles=[role],
            attributes={"language": "de", "platform": "pc" if i % 2 else "pc,xbox"},
        )
        for i, role in enumerate(seats)
    ]
    other_language = join(
        queue, "fr-dps", {"dps": 1500}, 30, roles=["dps"], attributes={"language": "fr"}
    )
    console_only = join(
        queue, "xbox-dps", {"dps": 1500}, 30, roles=["dps"], attributes={"platform": "xbox"}
    )
    produce(up.bootstrap, [other_language, console_only, *team])
    expected = {f"{role}-{i}" for i, role in enumerate(seats)}
    matched_after_waves(up, [expected], {"fr-dps", "xbox-dps"})


@pytest.mark.parametrize("up", ["rules-ffa8"], indirect=True)
def test_an_eight_player_free_for_all(up: Up) -> None:
    players = [join("ffa8", f"p{i}", {"mmr": 1500 + 30 * i}, 40) for i in range(8)]
    outlier = join("ffa8", "outlier", {"mmr": 2500}, 40)  # 1,000 above: beyond max_spread
    produce(up.bootstrap, [outlier, *players])
    matched_after_waves(up, [{f"p{i}" for i in range(8)}], {"outlier"})


def squad(
    queue: str, ticket: str, size: int, rating: int, latency: int, waited_s: int
) -> tuple[bytes, bytes]:
    """A party of ``size`` who joined ``waited_s`` seconds ago (within the clock skew bound)."""
    key, value = join(queue, ticket, {"mmr": rating}, latency)
    body = json.loads(value)
    body["joined_at_ms"] -= waited_s * 1000
    body["players"] = [
        {
            "player_id": f"p-{ticket}-{i}",
            "ratings": {"mmr": rating + 7 * i},
            "latency_ms": {"eu": latency},
        }
        for i in range(size)
    ]
    return key, json.dumps(body).encode()


def squads(prefix: str, players: int, waited_s: int) -> list[tuple[bytes, bytes]]:
    sizes = [4, 3, 1, 2, 2, 1, 1, 1, 1]  # parties of one to four, whole squads by nine tickets
    tickets, left, i = [], players, 0
    while left:
        size = min(sizes[i % len(sizes)], left)
        tickets.append(squad("br-squads", f"{prefix}{i}", size, 1400 + 5 * i, 40, waited_s))
        left, i = left - size, i + 1
    return tickets


@pytest.mark.parametrize("up", ["rules-br-squads"], indirect=True)
def test_battle_royale_squads_with_fewer_squads_after_a_minute(up: Up) -> None:
    # 80 players who joined a minute ago make 20 squads (the first team step); the 100
    # who come next make the full 25; a squad too slow to the region plays in neither.
    waited = squads("old", 80, 60)
    produce(up.bootstrap, [squad("br-squads", "slow", 4, 1500, 400, 60), *waited])
    old = {json.loads(value)["ticket_id"] for _, value in waited}
    wait_until(
        lambda: old in matches_of(up),
        60,
        "the 20-squad match",
        alive=lambda: up.process.poll() is None,
    )
    fresh = squads("new", 100, 0)
    produce(up.bootstrap, fresh)
    new = {json.loads(value)["ticket_id"] for _, value in fresh}
    matched_after_waves(up, [old, new], {"slow"})
    teams = sorted(
        len(e.teams)
        for e in map(decode, (r.value or b"" for r in read_topic(up.bootstrap, MATCHES.name)))
        if isinstance(e, MatchCreated)
    )
    assert teams == [20, 25]


@pytest.mark.parametrize("up", ["rules-1v4-asymmetric"], indirect=True)
def test_an_asymmetric_one_hunter_against_four_survivors(up: Up) -> None:
    def player(name: str, role: str, rating: int) -> dict[str, object]:
        return {
            "player_id": name,
            "ratings": {role: rating},
            "roles": [role],
            "latency_ms": {"eu": 30},
        }

    hunter = join("1v4", "hunter", {"hunter": 1500}, 30, roles=["hunter"])
    duo_key, duo = join("1v4", "duo", {"survivor": 1450}, 30, roles=["survivor"])
    body = json.loads(duo)
    body["players"] = [player("s-a", "survivor", 1450), player("s-b", "survivor", 1520)]
    solos = [
        join("1v4", f"s{i}", {"survivor": 1480 + 10 * i}, 30, roles=["survivor"]) for i in range(2)
    ]
    # A second hunter 1,200 above everyone (beyond the 1,000 cap of max_spread).
    far = join("1v4", "far-hunter", {"hunter": 2700}, 30, roles=["hunter"])
    produce(up.bootstrap, [far, hunter, (duo_key, json.dumps(body).encode()), *solos])
    matched_after_waves(up, [{"hunter", "duo", "s0", "s1"}], {"far-hunter"})
    (match,) = [
        e
        for e in map(decode, (r.value or b"" for r in read_topic(up.bootstrap, MATCHES.name)))
        if isinstance(e, MatchCreated)
    ]
    seats = [sorted(seat.role for seat in team.players) for team in match.teams]
    assert seats == [["hunter"], ["survivor"] * 4]


@pytest.mark.parametrize("up", ["rules-1v1-ranked-live-ops"], indirect=True)
def test_a_ranked_1v1_with_deviation_block_lists_and_a_low_priority_pool(up: Up) -> None:
    queue = "1v1-ranked"
    low = {"attributes": {"pool": "low"}}
    produce(
        up.bootstrap,
        [
            # 1500 - 2 x 50 = 1400 and 1460 - 2 x 30 = 1400: a pair on their bounds.
            join(queue, "sure-a", {"mmr": 1500}, 30, deviation=50),
            join(queue, "sure-b", {"mmr": 1460}, 30, deviation=30),
            # Equal ratings, but one blocked the other: never together.
            join(queue, "blocker", {"mmr": 1800}, 30, deviation=0, blocked_players=["p-blocked"]),
            join(queue, "blocked", {"mmr": 1800}, 30, deviation=0),
            # Leavers play leavers, and not the normal player at their rating.
            join(queue, "leaver-a", {"mmr": 1200}, 30, deviation=0, **low),
            join(queue, "leaver-b", {"mmr": 1210}, 30, deviation=0, **low),
            join(queue, "normal", {"mmr": 1205}, 30, deviation=0),
            # No deviation sent: matched on 3200 - 700 = 2500, far from everyone.
            join(queue, "newcomer", {"mmr": 3200}, 30),
        ],
    )
    expected = [{"sure-a", "sure-b"}, {"leaver-a", "leaver-b"}]
    matched_after_waves(up, expected, {"blocker", "blocked", "normal", "newcomer"})


def search_join(
    queue: str, ticket: str, mmr: int, latency: dict[str, int], searches: list[dict]
) -> tuple[bytes, bytes]:
    """A join searching several places (docs/adr/0145), keyed by its first place."""
    home = searches[0] if searches else {"region": "eu"}
    body = {
        "type": "TicketJoined",
        "ticket_id": ticket,
        "queue": home.get("queue") or queue,
        "region": home["region"],
        "joined_at_ms": int(time.time() * 1000),
        "players": [{"player_id": f"p-{ticket}", "ratings": {"mmr": mmr}, "latency_ms": latency}],
    }
    if searches:
        body["searches"] = searches
    return queue_key(str(body["queue"]), str(body["region"])), json.dumps(body).encode()


def created(up: Up) -> list[MatchCreated]:
    records = read_topic(up.bootstrap, MATCHES.name)
    return [e for e in (decode(r.value or b"") for r in records) if isinstance(e, MatchCreated)]


@pytest.mark.parametrize("up", ["searches-region-select"], indirect=True)
def test_a_region_select_shooter_widens_to_the_other_region(up: Up) -> None:
    near = {"eu": 30, "na": 120}
    widen = [{"region": "na"}, {"region": "eu", "open_after_ms": 2_000}]
    produce(
        up.bootstrap,
        [
            search_join("tdm", "eu-1", 1500, near, []),
            search_join("tdm", "eu-2", 1520, near, []),
            # Alone in na (a 2v2 needs four): after 2 s they search eu too.
            search_join("tdm", "na-1", 1510, {"na": 20, "eu": 110}, widen),
            search_join("tdm", "na-2", 1490, {"na": 25, "eu": 100}, widen),
            # Too far from eu's servers for the rule's cap: stays in na.
            search_join("tdm", "na-far", 1500, {"na": 20, "eu": 400}, widen),
        ],
    )
    wait_until(lambda: created(up), 60, "a match", alive=lambda: up.process.poll() is None)
    time.sleep(3)
    (match,) = created(up)
    seated = {s.ticket_id for team in match.teams for s in team.players}
    assert match.region == "eu" and seated == {"eu-1", "eu-2", "na-1", "na-2"}


@pytest.mark.parametrize("up", ["searches-dual-queue"], indirect=True)
def test_a_dual_queue_player_is_matched_in_one_queue_only(up: Up) -> None:
    both = [{"queue": "1v1", "region": "eu"}, {"queue": "2v2", "region": "eu"}]
    produce(
        up.bootstrap,
        [
            search_join("1v1", "duel-foe", 1500, {"eu": 30}, []),
            search_join("2v2", "mate-1", 1510, {"eu": 30}, []),
            search_join("2v2", "mate-2", 1490, {"eu": 30}, []),
            search_join("2v2", "mate-3", 1505, {"eu": 30}, []),
            search_join("1v1", "both", 1500, {"eu": 30}, both),
        ],
    )
    wait_until(lambda: created(up), 60, "a match", alive=lambda: up.process.poll() is None)
    time.sleep(3)
    (match,) = created(up)  # either queue can take "both": only the first one does
    seated = {s.ticket_id for team in match.teams for s in team.players}
    if match.queue == "1v1":
        assert seated == {"both", "duel-foe"}
    else:
        assert seated == {"both", "mate-1", "mate-2", "mate-3"}


@pytest.mark.parametrize("up", ["rules-mmo-dungeon"], indirect=True)
def test_an_mmo_dungeon_with_strict_roles_and_levels(up: Up) -> None:
    def member(ticket: str, cls: str, level: int) -> tuple[bytes, bytes]:
        attributes = {"class": cls, "language": "de"}
        numbers = {"level": level}
        return join("dungeon", ticket, {"gear": 300}, 30, attributes=attributes, numbers=numbers)

    group = [("tank", "tank", 20), ("healer", "healer", 22)]
    group += [(f"damage-{i}", "damage", 18 + i) for i in range(3)]
    produce(
        up.bootstrap,
        [
            member("tank-far", "tank", 40),  # a second tank, 20 levels above the healer
            member("damage-far", "damage", 40),
            member("damage-low", "damage", 5),  # below level 10: rejected at join
            *(member(*m) for m in group),
        ],
    )
    expected = {ticket for ticket, _, _ in group}
    matched_after_waves(up, [expected], {"tank-far", "damage-far", "damage-low"})
