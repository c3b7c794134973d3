"""The 1v1 strategies under a queue's rules: a mirror ladder on one rating per player,
``optimal`` honouring max_distance, max_latency_ms and rematch as a hard filter, and no
1v1 strategy ever publishing a match its strategy's checker or the rules refuse."""

from __future__ import annotations

import random
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.explain import explain_match
from matcher.queue.admission import admission_problem
from matcher.rules.check import rated_snapshot, wave_rule_problems
from matcher.strategies import check_rules, result_problems, run_wave

CLOSED_AT_MS = 600_000
MAPS = ("m1", "m2")


def profile(strategy: str, rules: Mapping[str, object], **options: object) -> QueueProfile:
    made = QueueProfile("1v1", strategy, MAPS, options=dict(options), rules=dict(rules))
    check_rules(made)  # what the settings run at start
    return made


def wave(players: list[tuple[Player, int]], meetings: tuple = ()) -> WaveSnapshot:
    tickets = tuple(
        WaitingTicket(Ticket(p.player_id, "1v1", "eu", (p,), CLOSED_AT_MS - waited_s * 1000), 0)
        for p, waited_s in players
    )
    return WaveSnapshot("1v1", "eu", "w", 1, 7, CLOSED_AT_MS, tickets, 0, (), meetings)


def close(snapshot: WaveSnapshot, queue: QueueProfile) -> list[tuple[str, str]]:
    """The pairs of the wave, after both checkers the worker runs found nothing."""
    rated = rated_snapshot(snapshot, queue.ruleset)
    result = run_wave(rated, queue)
    assert result_problems(rated, queue, result) == []
    assert wave_rule_problems(rated, queue, result) == []
    return sorted(
        tuple(sorted(team.seats[0].player_id for team in match.teams)) for match in result.matches
    )


def mmr(name: str, rating: int, latency: int | None = None) -> Player:
    latency_ms = () if latency is None else (("eu", latency),)
    return Player(name, (("mmr", rating),), latency_ms=latency_ms)


def test_a_mirror_ladder_admits_and_matches_one_rating_per_player() -> None:
    for strategy in ("optimal", "ladder-v2.1"):
        queue = profile(strategy, {"rating": "mmr"})
        a, b = mmr("a", 1500), mmr("b", 1520)
        assert admission_problem(Ticket("a", "1v1", "eu", (a,), 0), queue) is None
        refused = admission_problem(
            Ticket("c", "1v1", "eu", (Player("c", (("bw", 1),)),), 0), queue
        )
        assert refused == "player c has no 'mmr' rating"
        result = run_wave(rated_snapshot(wave([(a, 5), (b, 5)]), queue.ruleset), queue)
        (match,) = result.matches
        assert [team.name for team in match.teams] == ["team1", "team2"]
        assert {team.seats[0].role for team in match.teams} == {""}
        assert sorted(team.seats[0].rating for team in match.teams) == [1500, 1520]


def test_max_distance_expands_with_the_wait_its_expansion_age_names() -> None:
    limit = {"base": 100, "growth_per_s": 10, "cap": 1000}
    queue = profile("optimal", {"rating": "mmr", "max_distance": limit})
    newest = profile(
        "optimal", {"rating": "mmr", "max_distance": {**limit, "expansion_age": "newest"}}
    )
    far = [(mmr("a", 1000), 60), (mmr("b", 1500), 60)]
    assert close(wave(far), queue) == [("a", "b")]  # 100 + 10/s over 60 s: 700 >= 500
    fresh = [(mmr("a", 1000), 60), (mmr("b", 1500), 10)]
    assert close(wave(fresh), queue) == [("a", "b")]  # a, the oldest, allows 700 (default)
    assert close(wave(fresh), newest) == []  # b, the least waited, allows 200 after 10 s
    # The rule replaces the pressure window (75 at this wave's pressure): 150 apart pair
    # under the rule, not without it.
    near = [(mmr("a", 1000), 60), (mmr("b", 1150), 10)]
    assert close(wave(near), queue) == [("a", "b")]
    assert close(wave(near), profile("optimal", {"rating": "mmr"})) == []


