"""``optimal`` under a queue's named ``checks`` (issue 35, ADR 0194) against brute force on
small waves: the vector pair predicate equals :meth:`matcher.rulelogic.Check.problem` on
every pair; every published pair passes the checks (the live checkers agree); no legal
pair is left among the unmatched; and the result has the most pairs, then the least
summed score, among matchings of legal pairs. The checkers fail a result that ignores a
check, and do not call a pair the checks forbid "left unmatched"."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import pytest

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.duel.checks import duel_result_problems
from matcher.duel.pair_checks import pair_checks
from matcher.rulelogic import parse_checks
from matcher.rules.check import rated_snapshot, wave_rule_problems
from matcher.strategies import check_rules, run_wave

CLOSED_AT_MS = 600_000
WAVES = 25
LEAVES: tuple[dict[str, object], ...] = (
    {"kind": "equal", "attribute": "language"},
    {"kind": "equal", "attribute": "language", "per": "team"},
    {"kind": "unique", "attribute": "class"},
    {"kind": "unique", "attribute": "class", "per": "team"},
    {"kind": "intersect", "attribute": "platform"},
    {"kind": "intersect", "attribute": "platform", "per": "team"},
    {"kind": "disjoint", "attribute": "faction"},
    {"kind": "count", "attribute": "class", "value": "sniper", "max": 1},
    {"kind": "count", "attribute": "platform", "value": "pc", "min": 1},
    {"kind": "count", "attribute": "class", "value": "healer", "min": 1, "per": "team"},
    {"kind": "count", "attribute": "class", "value": "sniper", "max": 0, "per": "team"},
    {"kind": "number", "attribute": "level", "max_spread": 4},
    {"kind": "number", "attribute": "level", "min": 3, "max": 10},
    {"kind": "number", "attribute": "level", "max_spread": 2, "min": 2, "per": "team"},
    {"kind": "latency", "max_ms": 90},
)


def random_rule(rng: random.Random, depth: int = 0) -> dict[str, object]:
    """A leaf, or (less often deeper) an ``all`` / ``any`` / ``not`` over random rules."""
    if depth < 2 and rng.random() < 0.35:
        kind = rng.choice(("all", "any", "not"))
        if kind == "not":
            rule: dict[str, object] = {"kind": "not", "rule": random_rule(rng, depth + 1)}
        else:
            rule = {"kind": kind, "rules": [random_rule(rng, depth + 1) for _ in range(2)]}
    else:
        rule = dict(rng.choice(LEAVES))
    if rng.random() < 0.25:
        rule["optional_after_s"] = rng.choice((10, 25))
    return rule


def random_checks(rng: random.Random) -> list[dict[str, object]]:
    return [{"name": f"c{i}", **random_rule(rng)} for i in range(rng.randint(1, 2))]


def random_player(rng: random.Random, pid: str) -> Player:
    attributes = [
        ("class", rng.choice(("tank", "healer", "sniper", "dps"))),
        ("faction", rng.choice(("red", "blue"))),
        ("language", rng.choice(("de", "fr"))),
        ("platform", rng.choice(("pc", "xbox", "pc,crossplay", "xbox,crossplay"))),
    ]
    # Some players give no value: rules must treat an absent value as the definition does.
    kept = tuple(sorted(a for a in attributes if rng.random() < 0.85))
    numbers = (("level", float(rng.randint(1, 12))),) if rng.random() < 0.85 else ()
    latency = (("eu", rng.choice((20, 60, 100))),) if rng.random() < 0.85 else ()
    rating = rng.choice((1400, 1450, 1500, 1550, 1600, 1800))
    return Player(pid, (("mmr", rating),), latency_ms=latency, attributes=kept, numbers=numbers)


def wave(seed: int, size: int | None = None) -> WaveSnapshot:
    rng = random.Random(seed)
    tickets = tuple(
        WaitingTicket(
            Ticket(f"t{i}", "q", "eu", (random_player(rng, f"p{i}"),), CLOSED_AT_MS - wait_ms),
            0,
        )
        for i in range(size or rng.randint(2, 8))
        for wait_ms in (rng.choice((0, 5, 15, 30)) * 1000,)
    )
    return WaveSnapshot("q", "eu", "w", 1, seed, CLOSED_AT_MS, tickets)


def profile_of(checks: list[dict[str, object]], max_distance: int = 250) -> QueueProfile:
    rules = {"rating": "mmr", "max_distance": max_distance, "checks": checks}
    profile = QueueProfile("q", "optimal", ("m",), rules=rules)
    check_rules(profile)  # accepted at start
    return profile


def pair_ok(profile: QueueProfile, a: WaitingTicket, b: WaitingTicket) -> bool:
    """The definition: the rules' own predicate on the lineup ``[[a], [b]]``."""
    rules = profile.ruleset
    pa, pb = a.ticket.players[0], b.ticket.players[0]
    limit = rules.max_distance
    assert limit is not None
    older = min(a.ticket.joined_at_ms, b.ticket.joined_at_ms)
    if abs((pa.rating("mmr") or 0) - (pb.rating("mmr") or 0)) > limit.at(
        (CLOSED_AT_MS - older) / 1000
    ):
        return False
    newest = (CLOSED_AT_MS - max(a.ticket.joined_at_ms, b.ticket.joined_at_ms)) / 1000
    latencies = [[pa.latency_to("eu")], [pb.latency_to("eu")]]
    return all(check.problem([[pa], [pb]], latencies, newest) is None for check in rules.checks)


