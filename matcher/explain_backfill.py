"""Why a backfill was filled as it was: the backfill part of ``wavematch explain``.

Pure: reads the :class:`~matcher.queue.backfill_choice.BackfillChoice` the fold made at
the tick (re-derived from the log by the caller); nothing is recomputed.
"""

from __future__ import annotations

from matcher.queue.backfill_choice import BackfillChoice


def backfill_facts(choice: BackfillChoice) -> tuple[tuple[str, str], ...]:
    """The choice as (name, text) facts, one per team and one per passed-over ticket.

    >>> from matcher.queue.backfill_choice import PassedOver
    >>> choice = BackfillChoice("s-1", "5v5", "eu", 2_000, "w1",
    ...     (("red", ()), ("blue", ("t-a", "t-b"))), 100.0, 20.0,
    ...     (PassedOver("t-old", 1_000, "party of 3, more than any team's open slots (2)"),), 3, 2,
    ...     True)
    >>> for name, text in backfill_facts(choice): print(f"{name}: {text}")
    request: session s-1 in 5v5/eu, requested at 2000 ms, filled by wave w1
    team red: no new player
    team blue: t-a, t-b
    team gap: 100 before, 20 after (largest gap between team mean ratings)
    search: 3 parties in the pool, 2 fills tried, every one and every deal (permutation method)
    passed over t-old: joined at 1000 ms, party of 3, more than any team's open slots (2)
    """
    facts = [
        (
            "request",
            f"session {choice.session_id} in {choice.queue}/{choice.region}, requested at "
            f"{choice.requested_at_ms} ms, filled by wave {choice.wave_id}",
        )
    ]
    facts += [
        (f"team {name}", ", ".join(tickets) if tickets else "no new player")
        for name, tickets in choice.teams
    ]
    facts.append(
        (
            "team gap",
            f"{choice.gap_before:g} before, {choice.gap_after:g} after "
            "(largest gap between team mean ratings)",
        )
    )
    facts.append(
        (
            "search",
            f"{choice.pool} parties in the pool, {choice.fills_tried} fills tried, "
            + ("every one and every deal" if choice.exhaustive else "stopped at the search caps")
            + " (permutation method)",
        )
    )
    facts += [
        (f"passed over {p.ticket_id}", f"joined at {p.joined_at_ms} ms, {p.reason}")
        for p in choice.passed_over
    ]
    return tuple(facts)


def backfill_ticket_line(choice: BackfillChoice, ticket_id: str) -> str | None:
    """What the choice says about ``ticket_id`` (chosen, or passed over); None if nothing.

    >>> from matcher.queue.backfill_choice import PassedOver
    >>> choice = BackfillChoice("s-1", "5v5", "eu", 2_000, "w1",
    ...     (("blue", ("t-a",)),), 100.0, 20.0, (PassedOver("t-old", 1_000, "rule: X"),), 2, 2,
    ...     True)
    >>> backfill_ticket_line(choice, "t-a")
    'chosen for session s-1, team blue: team gap 100 before, 20 after; 1 older passed over'
    >>> backfill_ticket_line(choice, "t-old")
    'passed over by the backfill of session s-1: rule: X'
    """
    team = next((name for name, tickets in choice.teams if ticket_id in tickets), None)
    if team is not None:
        return (
            f"chosen for session {choice.session_id}, team {team}: team gap "
            f"{choice.gap_before:g} before, {choice.gap_after:g} after; "
            f"{len(choice.passed_over)} older passed over"
        )
    passed = next((p for p in choice.passed_over if p.ticket_id == ticket_id), None)
    if passed is None:
        return None
    return f"passed over by the backfill of session {choice.session_id}: {passed.reason}"
