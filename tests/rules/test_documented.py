"""What docs/rules.md promises, through the fold: the cross-play encoding (own platform
plus a crossplay token), limits that include their value, growth over fractional
seconds, the instant a step applies, and a player's second ticket refused."""

from __future__ import annotations

from typing import Any

import pytest

from matcher.core import Player, QueueProfile, Ticket
from matcher.queue import DequeueReason, QueueRules, RegionQueue, TicketJoined, WaveTick

RULES = QueueRules(ticket_ttl_ms=3_600_000, finished_retention_ms=3_600_000)
CROSSPLAY = {"rating": "mmr", "attributes": [{"name": "platform", "match": "intersect"}]}


def matched(
    rules: dict[str, Any], players: list[tuple[int, dict[str, str]]], close_ms: int
) -> bool:
    """Whether a 1v1 wave closed ``close_ms`` after both joined pairs the two players."""
    profile = QueueProfile("duel", "optimal", ("m",), rules=rules)
    state = RegionQueue("duel", "eu")
    for index, (mmr, attributes) in enumerate(players):
        player = Player(f"p{index}", (("mmr", mmr),), attributes=tuple(attributes.items()))
        step = state.apply(
            TicketJoined(Ticket(f"t{index}", "duel", "eu", (player,), 0)), profile, RULES
        )
        assert step.note == "joined", step
    step = state.apply(WaveTick("duel", "eu", "w1", 1, close_ms, "c", 1_000), profile, RULES)
    return len(step.matches) == 1


@pytest.mark.parametrize(
    ("first", "second", "together"),
    [
        ("ps", "pc,crossplay", False),  # ps opted out: never with another platform
        ("ps", "ps,crossplay", True),  # the same platform always
        ("ps,crossplay", "pc,crossplay", True),  # both opted in
        ("xbox,crossplay", "xbox", True),
        ("pc", "xbox", False),
    ],
)
def test_the_documented_crossplay_encoding(first: str, second: str, together: bool) -> None:
    players = [(1500, {"platform": first}), (1500, {"platform": second})]
    assert matched(CROSSPLAY, players, 3_600_000 - 1) is together


def test_a_list_of_platforms_overrides_the_other_players_opt_out() -> None:
    """Why docs/rules.md does not list allowed platforms: the partner's list decides."""
    players = [(1500, {"platform": "ps"}), (1500, {"platform": "pc,xbox,ps"})]
    assert matched(CROSSPLAY, players, 1_000)


def test_a_limit_includes_its_value() -> None:
    rules = {"rating": "mmr", "max_distance": 100}
    assert matched(rules, [(1500, {}), (1600, {})], 1_000)
    assert not matched(rules, [(1500, {}), (1601, {})], 1_000)


def test_growth_per_s_counts_fractional_seconds() -> None:
    rules = {"rating": "mmr", "max_distance": {"base": 100, "growth_per_s": 10, "cap": 400}}
    assert matched(rules, [(1500, {}), (1605, {})], 500)  # 100 + 10 x 0.5 s
    assert not matched(rules, [(1500, {}), (1606, {})], 500)


def test_a_step_applies_from_its_after_s_on() -> None:
    rules = {
        "rating": "mmr",
        "max_distance": {"base": 100, "steps": [{"after_s": 30, "value": 200}]},
    }
    assert not matched(rules, [(1500, {}), (1700, {})], 29_999)
    assert matched(rules, [(1500, {}), (1700, {})], 30_000)


def test_a_second_ticket_of_a_queued_player_is_rejected() -> None:
    profile = QueueProfile("duel", "optimal", ("m",), rules={"rating": "mmr"})
    state = RegionQueue("duel", "eu")
    player = Player("p", (("mmr", 1500),))
    state.apply(TicketJoined(Ticket("t1", "duel", "eu", (player,), 0)), profile, RULES)
    step = state.apply(TicketJoined(Ticket("t2", "duel", "eu", (player,), 5)), profile, RULES)
    (refused,) = step.dequeued
    assert (refused.ticket_id, refused.reason) == ("t2", DequeueReason.REJECTED)
    assert refused.detail == "player p is already queued in ticket t1"
    assert list(state.tickets) == ["t1"]
