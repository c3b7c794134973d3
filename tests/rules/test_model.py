"""The rule model: parsing with one-line errors, expansion over seconds waited, the
match predicate, the never-satisfiable ticket reasons, and settings that refuse bad rules."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import streams.settings
from matcher.core import Player, QueueProfile, Ticket
from matcher.rules import Expansion, parse_rules
from matcher.rules.check import lineup_problem, ticket_rule_problem, waits_of
from matcher.ruleset import QueueRuleSet, Waits
from streams.settings import SettingsError, load_settings


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"max_spred": 1}, "rules.max_spred: unknown rule"),
        ({"rating": 3}, "rules.rating: must be a rating name"),
        ({"max_spread": -1}, "rules.max_spread: must be a finite number >= 0"),
        ({"max_spread": {"growth_per_s": 1}}, "rules.max_spread.base: required"),
        ({"max_spread": {"base": 1, "growth_per_s": 2}}, "rules.max_spread.cap: required"),
        ({"max_spread": {"base": 9, "cap": 2}}, "rules.max_spread.cap: must be >= base"),
        ({"max_team_gap": {"base": 1, "grow": 2}}, "rules.max_team_gap.grow: unknown field"),
        (
            {"max_latency_ms": {"base": 50, "steps": [{"after_s": 10, "value": 40}]}},
            "rules.max_latency_ms.steps[0].value: must be >= base (40 < 50)",
        ),
        ({"max_spread": {"base": 1, "steps": [{"after": 1}]}}, "steps[0]: must be a table"),
        ({"attributes": {"name": "x"}}, "rules.attributes: must be a list"),
        ({"attributes": [{"name": "x", "match": "like"}]}, "rules.attributes[0].match: must be"),
        ({"attributes": [{"nam": "x"}]}, "rules.attributes[0].nam: unknown field"),
        ({"attributes": [{"name": "x"}, {"name": "x"}]}, "rules.attributes[1].name: 'x' has"),
        ({"attributes": [{"name": "x", "relax_after_s": -1}]}, "relax_after_s: must be a finite"),
        ({"rematch": {"last": 3}}, "rules.rematch: must be a table {last, within_s}"),
        ({"rematch": {"last": 0, "within_s": 60}}, "rules.rematch.last: must be an integer"),
        ({"rematch": {"last": 2, "within_s": 0}}, "rules.rematch.within_s: must be > 0"),
        (
            {"max_spread": {"base": 1, "cap": 2, "expansion_age": "eldest"}},
            "rules.max_spread.expansion_age: must be 'oldest' or 'newest' (got 'eldest')",
        ),
        (
            {"attributes": [{"name": "x", "relax_after_s": 5, "expansion_age": 1}]},
            "rules.attributes[0].expansion_age: must be 'oldest' or 'newest' (got 1)",
        ),
    ],
)
def test_bad_rules_are_one_line_naming_the_field(raw: dict, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_rules(raw)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_steps_and_growth_expand_up_to_the_cap() -> None:
    steps = parse_rules(
        {"max_spread": {"base": 100, "steps": [{"after_s": 10, "value": 200}], "cap": 150}}
    ).max_spread
    assert steps is not None
    assert [steps.at(s) for s in (0, 9.99, 10, 1e6)] == [100, 100, 150, 150]
    growth = Expansion(100, growth_per_s=5, cap=400)
    assert [growth.at(s) for s in (0, 20, 60, 1e9)] == [100, 200, 400, 400]
    assert growth.widest == 400 and Expansion(100).widest == 100
    assert Expansion(3).cap == math.inf


@given(
    base=st.floats(0, 1e4),
    growth=st.floats(0, 100),
    cap_extra=st.floats(0, 1e4),
    a=st.floats(0, 1e5),
    b=st.floats(0, 1e5),
)
def test_a_limit_never_shrinks_with_the_wait_and_never_passes_its_cap(
    base: float, growth: float, cap_extra: float, a: float, b: float
) -> None:
    limit = Expansion(base, growth_per_s=growth, cap=base + cap_extra)
    low, high = sorted((a, b))
    assert limit.at(low) <= limit.at(high) <= limit.cap


def test_the_match_predicate_names_the_broken_limit() -> None:
    rules = QueueRuleSet(
        max_team_gap=Expansion(50),
        max_latency_ms=Expansion(80, growth_per_s=2, cap=120),
    )
    assert "team rating gap 100" in (lineup_problem(rules, [[100, 200], [200, 300]], 0) or "")
    assert lineup_problem(rules, [[100, 300], [200, 200]], 0, [79, None]) is None
    assert "latency 100 ms" in (lineup_problem(rules, [[1], [1]], 5, [100]) or "")
    assert lineup_problem(rules, [[1], [1]], 10, [100]) is None


def test_a_ticket_that_can_never_fit_gets_a_reason() -> None:
    rules = {"rating": "mmr", "max_spread": {"base": 100, "growth_per_s": 1, "cap": 300}}
    profile = QueueProfile("q", "rebalance", ("m",), team_size=2, rules=rules)
    party = (Player("a", (("mmr", 1000),)), Player("b", (("mmr", 1400),)))
    assert ticket_rule_problem(Ticket("t", "q", "eu", party, 0), profile) == (
        "party's rating spread 400 exceeds max_spread's cap 300"
    )
    unrated = (Player("c", (("elo", 1000),)),)
    assert ticket_rule_problem(Ticket("t", "q", "eu", unrated, 0), profile) == (
        "player c has no 'mmr' rating"
    )
    assert ticket_rule_problem(Ticket("t", "q", "eu", party[:1], 0), profile) is None


def test_a_party_that_can_never_fit_is_named_without_a_rating_key() -> None:
    """A role queue has no rating key: a seat reads the role's rating. A party whose
    nearest ratings are still beyond max_spread's cap never fits."""
    rules = {"max_spread": {"base": 100, "growth_per_s": 1, "cap": 300}}
    profile = QueueProfile("q", "rebalance", ("m",), team_size=2, rules=rules)
    apart = (Player("w1", (("tank", 1500),)), Player("w2", (("dps", 1900),)))
    assert ticket_rule_problem(Ticket("t", "q", "eu", apart, 0), profile) == (
        "party's rating spread 400 (the least, whichever rating seats each player) exceeds "
        "max_spread's cap 300"
    )
    flexible = (Player("a", (("dps", 1500), ("tank", 1900))), Player("b", (("dps", 1850),)))
    assert ticket_rule_problem(Ticket("t", "q", "eu", flexible, 0), profile) is None
    assert ticket_rule_problem(Ticket("t", "q", "eu", apart[:1], 0), profile) is None


