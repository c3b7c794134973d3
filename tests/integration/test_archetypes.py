"""The four archetype configurations of docs/rules.md, tried as a new user would: each
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