def best(tickets: Sequence[WaitingTicket], ok: dict[tuple[int, int], bool]) -> tuple[int, int]:
    """(most pairs, least summed diff**2 among those) over the legal pairings of
    ``tickets``, by exhaustion. Every ticket waited 0 waves: the score is diff**2."""
    return _best(tickets, ok, tuple(range(len(tickets))))


def _best(
    tickets: Sequence[WaitingTicket], ok: dict[tuple[int, int], bool], left: tuple[int, ...]
) -> tuple[int, int]:
    if len(left) < 2:
        return 0, 0
    first, rest = left[0], left[1:]
    pairs, cost = _best(tickets, ok, rest)  # the first sits out
    found = (pairs, -cost)
    for other in rest:
        if not ok[first, other]:
            continue
        more, more_cost = _best(tickets, ok, tuple(x for x in rest if x != other))
        ra = tickets[first].ticket.players[0].rating("mmr") or 0
        rb = tickets[other].ticket.players[0].rating("mmr") or 0
        found = max(found, (more + 1, -(more_cost + (ra - rb) ** 2)))
    return found[0], -found[1]


@pytest.mark.parametrize("seed", range(40))
def test_the_vector_predicate_is_the_rules_definition(seed: int) -> None:
    rng = random.Random(seed)
    checks = parse_checks(random_checks(rng))
    players = [random_player(rng, f"p{i}") for i in range(12)]
    waited = np.array([rng.choice((0.0, 10.0, 24.9, 25.0, 40.0)) for _ in players])
    compiled = pair_checks(checks, players, "eu", waited)
    u, v = (x.ravel() for x in np.meshgrid(np.arange(12), np.arange(12), indexing="ij"))
    expected = [
        all(
            check.problem(
                [[players[a]], [players[b]]],
                [[players[a].latency_to("eu")], [players[b].latency_to("eu")]],
                float(min(waited[a], waited[b])),
            )
            is None
            for check in checks
        )
        for a, b in zip(u.tolist(), v.tolist(), strict=True)
    ]
    assert compiled.allowed(u, v).tolist() == expected
    half = np.arange(0, 12, 2)  # the subset a tier works on keeps each player's columns
    sub = compiled.subset(half)
    su, sv = (x.ravel() for x in np.meshgrid(np.arange(6), np.arange(6), indexing="ij"))
    assert sub.allowed(su, sv).tolist() == [
        expected[int(half[a]) * 12 + int(half[b])] for a, b in zip(su, sv, strict=True)
    ]


