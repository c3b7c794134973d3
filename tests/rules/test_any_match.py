"""A wave makes a match whenever one is possible (issue 26 item 5): every team strategy
against a brute-force "is any match possible under the rules" on small strict waves."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.rules.check import lineup_problem, rated_snapshot, waited_s
from matcher.ruleset import QueueRuleSet
from matcher.strategies import run_wave

CLOSED_AT_MS = 600_000
TEAM = 3
VARIANTS = (
    ("rebalance", {}),
    ("game-queue", {}),
    ("multifactor", {"budget_evaluations": 3_000}),
)


@st.composite
def waves(draw: st.DrawFn) -> WaveSnapshot:
    tickets = []
    for i in range(draw(st.integers(3, 9))):
        size = draw(st.sampled_from((1, 1, 2, 3)))
        language = draw(st.sampled_from((("language", "de"), ("language", "fr"))))
        players = tuple(
            Player(f"p{i}.{j}", (("mmr", draw(st.integers(0, 30)) * 100),), attributes=(language,))
            for j in range(size)
        )
        joined = CLOSED_AT_MS - draw(st.integers(0, 30)) * 1000
        waited = draw(st.integers(0, 12))
        tickets.append(WaitingTicket(Ticket(f"t{i}", "q", "eu", players, joined), waited))
    return WaveSnapshot(
        "q", "eu", "w", 1, draw(st.integers(0, 2**32)), CLOSED_AT_MS, tuple(tickets)
    )


def possible(wave: WaveSnapshot, rules: QueueRuleSet) -> bool:
    """Whether some parties of ``wave`` fill two teams of TEAM and respect ``rules``."""
    parties = [
        ([p.rating("mmr") or 0 for p in w.ticket.players], w.ticket.joined_at_ms, w.ticket.players)
        for w in wave.tickets
    ]
    for count in range(2, 2 * TEAM + 1):
        for chosen in combinations(range(len(parties)), count):
            if sum(len(parties[i][0]) for i in chosen) != 2 * TEAM:
                continue
            for side in range(1, count + 1):
                for first in combinations(chosen, side):
                    second = [i for i in chosen if i not in first]
                    teams = [[r for i in team for r in parties[i][0]] for team in (first, second)]
                    if any(len(team) != TEAM for team in teams):
                        continue
                    waited = waited_s(CLOSED_AT_MS, [parties[i][1] for i in chosen])
                    seated = [p for i in chosen for p in parties[i][2]]
                    if lineup_problem(rules, teams, waited, (), seated) is None:
                        return True
    return False


rule_tables = st.one_of(
    st.just({}),
    st.just({"attributes": [{"name": "language"}], "max_spread": 1500}),
    st.builds(lambda spread: {"max_spread": spread}, st.integers(0, 20).map(lambda v: v * 100)),
    st.builds(lambda gap: {"max_team_gap": gap}, st.integers(0, 10).map(lambda v: v * 50)),
)


@settings(max_examples=150, deadline=None)
@given(wave=waves(), rules=rule_tables, variant=st.sampled_from(VARIANTS))
def test_a_wave_makes_a_match_whenever_one_is_possible(
    wave: WaveSnapshot, rules: dict[str, object], variant: tuple[str, dict]
) -> None:
    strategy, options = variant
    profile = QueueProfile("q", strategy, ("m",), team_size=TEAM, options=options, rules=rules)
    rated = rated_snapshot(wave, profile.ruleset)
    if possible(rated, profile.ruleset):
        assert run_wave(wave, profile).matches, strategy