def test_settings_check_rules_and_their_strategy(tmp_path: Path) -> None:
    config = tmp_path / "rules.toml"
    config.write_text(
        '[[queues]]\nname = "3v3"\nstrategy = "rebalance"\nteam_size = 3\n'
        '[queues.rules]\nrating = "mmr"\nmax_spread = {base = 300, growth_per_s = 10}\n'
    )
    with pytest.raises(SettingsError) as caught:
        load_settings(config)
    assert str(caught.value) == (
        "queues.0: queue '3v3': rules.max_spread.cap: required with growth_per_s "
        "(a limit must stop growing)"
    )
    config.write_text(
        config.read_text().replace("growth_per_s = 10", "growth_per_s = 10, cap = 900")
    )
    settings = load_settings(config)
    assert settings.profiles()["3v3"].rules["rating"] == "mmr"
    duel = {"name": "1v1", "strategy": "optimal", "rules": {"max_spread": 100}}
    with pytest.raises(
        SettingsError, match=r"queue '1v1': rules.max_spread: not honoured by strategy 'optimal'"
    ):
        load_settings(queues=[duel])
    ladder = {"name": "1v1", "strategy": "ladder-v2.1", "rules": {"max_distance": 100}}
    with pytest.raises(SettingsError, match=r"rules.max_distance: not honoured by strategy"):
        load_settings(queues=[ladder])


def test_a_rules_table_changes_the_fingerprint_and_none_keeps_the_old_one() -> None:
    plain = load_settings(queues=[{"name": "3v3", "strategy": "rebalance", "team_size": 3}])
    empty = load_settings(
        queues=[{"name": "3v3", "strategy": "rebalance", "team_size": 3, "rules": {}}]
    )
    ruled = load_settings(
        queues=[
            {"name": "3v3", "strategy": "rebalance", "team_size": 3, "rules": {"max_spread": 1}}
        ]
    )
    assert plain.config_fingerprint() == empty.config_fingerprint()
    assert ruled.config_fingerprint() != plain.config_fingerprint()


def test_attribute_rules_agree_relax_and_reject_a_party_at_odds_with_itself() -> None:
    rules = parse_rules(
        {
            "attributes": [
                {"name": "language", "relax_after_s": 60},
                {"name": "platform", "match": "intersect"},
            ]
        }
    )
    de, fr = (("language", "de"),), (("language", "fr"),)
    pc, both = (("platform", "pc"),), (("platform", "pc,xbox"),)
    players = [
        Player("a", (("r", 1),), attributes=de + pc),
        Player("b", (("r", 1),), attributes=fr + both),
    ]
    assert lineup_problem(rules, [[1], [1]], 10, (), players) == (
        "players disagree on 'language' (de, fr) after 10 s"
    )
    assert lineup_problem(rules, [[1], [1]], 60, (), players) is None  # relaxed; pc shared
    xbox = Player("c", (("r", 1),), attributes=(("platform", "xbox"),))
    assert "disagree on 'platform'" in (
        lineup_problem(rules, [[1], [1]], 99, (), [players[0], xbox]) or ""
    )
    profile = QueueProfile(
        "q", "rebalance", ("m",), team_size=2, rules={"attributes": [{"name": "platform"}]}
    )
    odd = (players[0], xbox)
    assert ticket_rule_problem(Ticket("t", "q", "eu", odd, 0), profile) == (
        "party: players disagree on 'platform' (pc, xbox)"
    )