def test_attribute_rules_bind_optimal_until_relaxed() -> None:
    language = {"name": "language", "match": "equal", "relax_after_s": 60}
    platform = {"name": "platform", "match": "intersect"}
    rules = {"rating": "mmr", "attributes": [language, platform]}
    queue = profile("optimal", rules)

    def player(name: str, language: str, platform: str, waited_s: int) -> tuple[Player, int]:
        attributes = (("language", language), ("platform", platform))
        return Player(name, (("mmr", 1500),), attributes=attributes), waited_s

    german, french = player("a", "de", "pc,xbox", 30), player("b", "fr", "xbox", 20)
    assert close(wave([german, french]), queue) == []  # a, the oldest, waited 30 s
    german = player("a", "de", "pc,xbox", 90)
    assert close(wave([german, french]), queue) == [("a", "b")]  # a's 90 s relax it
    newest = {**rules, "attributes": [{**language, "expansion_age": "newest"}, platform]}
    assert close(wave([german, french]), profile("optimal", newest)) == []  # b's 20 s do not
    french = player("b", "fr", "xbox", 61)
    assert close(wave([german, french]), queue) == [("a", "b")]
    console = player("b", "fr", "ps", 61)
    assert close(wave([german, console]), queue) == []  # platforms never relax


def test_max_latency_and_rematch_bind_optimal() -> None:
    queue = profile("optimal", {"rating": "mmr", "max_latency_ms": 100})
    players = [(mmr("a", 1500, 40), 5), (mmr("b", 1500, 150), 5), (mmr("c", 1550, 60), 5)]
    assert close(wave(players), queue) == [("a", "c")]
    queue = profile("optimal", {"rating": "mmr", "rematch": {"last": 2, "within_s": 600}})
    players = [(mmr("a", 1500), 5), (mmr("b", 1500), 5), (mmr("c", 1550), 5)]
    met = (("a", ((CLOSED_AT_MS - 100_000, ("b",)),)), ("b", ((CLOSED_AT_MS - 100_000, ("a",)),)))
    assert close(wave(players), queue) == [("a", "b")]
    assert close(wave(players, met), queue) in ([("a", "c")], [("b", "c")])


#: A language (sometimes none) and a platform set (sometimes none) per player.
ATTRIBUTES = st.tuples(
    st.sampled_from(((("language", "de"),), (("language", "fr"),), ())),
    st.sampled_from(
        ((("platform", "pc"),), (("platform", "pc,xbox"),), (("platform", "xbox"),), ())
    ),
).map(lambda pair: tuple(sorted(pair[0] + pair[1])))
ATTRIBUTE_RULES = st.lists(
    st.builds(
        lambda name, relax: (
            {"name": name, "match": "equal" if name == "language" else "intersect"}
            | ({} if relax is None else {"relax_after_s": relax})
        ),
        st.sampled_from(("language", "platform")),
        st.one_of(st.none(), st.integers(0, 120)),
    ),
    max_size=2,
    unique_by=lambda rule: rule["name"],
)
LIMITS = st.one_of(
    st.integers(0, 600),
    st.builds(
        lambda base, growth, extra: {"base": base, "growth_per_s": growth, "cap": base + extra},
        st.integers(0, 400),
        st.integers(0, 20),
        st.integers(0, 800),
    ),
)


@st.composite
def duel_waves(draw: st.DrawFn) -> tuple[WaveSnapshot, bool]:
    mirror = draw(st.booleans())
    count = draw(st.integers(2, 40))
    players = []
    for i in range(count):
        if mirror:
            ratings: tuple[tuple[str, int], ...] = (("mmr", draw(st.integers(1000, 2500))),)
        else:
            races = draw(st.sampled_from((("bw",), ("sc2",), ("bw", "sc2"))))
            ratings = tuple((race, draw(st.integers(1000, 2500))) for race in races)
        latency = (("eu", draw(st.integers(10, 200))),) if draw(st.booleans()) else ()
        attributes = draw(ATTRIBUTES)
        player = Player(f"p{i}", ratings, latency_ms=latency, attributes=attributes)
        players.append((player, draw(st.integers(0, 120))))
    ids = [p.player_id for p, _ in players]
    meetings = tuple(
        (pid, ((CLOSED_AT_MS - draw(st.integers(0, 900)) * 1000, tuple(others - {pid})),))
        for pid in ids
        if draw(st.booleans())
        for others in [draw(st.sets(st.sampled_from(ids), max_size=3))]
    )
    return wave(players, meetings), mirror


