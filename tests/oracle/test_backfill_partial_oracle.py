"""Partial backfill fills (``partial_backfill``, docs/adr/0192) against brute force on
small waves: over every way the waiting tickets (whole parties) can take the session's
open slots, the fill the fold makes is legal under the queue's rules, leaves no legal
candidate out while a slot it fits stays open (the checker's promise), and seats as many
players as the most any legal fill seats whenever its search was exhaustive."""

from __future__ import annotations

import random
from itertools import product

from matcher.core import Player, Seat, Team, Ticket
from matcher.queue.backfill_checks import backfill_problems
from matcher.queue.backfill_choice import choose_fill, seated_under
from matcher.queue.backfill_partial import choose_partial
from matcher.queue.lifecycle import BackfillRequested, BackfillTeam
from matcher.ruleset import QueueRuleSet, parse_rules

NOW = 100_000
WAVES = 120
RULES: tuple[dict[str, object], ...] = (
    {},
    {"max_spread": 250},
    {"max_team_gap": 60},
    {"attributes": [{"name": "language", "match": "equal"}]},
    {"max_spread": 300, "max_team_gap": 80, "attributes": [{"name": "language"}]},
)


def wave(seed: int) -> tuple[BackfillRequested, list[Ticket], QueueRuleSet]:
    rng = random.Random(seed)
    teams = tuple(
        BackfillTeam(
            name,
            tuple((f"{name}{i}", rng.randint(1300, 1700)) for i in range(rng.randint(0, 2))),
            rng.randint(0 if n else 1, 3),
        )
        for n, name in enumerate(("red", "blue", "green")[: rng.randint(1, 3)])
    )
    tickets = []
    for i in range(rng.randint(1, 6)):
        language = rng.choice(("de", "fr", None))
        players = tuple(
            Player(
                f"t{i}.{k}",
                (("mmr", rng.randint(1200, 1800)),),
                attributes=(("language", language),) if language else (),
            )
            for k in range(rng.choice((1, 1, 1, 2, 3)))
        )
        tickets.append(Ticket(f"t{i}", "q", "eu", players, 1_000 * rng.randint(1, 90)))
    tickets.sort(key=lambda t: t.joined_at_ms)
    rules = parse_rules({"rating": "mmr", **rng.choice(RULES)})
    return BackfillRequested("s", "q", "eu", teams, 0), tickets, rules


def seats(request: BackfillRequested, placed: dict[str, list[Ticket]], rules: QueueRuleSet):
    return tuple(
        Team(
            team.name,
            tuple(
                Seat(t.ticket_id, p.player_id, "", seated_under(p, rules) or 0)
                for t in placed[team.name]
                for p in t.players
            ),
        )
        for team in request.teams
        if placed[team.name]
    )


def most_seated(request: BackfillRequested, tickets: list[Ticket], rules: QueueRuleSet) -> int:
    """Brute force: every ticket out or on one team, legal under the rules (the checker
    without the promise), the most players seated."""
    names = [team.name for team in request.teams]
    queued = {t.ticket_id: t for t in tickets}
    best = 0
    for choice in product([None, *names], repeat=len(tickets)):
        placed: dict[str, list[Ticket]] = {name: [] for name in names}
        for ticket, name in zip(tickets, choice, strict=True):
            if name is not None:
                placed[name].append(ticket)
        count = sum(len(t.players) for group in placed.values() for t in group)
        if count <= best:
            continue
        filled = seats(request, placed, rules)
        if not backfill_problems(request, filled, queued, NOW, 0, rules, waiting=[]):
            best = count
    return best


def test_partial_fills_are_legal_maximal_and_as_large_as_any_legal_fill() -> None:
    compared, partial = 0, 0
    for seed in range(WAVES):
        request, tickets, rules = wave(seed)
        choice = choose_fill(request, tickets, NOW, 0, rules) or choose_partial(
            request, tickets, NOW, 0, rules
        )
        best = most_seated(request, tickets, rules)
        if choice is None:
            assert best == 0, seed
            continue
        by_id = {t.ticket_id: t for t in tickets}
        placed = {name: [by_id[t] for t in ids] for name, ids in choice.teams}
        filled = seats(request, placed, rules)
        queued = {t: by_id[t] for _, ids in choice.teams for t in ids}
        assert backfill_problems(request, filled, queued, NOW, 0, rules, waiting=tickets) == []
        count = sum(len(team.seats) for team in filled)
        partial += count < sum(team.open_slots for team in request.teams)
        assert count <= best, seed
        if choice.exhaustive:
            assert count == best, seed
            compared += 1
    # Not vacuous: most waves are compared, and many of them are partial fills.
    assert compared >= WAVES // 2 and partial >= WAVES // 5