def test_a_profile_parses_its_rules_when_built() -> None:
    assert QueueProfile("q", "optimal", ("m",), rules={"rating": "mmr"}).ruleset.rating == "mmr"
    assert QueueProfile("q", "optimal", ("m",)).ruleset.empty
    with pytest.raises(ValueError, match=r"rules.max_sprad: unknown rule"):
        QueueProfile("q", "optimal", ("m",), rules={"max_sprad": 1})


def test_whose_wait_widens_a_limit_is_each_rules_expansion_age() -> None:
    """The live checker's predicate reads the oldest ticket's wait by default, the newest
    one's where a rule says so; a match of a fresh and a long-waiting ticket shows both."""
    latency = {"base": 50, "growth_per_s": 5, "cap": 120}
    oldest = parse_rules({"max_latency_ms": latency, "max_spread": {"base": 100, "cap": 100}})
    newest = parse_rules({"max_latency_ms": {**latency, "expansion_age": "newest"}})
    assert oldest.max_latency_ms is not None and oldest.max_latency_ms.expansion_age == "oldest"
    waits = waits_of(40_000, [39_000, 4_000])  # a fresh ticket and one of 36 s
    assert waits == Waits(1.0, 36.0)
    players = [Player("fresh", ()), Player("tail", ())]
    assert lineup_problem(oldest, [[1500], [1500]], waits, [30, 105], players) is None
    assert lineup_problem(newest, [[1500], [1500]], waits, [30, 105], players) == (
        "latency 105 ms exceeds max_latency_ms 55 after 1 s"
    )
    # One wait (the older callers' float) is both ages.
    assert lineup_problem(newest, [[1500], [1500]], 36.0, [30, 105], players) is None


def test_expansion_age_is_in_the_fingerprint_only_when_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Under rebalance's revision before ADR 0175 (3), an unset expansion_age leaves the
    # fingerprint of the release before it; the new default changes it only by the revision.
    monkeypatch.setattr(streams.settings, "decision_revision", lambda name: 3)

    def fingerprint(**age: str) -> str:
        limit = {"base": 50, "growth_per_s": 5, "cap": 120, **age}
        queue = {"name": "3v3", "strategy": "rebalance", "team_size": 3}
        return load_settings(
            queues=[{**queue, "rules": {"max_latency_ms": limit}}]
        ).config_fingerprint()

    unset = fingerprint()
    assert unset == "648ddddf84fb889d"  # computed by 8456cde, before expansion_age
    assert fingerprint(expansion_age="newest") != unset
    assert fingerprint(expansion_age="oldest") != unset  # what was written is recorded
    with pytest.raises(SettingsError, match="expansion_age: must be 'oldest' or 'newest'"):
        fingerprint(expansion_age="first")


def test_the_live_checker_judges_a_match_by_each_rules_expansion_age() -> None:
    from matcher.core import Match, Seat, Team, WaitingTicket, WaveResult, WaveSnapshot
    from matcher.rules.check import wave_rule_problems

    def ticket(name: str, latency: int, joined_at_ms: int) -> WaitingTicket:
        player = Player(name, (("mmr", 1500),), latency_ms=(("eu", latency),))
        return WaitingTicket(Ticket(name, "1v1", "eu", (player,), joined_at_ms), 0)

    snapshot = WaveSnapshot(
        "1v1", "eu", "w", 1, 7, 40_000, (ticket("fresh", 30, 39_000), ticket("tail", 105, 4_000))
    )
    teams = tuple(Team(f"team{i}", (Seat(t, t, "", 1500),)) for i, t in ((1, "fresh"), (2, "tail")))
    result = WaveResult("optimal", (Match("m", teams, "m", "s", "c"),), ())
    latency = {"base": 50, "growth_per_s": 5, "cap": 120}

    def problems(**age: str) -> list[str]:
        rules = {"rating": "mmr", "max_latency_ms": {**latency, **age}}
        return wave_rule_problems(
            snapshot, QueueProfile("1v1", "optimal", ("m",), rules=rules), result
        )

    assert problems() == []  # the tail's 36 s allow 120 ms
    assert problems(expansion_age="newest") == [
        "match m: latency 105 ms exceeds max_latency_ms 55 after 1 s"
    ]