@settings(max_examples=150, deadline=None)
@given(
    duel_waves(),
    st.fixed_dictionaries(
        {},
        optional={
            "max_distance": LIMITS,
            "max_latency_ms": LIMITS,
            "attributes": ATTRIBUTE_RULES,
            "rematch": st.builds(
                lambda last, within: {"last": last, "within_s": within},
                st.integers(1, 3),
                st.integers(1, 900),
            ),
        },
    ),
    st.sampled_from((400, 6)),
)
def test_no_1v1_strategy_publishes_a_match_breaking_the_rules(
    drawn: tuple[WaveSnapshot, bool], rules: dict[str, object], exact_limit: int
) -> None:
    """``optimal_exact_limit`` 6 sends most waves through the large tier's relaxation."""
    snapshot, mirror = drawn
    rated = {"rating": "mmr", **rules} if mirror else rules
    close(snapshot, profile("optimal", rated, optimal_exact_limit=exact_limit))
    if mirror:
        close(snapshot, profile("ladder-v2.1", {"rating": "mmr"}))


def test_explain_judges_a_ruled_1v1_pair_by_the_rules() -> None:
    queue = profile("optimal", {"rating": "mmr", "max_distance": 100, "max_latency_ms": 100})
    players = [
        (mmr("a", 1000, 40), 5),
        (mmr("b", 1090, 40), 5),
        (mmr("c", 1050, 150), 5),
        (mmr("d", 1300, 40), 5),
    ]
    snapshot = wave(players)
    result = run_wave(rated_snapshot(snapshot, queue.ruleset), queue)
    (match,) = result.matches
    explained = explain_match(snapshot, queue, result, match.match_id)
    facts = dict(explained.facts)
    assert facts["window"].startswith("the queue's max_distance replaces it: 100 ")
    verdicts = {alt.candidate: alt.verdict for alt in explained.alternatives if alt.player == "a"}
    assert "a as team1: latency 150 ms exceeds max_latency_ms 100 after 5 s" in verdicts["c"]
    assert "diff 300 > max_distance 100" in verdicts["d"]


def test_explain_names_the_block_list_that_kept_a_1v1_pair_apart() -> None:
    queue = profile("optimal", {"rating": "mmr", "max_distance": 100, "block_lists": True})
    blocker = Player("a", (("mmr", 1000),), blocked=("b",))
    snapshot = wave([(blocker, 5), (mmr("b", 1010), 5), (mmr("c", 1050), 5), (mmr("d", 1060), 5)])
    result = run_wave(rated_snapshot(snapshot, queue.ruleset), queue)
    match = next(m for m in result.matches if "a" in {t.seats[0].player_id for t in m.teams})
    explained = explain_match(snapshot, queue, result, match.match_id)
    verdicts = {alt.candidate: alt.verdict for alt in explained.alternatives if alt.player == "a"}
    assert "blocked" in verdicts["b"] and "latency, attribute" not in verdicts["b"], verdicts["b"]


@pytest.mark.parametrize("seed", range(6))
def test_explain_judges_1v1_alternatives_on_the_ratings_optimal_paired(seed: int) -> None:
    """Under a deviation rule a pair is matched on rating - W x deviation: explain's costs
    are those, so it never says optimal missed a better exchange (it is exact here)."""
    queue = profile("optimal", {"rating": "mmr", "deviation": {"weight": 2, "missing": 350}})
    rng = random.Random(seed)
    players = [
        (
            Player(
                f"p{i}",
                (("mmr", rng.randint(1400, 1700)),),
                deviation=rng.choice([None, 0, 50, 200]),
            ),
            rng.randint(0, 60),
        )
        for i in range(16)
    ]
    snapshot = wave(players)
    result = run_wave(snapshot, queue)
    assert result.matches
    for match in result.matches:
        explained = explain_match(snapshot, queue, result, match.match_id, nearest=8)
        for alternative in explained.alternatives:
            assert "the strategy missed it" not in alternative.verdict, alternative.verdict