@pytest.mark.parametrize("seed", range(WAVES))
def test_optimal_is_the_most_pairs_then_least_score_among_legal_pairs(seed: int) -> None:
    rng = random.Random(1000 + seed)
    profile = profile_of(random_checks(rng), rng.choice((100, 250, 1000)))
    snapshot = rated_snapshot(wave(seed), profile.ruleset)
    result = run_wave(snapshot, profile)
    assert duel_result_problems(snapshot, profile, result) == []
    assert wave_rule_problems(snapshot, profile, result) == []
    tickets = snapshot.tickets
    index = {w.ticket.ticket_id: i for i, w in enumerate(tickets)}
    ok = {
        (i, j): pair_ok(profile, a, b)
        for i, a in enumerate(tickets)
        for j, b in enumerate(tickets)
        if i != j
    }
    score = 0
    for match in result.matches:
        a, b = (index[team.seats[0].ticket_id] for team in match.teams)
        assert ok[a, b], (seed, match.match_id)
        diff = match.teams[0].seats[0].rating - match.teams[1].seats[0].rating
        score += diff * diff
    assert (len(result.matches), score) == best(tickets, ok), seed
    unmatched = [index[t] for t in result.unmatched]
    assert not any(ok[a, b] for a in unmatched for b in unmatched if a != b), seed


LANGUAGE = [{"name": "language", "kind": "equal", "attribute": "language"}]


def two_speakers(languages: tuple[str, str], joined: tuple[int, int] = (0, 0)) -> WaveSnapshot:
    tickets = tuple(
        WaitingTicket(
            Ticket(
                f"t{i}",
                "q",
                "eu",
                (Player(f"p{i}", (("mmr", 1500),), attributes=(("language", language),)),),
                CLOSED_AT_MS - ago,
            ),
            0,
        )
        for i, (language, ago) in enumerate(zip(languages, joined, strict=True))
    )
    return WaveSnapshot("q", "eu", "w", 1, 3, CLOSED_AT_MS, tickets)


def test_the_checkers_fail_a_result_that_ignores_a_check() -> None:
    snapshot = two_speakers(("de", "fr"))
    ignoring = run_wave(snapshot, profile_of([]))  # the same wave without the check: a pair
    assert len(ignoring.matches) == 1
    profile = profile_of(LANGUAGE)
    problems = wave_rule_problems(snapshot, profile, ignoring)
    assert problems and "rule 'language'" in problems[0]
    assert run_wave(snapshot, profile).matches == ()


def test_a_pair_the_checks_forbid_is_not_left_unmatched() -> None:
    profile = profile_of(LANGUAGE)
    forbidden = two_speakers(("de", "fr"))
    result = run_wave(forbidden, profile)
    assert result.matches == () and duel_result_problems(forbidden, profile, result) == []
    # The completeness check does see a legal pair left out: both speak German.
    allowed = two_speakers(("de", "de"))
    assert duel_result_problems(allowed, profile, result_leaving_out(allowed, result))


def result_leaving_out(snapshot: WaveSnapshot, template):  # type: ignore[no-untyped-def]
    """``template`` (an empty result) with ``snapshot``'s tickets unmatched."""
    import dataclasses

    unmatched = tuple(w.ticket.ticket_id for w in snapshot.tickets)
    return dataclasses.replace(template, unmatched=unmatched)


def test_a_check_turns_optional_by_the_pairs_newest_wait() -> None:
    optional = [{**LANGUAGE[0], "optional_after_s": 20}]
    profile = profile_of(optional)
    assert run_wave(two_speakers(("de", "fr"), (30_000, 10_000)), profile).matches == ()
    relaxed = two_speakers(("de", "fr"), (30_000, 20_000))
    result = run_wave(relaxed, profile)
    assert len(result.matches) == 1 and duel_result_problems(relaxed, profile, result) == []


def test_a_large_wave_honours_the_checks() -> None:
    """Above the exact and the pre-pairing limits (the sparse relaxation, its completion,
    the twins): still no pair the checks forbid, and still maximal (the live checker's
    completeness)."""
    checks = [
        {"name": "language", "kind": "equal", "attribute": "language", "optional_after_s": 25},
        {"name": "level", "kind": "number", "attribute": "level", "max_spread": 4},
    ]
    profile = profile_of(checks)
    snapshot = rated_snapshot(wave(7, size=1_200), profile.ruleset)
    result = run_wave(snapshot, profile)
    assert len(result.matches) > 200
    assert duel_result_problems(snapshot, profile, result) == []
    assert wave_rule_problems(snapshot, profile, result) == []
