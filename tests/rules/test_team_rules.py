"""No team strategy ever publishes a match that breaks its queue's rules (property test
against the live checker), and the rules do bind: a wave that breaks them makes no match."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.checks import wave_result_problems
from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.rules.check import rated_snapshot, wave_rule_problems
from matcher.strategies import run_wave

CLOSED_AT_MS = 600_000
#: A language (sometimes none) and a platform set per player.
ATTRIBUTES = st.tuples(
    st.sampled_from(((("language", "de"),), (("language", "fr"),), ())),
    st.sampled_from(((("platform", "pc"),), (("platform", "pc,xbox"),), (("platform", "xbox"),))),
).map(lambda pair: tuple(sorted(pair[0] + pair[1])))
VARIANTS = (
    ("rebalance", {}),
    ("game-queue", {}),
    ("game-queue", {"mode": "queue"}),
    ("multifactor", {"budget_evaluations": 3_000}),
)


@st.composite
def waves(draw: st.DrawFn) -> WaveSnapshot:
    count = draw(st.integers(2, 14))
    tickets = []
    for i in range(count):
        size = draw(st.sampled_from((1, 1, 1, 2)))
        players = tuple(
            Player(
                f"p{i}.{j}",
                (("elo", draw(st.integers(0, 3000))), ("mmr", draw(st.integers(0, 3000)))),
                latency_ms=(("eu", draw(st.integers(10, 200))),),
                attributes=draw(ATTRIBUTES),
            )
            for j in range(size)
        )
        joined = CLOSED_AT_MS - draw(st.integers(0, 120)) * 1000
        tickets.append(WaitingTicket(Ticket(f"t{i}", "q", "eu", players, joined), 0))
    ids = [p.player_id for w in tickets for p in w.ticket.players]
    meetings = tuple(
        (
            pid,
            (
                (
                    CLOSED_AT_MS - draw(st.integers(0, 900)) * 1000,
                    tuple(draw(st.sets(st.sampled_from(ids), max_size=4)) - {pid}),
                ),
            ),
        )
        for pid in ids
        if draw(st.booleans())
    )
    return WaveSnapshot(
        "q",
        "eu",
        "w",
        1,
        draw(st.integers(0, 2**32)),
        CLOSED_AT_MS,
        tuple(tickets),
        0,
        (),
        meetings,
    )


limits = st.one_of(
    st.integers(0, 2000),
    st.builds(
        lambda base, growth, extra: {"base": base, "growth_per_s": growth, "cap": base + extra},
        st.integers(0, 1500),
        st.integers(0, 20),
        st.integers(0, 1500),
    ),
)


@st.composite
def rule_tables(draw: st.DrawFn) -> dict[str, object]:
    table: dict[str, object] = {"rating": "mmr"}
    for name in ("max_spread", "max_team_gap"):
        if draw(st.booleans()):
            table[name] = draw(limits)
    if draw(st.booleans()):
        table["attributes"] = [
            {"name": "language", "relax_after_s": draw(st.sampled_from((30, 200)))},
            {"name": "platform", "match": "intersect"},
        ]
    if draw(st.booleans()):
        table["rematch"] = {"last": draw(st.integers(1, 3)), "within_s": 600}
    if draw(st.booleans()):
        table["max_latency_ms"] = {
            "base": draw(st.integers(20, 200)),
            "growth_per_s": 1,
            "cap": 250,
        }
    return table


@settings(max_examples=60, deadline=None)
@given(
    wave=waves(),
    rules=rule_tables(),
    variant=st.sampled_from(VARIANTS),
    size=st.sampled_from((2, 3)),
)
def test_no_team_strategy_publishes_a_match_that_breaks_the_rules(
    wave: WaveSnapshot, rules: dict[str, object], variant: tuple[str, dict], size: int
) -> None:
    strategy, options = variant
    profile = QueueProfile("q", strategy, ("m",), team_size=size, options=options, rules=rules)
    rated = rated_snapshot(wave, profile.ruleset)
    result = run_wave(wave, profile)
    assert wave_rule_problems(rated, profile, result) == []
    assert wave_result_problems(rated, profile, result) == []


def ticket(i: int, mmr: int) -> WaitingTicket:
    player = Player(f"p{i}", (("mmr", mmr), ("other", 3000 - mmr)))
    return WaitingTicket(Ticket(f"t{i}", "q", "eu", (player,), CLOSED_AT_MS), 0)


def test_the_issue_wave_makes_no_match_until_its_limits_allow_one() -> None:
    ratings = (100, 200, 300, 2700, 2800, 2900)
    tickets = tuple(ticket(i, r) for i, r in enumerate(ratings))
    now = WaveSnapshot("q", "eu", "w", 1, 7, CLOSED_AT_MS, tickets)
    later = WaveSnapshot("q", "eu", "w", 1, 7, CLOSED_AT_MS + 10_000, tickets)
    # The closest split is 100+300+2900 v 200+2700+2800: team means 800 apart.
    gap = {"rating": "mmr", "max_team_gap": {"base": 300, "growth_per_s": 100, "cap": 5000}}
    spread = {"rating": "mmr", "max_spread": 1000}
    for strategy in ("rebalance", "game-queue", "multifactor"):
        strict = QueueProfile("q", strategy, ("m",), team_size=3, rules=spread)
        growing = QueueProfile("q", strategy, ("m",), team_size=3, rules=gap)
        assert run_wave(later, strict).matches == (), strategy
        assert run_wave(now, growing).matches == (), strategy
        (match,) = run_wave(later, growing).matches
        means = [sum(s.rating for s in team.seats) / 3 for team in match.teams]
        assert abs(means[0] - means[1]) <= 1300, strategy
