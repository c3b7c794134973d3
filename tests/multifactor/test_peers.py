"""Round trips between players (ping_peer) and a peer-to-peer host (p2p_host_max_ms)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from matcher.core import Player, WaveSnapshot
from matcher.multifactor.checks import multifactor_result_problems
from matcher.multifactor.config import MultifactorConfig, OptionError, multifactor_settings
from matcher.multifactor.factors import pair_ping_ms
from matcher.multifactor.pool import build_pool
from matcher.multifactor.report import score_teams
from matcher.multifactor.search import Search
from matcher.multifactor.strategy import multifactor_strategy
from matcher.peers import choose_host, reachable_hosts
from streams.wave_input import WaveInputError, parse_wave
from tests.multifactor.conftest import profile
from tests.multifactor.peer_waves import peer_wave
from tests.multifactor.test_search import _sides

P2P = {"p2p_host_max_ms": 90, "weight_hosts": 1.0, "budget_evaluations": 2_000}


def _without_peers(wave: WaveSnapshot) -> WaveSnapshot:
    tickets = tuple(
        replace(
            w,
            ticket=replace(
                w.ticket, players=tuple(replace(p, peer_latency_ms=()) for p in w.ticket.players)
            ),
        )
        for w in wave.tickets
    )
    return replace(wave, tickets=tickets)


@pytest.mark.parametrize(
    ("options", "line"),
    [
        ({"ping_peer": 2}, "options.ping_peer: must be 0 (regions) or 1 (peers)"),
        ({"ping_peer": "yes"}, "options.ping_peer: expected a number, got 'yes'"),
        ({"p2p_host_max_ms": -1}, "options.p2p_host_max_ms: must be within [0, 60000] (0: off)"),
        ({"p2p_host_max_ms": 60_001}, "options.p2p_host_max_ms: must be within [0, 60000]"),
        ({"p2p_host_max_ms": 2.5}, "options.p2p_host_max_ms: expected a whole number, got 2.5"),
    ],
)
def test_a_bad_option_is_refused_at_start_in_one_line(
    options: dict[str, object], line: str
) -> None:
    with pytest.raises(OptionError) as caught:
        multifactor_settings(profile(3, **options))
    assert str(caught.value).startswith(line) and "\n" not in str(caught.value)


def test_ping_peer_reads_a_measured_round_trip_first_and_the_larger_report() -> None:
    a = Player("a", (), latency_ms=(("eu", 20),), peer_latency_ms=(("b", 90),))
    b = Player("b", (), latency_ms=(("eu", 20),), peer_latency_ms=(("a", 70),))
    c = Player("c", (), latency_ms=(("eu", 30),))
    peer = MultifactorConfig(ping_peer=1)
    assert [pair_ping_ms(a, b, peer), pair_ping_ms(a, c, peer)] == [90, 50]
    assert pair_ping_ms(a, b, MultifactorConfig()) == 40  # the estimate via eu


@pytest.mark.parametrize("options", [{}, {"weight_hosts": 1.0}])
def test_off_by_default_peer_round_trips_change_nothing(options: dict[str, object]) -> None:
    wave = peer_wave(3, 24)
    queue = profile(3, budget_evaluations=2_000, **options)
    assert multifactor_strategy(wave, queue) == multifactor_strategy(_without_peers(wave), queue)


def test_ping_peer_scores_the_measured_round_trips() -> None:
    """On a map a measured round trip is never longer than the route via the region, so
    every match scores at least the ping it would without the option, some strictly more;
    and the live checker recomputes the published factor under the option."""
    wave = peer_wave(4, 24)
    queue = profile(3, budget_evaluations=2_000, ping_peer=1)
    peered = multifactor_strategy(wave, queue)
    assert multifactor_result_problems(wave, queue, peered) == []
    assert multifactor_result_problems(wave, profile(3, budget_evaluations=2_000), peered)
    players = {p.player_id: p for w in wave.tickets for p in w.ticket.players}
    gains = []
    for match in peered.matches:
        sides = [[[(players[s.player_id], s.rating)] for s in team.seats] for team in match.teams]
        plain = score_teams(sides[0], sides[1], {}, MultifactorConfig()).factors[3]
        gains.append((match.quality_of("factor.ping") or 0.0) - plain)
    assert gains and min(gains) >= 0 and max(gains) > 0


@pytest.mark.parametrize("options", [{"ping_peer": 1}, P2P, {**P2P, "ping_peer": 1}])
def test_the_evaluator_agrees_with_the_definitions_under_the_options(
    options: dict[str, object],
) -> None:
    config = MultifactorConfig(**options)  # type: ignore[arg-type]
    pool = build_pool(peer_wave(5, 30), profile(3), config)
    outcome = Search(pool, config, 1).run()
    assert outcome.matches
    for (team1, team2), score in zip(outcome.matches, outcome.scores, strict=True):
        assert score_teams(_sides(pool, team1), _sides(pool, team2), {}, config).total == score


@pytest.mark.parametrize("seed", range(4))
def test_every_p2p_match_has_a_reachable_host_named_as_its_server(seed: int) -> None:
    wave = peer_wave(seed, 30)
    queue = profile(3, **P2P)
    result = multifactor_strategy(wave, queue)
    assert multifactor_result_problems(wave, queue, result) == []
    config = multifactor_settings(queue)
    players = {p.player_id: p for w in wave.tickets for p in w.ticket.players}
    for match in result.matches:
        seated = [players[s.player_id] for team in match.teams for s in team.seats]
        host = players[match.server]
        limit = config.p2p_host_max_ms
        assert host in reachable_hosts(seated, limit) and host == choose_host(seated, limit)
    assert multifactor_strategy(wave, queue) == result


def test_the_checker_refuses_a_match_with_no_reachable_host_or_the_wrong_one() -> None:
    wave = peer_wave(6, 30, hosts=0.25)
    queue = profile(3, **P2P)
    ignored = multifactor_strategy(wave, profile(3, weight_hosts=1.0, budget_evaluations=2_000))
    problems = multifactor_result_problems(wave, queue, ignored)
    assert any("no player with can_host reaches every other" in p for p in problems)
    honoured = multifactor_strategy(wave, queue)
    assert honoured.matches
    wrong = replace(honoured.matches[0], server="default")
    bad = replace(honoured, matches=(wrong, *honoured.matches[1:]))
    assert any("is not its peer host" in p for p in multifactor_result_problems(wave, queue, bad))


def test_nobody_able_to_host_means_no_match() -> None:
    wave = peer_wave(7, 12, hosts=0.0)
    result = multifactor_strategy(wave, profile(3, **P2P))
    assert result.matches == () and len(result.unmatched) == 12


def test_an_offline_wave_file_carries_peer_round_trips_to_the_host_rule() -> None:
    def solo(i: int, host: bool, peers: dict[str, int]) -> dict[str, object]:
        player = {
            "player_id": f"p{i}",
            "ratings": {"mmr": 1500},
            "latency_ms": {"eu": 60},
            "can_host": host,
            "peer_latency_ms": peers,
        }
        return {"ticket_id": f"t{i}", "wait_cycles": 0, "players": [player]}

    data = {
        "wave_id": "w1",
        "seed": 3,
        "active_population": 2,
        "queue": "q",
        "region": "eu",
        "profile": {"maps": ["arena"], "team_size": 1, "options": {"p2p_host_max_ms": 50}},
        "tickets": [solo(0, True, {"p1": 30}), solo(1, False, {})],
    }
    snapshot, queue, _ = parse_wave(data, "multifactor")
    assert snapshot.tickets[0].ticket.players[0].peer_latency_ms == (("p1", 30),)
    (match,) = multifactor_strategy(snapshot, queue).matches
    assert match.server == "p0"  # 120 ms via eu, 30 measured
    bad = {**data, "tickets": [solo(0, True, {"p1": -3}), solo(1, False, {})]}
    with pytest.raises(WaveInputError, match=r"tickets\[0\].players\[0\].peer_latency_ms.p1"):
        parse_wave(bad, "multifactor")
