"""The grouping's ``fits`` on running totals (matcher/teams/running.py) gives the verdict of
re-judging the whole group (``group_problem`` then ``within``), and counts the same
refusals in the wave's rule tally, on random parties under rules of every leaf kind."""

from __future__ import annotations

import random
from typing import Any

import pytest

import matcher.teams.ruled as ruled
from matcher.core import Player
from matcher.ruleset import parse_rules
from matcher.teams.grouping import GuidedFits
from matcher.teams.model import Party

CLOSED = 1_000_000
RULES: list[dict[str, Any]] = [
    {
        "rating": "mmr",
        "max_spread": {"base": 150, "growth_per_s": 5, "cap": 600},
        "max_latency_ms": {"base": 60, "growth_per_s": 1, "cap": 120, "expansion_age": "newest"},
        "attributes": [{"name": "language", "relax_after_s": 60}],
        "rematch": {"last": 3, "within_s": 900},
        "checks": [
            {
                "name": "near-or-same",
                "kind": "any",
                "optional_after_s": 90,
                "rules": [
                    {"kind": "latency", "max_ms": 50},
                    {"kind": "equal", "attribute": "language"},
                ],
            },
            {
                "name": "snipers",
                "kind": "count",
                "attribute": "class",
                "value": "sniper",
                "max": 2,
                "per": "team",
            },
            {
                "name": "healer",
                "kind": "count",
                "attribute": "class",
                "value": "healer",
                "min": 1,
                "per": "team",
                "optional_after_s": 100,
            },
            {
                "name": "level",
                "kind": "number",
                "attribute": "level",
                "max_spread": 20,
                "min": 3,
                "optional_after_s": 60,
            },
        ],
    },
    {
        "rating": "mmr",
        "attributes": [{"name": "platform", "match": "intersect", "missing": "pc"}],
        "checks": [
            {"name": "mains", "kind": "unique", "attribute": "main"},
            {"name": "tanks", "kind": "count", "attribute": "class", "value": "tank", "max": 3},
            {
                "name": "both",
                "kind": "all",
                "rules": [
                    {"kind": "intersect", "attribute": "platform"},
                    {"kind": "number", "attribute": "level", "max": 55},
                ],
            },
            {"name": "teams-apart", "kind": "disjoint", "attribute": "main"},
        ],
    },
]


def _party(rng: random.Random, number: int) -> Party:
    players = []
    for seat in range(rng.choice([1, 1, 1, 2, 3])):
        pid = f"p{number}.{seat}"
        attributes = {
            "class": rng.choice(["tank", "healer", "sniper", "damage", "sniper,damage"]),
            "language": rng.choice(["de", "fr", "en"]),
            "main": rng.choice(["a", "b", "c", "d", "e", "f", "g", "h"]),
        }
        if rng.random() < 0.8:
            attributes["platform"] = rng.choice(["pc", "pc,xbox", "xbox", "ps, pc"])
        numbers = (("level", float(rng.randint(1, 60))),) if rng.random() < 0.9 else ()
        latency = (("eu", rng.randint(10, 140)),) if rng.random() < 0.9 else ()
        players.append(
            Player(
                pid,
                (("mmr", rng.randint(1200, 1800)),),
                latency_ms=latency,
                attributes=tuple(sorted(attributes.items())),
                numbers=numbers,
            )
        )
    ratings = tuple(p.ratings[0][1] for p in players)
    joined = CLOSED - rng.randint(0, 150_000)
    return Party(f"t{number}", tuple(players), ratings, joined, 0, number)


@pytest.mark.parametrize("raw", RULES, ids=["growing-limits", "sets-and-compounds"])
@pytest.mark.parametrize("roles", [False, True])
def test_running_fits_agree_with_rejudged_groups(
    raw: dict[str, Any], roles: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(35)
    parties = [_party(rng, n) for n in range(400)]
    ids = [p.player_id for party in parties for p in party.players]
    met = {pid: frozenset(rng.sample(ids, 2)) for pid in rng.sample(ids, 60)}
    running_rules, rejudged_rules = parse_rules(raw).counting(), parse_rules(raw).counting()
    args = {"roles": roles, "met": met, "team_count": 2, "match_size": 10}
    running = ruled.rule_fits(running_rules, CLOSED, "eu", **args)
    with monkeypatch.context() as patched:
        patched.setattr(ruled, "compile_rules", lambda *a, **k: None)
        rejudged = ruled.rule_fits(rejudged_rules, CLOSED, "eu", **args)
    assert running is not None and rejudged is not None
    assert isinstance(running, GuidedFits)
    assert not isinstance(rejudged, GuidedFits)

    verdicts = {True: 0, False: 0}
    members: list[Party] = []
    for candidate in parties:
        got, want = running(members, candidate), rejudged(members, candidate)
        assert got == want, ([m.ticket_id for m in members], candidate.ticket_id)
        verdicts[want] += 1
        if want and sum(p.size for p in members) + candidate.size <= 10:
            members.append(candidate)
        if sum(p.size for p in members) >= 10 or rng.random() < 0.05:
            # A new group, sometimes one sharing the old one's first parties (a retry).
            members = members[: rng.randint(0, 2)] if rng.random() < 0.5 else []
    assert verdicts[True] > 20 and verdicts[False] > 20, verdicts
    assert running_rules.tally_stats() == rejudged_rules.tally_stats()
    assert running_rules.tally_stats(), "no named rule refused a group: a weak workload"


#: Rules whose needs a group comes to have: an ``any`` left with its ``equal`` branch, an
#: ``all`` holding an ``equal`` leaf, per-team count bounds with a lower bound.
NEEDING: list[dict[str, Any]] = [
    RULES[0],
    {
        "rating": "mmr",
        "checks": [
            {
                "name": "lang-and-near",
                "kind": "all",
                "rules": [
                    {"kind": "equal", "attribute": "language"},
                    {"kind": "latency", "max_ms": 130},
                ],
            },
            {
                "name": "tanks",
                "kind": "count",
                "attribute": "class",
                "value": "tank",
                "min": 1,
                "max": 2,
                "per": "team",
            },
        ],
    },
]


@pytest.mark.parametrize("raw", NEEDING, ids=["any-and-bounds", "all-and-bounds"])
def test_a_party_lacking_what_the_group_needs_is_refused(raw: dict[str, Any]) -> None:
    """The grouping jumps over the parties a group's needs do not admit without judging
    them: every one of them must be a party ``fits`` refuses, and the needs must name
    some, or the jump would never happen."""
    rng = random.Random(36)
    parties = [_party(rng, n) for n in range(400)]
    fits = ruled.rule_fits(parse_rules(raw), CLOSED, "eu", roles=False, match_size=10)
    assert isinstance(fits, GuidedFits)
    skipped = 0
    kinds: set[str] = set()
    members: list[Party] = []
    for candidate in parties:
        needs = fits.needs(members)
        kinds.update(need.kind for need in needs)
        fitting = fits(members, candidate)
        if not all(need.admits(candidate) for need in needs):
            assert not fitting, ([m.ticket_id for m in members], candidate.ticket_id, needs)
            skipped += 1
        if fitting:
            members.append(candidate)
        if sum(p.size for p in members) >= 10 or rng.random() < 0.03:
            members = []
    assert skipped > 20 and kinds == {"carries", "only", "latency"}, (skipped, kinds)
