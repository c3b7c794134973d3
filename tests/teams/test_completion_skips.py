"""Completion skips the subsets whose first parties already break a rule that more
players never mend, and charges its budget for each: it finds the very match the
one-by-one search finds, and runs out of budget where that search runs out."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import matcher.teams.complete as completion
from matcher.core import Player
from matcher.ruleset import parse_rules
from matcher.teams.complete import complete
from matcher.teams.imbalance import Imbalance
from matcher.teams.model import Lineup, Party, TeamShape
from matcher.teams.ruled import group_admission, lineup_rule_problem

CLOSED_MS = 600_000
LANGUAGES = ("de", "fr", "en")
PLATFORMS = ("pc", "pc,crossplay", "xbox,crossplay", "ps5")

#: Rules a group of more players can only break more, each limit widening with the wait
#: of the match's newest or oldest ticket (the two ways a wait can loosen a limit).
RULE_MENU: dict[str, object] = {
    "max_spread": {"base": 100, "growth_per_s": 2, "cap": 400},
    "max_spread_newest": {"base": 150, "steps": [{"after_s": 200, "value": 300}]},
    "max_latency_ms": {"base": 60, "growth_per_s": 0.2, "cap": 120},
    "language": {"name": "language", "match": "equal", "relax_after_s": 300},
    "platform": {"name": "platform", "match": "intersect"},
    "pool": {"name": "pool", "missing": "normal"},
    "level": {"name": "level", "kind": "number", "attribute": "level", "max_spread": 5},
    "snipers": {"name": "snipers", "kind": "count", "attribute": "class", "value": "sniper",
                "max": 2, "optional_after_s": 250},
    "either": {"name": "either", "kind": "any", "rules": [
        {"kind": "equal", "attribute": "language"}, {"kind": "latency", "max_ms": 50}]},
}  # fmt: skip


def _rules(chosen: Sequence[str]) -> dict[str, object]:
    raw: dict[str, object] = {"rating": "mmr"}
    attributes, checks = [], []
    for name in chosen:
        rule = RULE_MENU[name]
        if name == "max_spread_newest":
            raw["max_spread"] = {**rule, "expansion_age": "newest"}  # type: ignore[dict-item]
        elif name in ("max_spread", "max_latency_ms"):
            raw[name] = rule
        elif name in ("language", "platform", "pool"):
            attributes.append(rule)
        else:
            checks.append(rule)
    if attributes:
        raw["attributes"] = attributes
    if checks:
        raw["checks"] = checks
    return raw


def _party(number: int, draw: st.DrawFn) -> Party:
    players = []
    for seat in range(draw(st.sampled_from((1, 1, 1, 2, 3)))):
        attributes = [
            ("class", draw(st.sampled_from(("sniper", "medic", "scout")))),
            ("language", draw(st.sampled_from(LANGUAGES))),
            ("level", str(draw(st.integers(10, 20)))),
            ("platform", draw(st.sampled_from(PLATFORMS))),
        ]
        if draw(st.booleans()):
            attributes.append(("pool", "low"))
        players.append(
            Player(
                f"p{number}.{seat}",
                (("mmr", draw(st.integers(1400, 1700))),),
                latency_ms=(("eu", draw(st.integers(20, 110))),),
                attributes=tuple(sorted(attributes)),
            )
        )
    ratings = tuple(player.ratings[0][1] for player in players)
    joined = CLOSED_MS - draw(st.integers(0, 400)) * 1000
    return Party(f"t{number}", tuple(players), ratings, joined, draw(st.integers(0, 3)), number)


@st.composite
def waves(draw: st.DrawFn) -> tuple[list[Party], dict[str, frozenset[str]], dict[str, object]]:
    parties = [_party(number, draw) for number in range(draw(st.integers(4, 14)))]
    ids = [player.player_id for party in parties for player in party.players]
    met: dict[str, set[str]] = {}
    for _ in range(draw(st.integers(0, 6))):
        one, other = draw(st.sampled_from(ids)), draw(st.sampled_from(ids))
        if one != other:
            met.setdefault(one, set()).add(other)
            met.setdefault(other, set()).add(one)
    chosen = draw(st.lists(st.sampled_from(sorted(RULE_MENU)), min_size=1, max_size=4, unique=True))
    return parties, {k: frozenset(v) for k, v in met.items()}, _rules(chosen)


def _completion(
    parties: Sequence[Party],
    shape: TeamShape,
    raw_rules: dict[str, object],
    met: dict[str, frozenset[str]],
    skipping: bool,
) -> tuple[list[Lineup], int]:
    """What completion finds, and how many groups ``admit`` judged."""
    rules = parse_rules(raw_rules)
    admit, hopeless = group_admission(rules, CLOSED_MS, "eu", split_free_ratings=True, met=met)
    judged = [0]

    def counted(group: Sequence[Party]) -> bool:
        judged[0] += 1
        return admit(group)

    def accept(group: Sequence[Party], lineup: Lineup) -> bool:
        return lineup_rule_problem(rules, group, lineup, CLOSED_MS, "eu", met) is None

    found = complete(
        parties, [], shape, Imbalance(), accept, counted, hopeless=hopeless if skipping else None
    )
    return found, judged[0]


# The budget is set anew for each example: the fixture's one undo at the end suffices.
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(wave=waves(), team_size=st.integers(2, 3), budget=st.integers(1, 400))
def test_skipping_finds_what_the_one_by_one_search_finds(
    wave: tuple[list[Party], dict[str, frozenset[str]], dict[str, object]],
    team_size: int,
    budget: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parties, met, raw_rules = wave
    monkeypatch.setattr(completion, "MAX_SPLITS", budget)
    shape = TeamShape(2, team_size, team_size)
    one_by_one, judged_each = _completion(parties, shape, raw_rules, met, skipping=False)
    skipping, judged_skipping = _completion(parties, shape, raw_rules, met, skipping=True)
    assert skipping == one_by_one
    assert judged_skipping <= judged_each


def test_a_disagreeing_start_is_skipped_whole_and_charged_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The two longest-waiting parties speak different languages: every subset holding
    both (C(10, 2) = 45 of them for 2v2 among 12 solos) is one skip, not 45 judgments,
    and a budget ending inside that run ends the search as it did."""

    def solo(number: int, language: str) -> Party:
        player = Player(f"p{number}", (("mmr", 1500),), attributes=(("language", language),))
        return Party(f"t{number}", (player,), (1500,), CLOSED_MS - 1000, 5 - number // 6, number)

    parties = [solo(0, "de"), solo(1, "fr"), *(solo(n, "de") for n in range(2, 12))]
    rules = {"rating": "mmr", "attributes": [RULE_MENU["language"]]}
    shape = TeamShape(2, 2, 2)
    found, judged = _completion(parties, shape, rules, {}, skipping=True)
    found_each, judged_each = _completion(parties, shape, rules, {}, skipping=False)
    assert found == found_each and len(found) == 2  # eleven speak German
    assert judged < judged_each
    monkeypatch.setattr(completion, "MAX_SPLITS", 40)  # runs out among the 45
    assert _completion(parties, shape, rules, {}, skipping=True)[0] == []
    assert _completion(parties, shape, rules, {}, skipping=False)[0] == []
    monkeypatch.setattr(completion, "MAX_SPLITS", 50)  # the 45, then p0, p2, p3, p4
    assert (
        _completion(parties, shape, rules, {}, skipping=True)[0]
        == _completion(parties, shape, rules, {}, skipping=False)[0]
        != []
    )
