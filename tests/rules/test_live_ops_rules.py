"""Block lists and rating deviations on the wire and at start (issue 35):
``players[].blocked_players`` and ``players[].deviation`` are read by both decoders and
kept in snapshots; the ``block_lists`` and ``deviation`` rules are validated at start
(ladder-v2.1 refuses them in one line), and a party whose members blocked each other is
refused at join."""

from __future__ import annotations

import json

import pytest

from matcher.core import Player, QueueProfile, Ticket
from matcher.queue.records import ticket_from_record, ticket_to_record
from matcher.rules.check import ticket_rule_problem
from matcher.ruleset import parse_rules
from matcher.strategies import check_rules
from schemas import models as m
from schemas.codec import encode
from schemas.errors import InvalidEvent
from streams.wire import inbound

JOIN = {
    "type": "TicketJoined",
    "ticket_id": "t-1",
    "queue": "1v1",
    "region": "eu",
    "joined_at_ms": 1_767_225_600_000,
    "players": [{"player_id": "p-1", "ratings": {"mmr": 1500}, "blocked_players": ["p-2", "p-3"]}],
}


def test_both_decoders_read_the_block_list() -> None:
    text = json.dumps(JOIN).encode()
    fast = inbound.fast_queue_event(text)
    assert fast is not None and fast.ticket.players[0].blocked == ("p-2", "p-3")
    body = {k: v for k, v in JOIN.items() if k != "type"}
    avro = inbound.fast_queue_event(encode(m.TicketJoined.model_validate(body)))
    assert avro == fast
    assert inbound.decode(text) == fast  # the full path agrees


def test_an_oversized_block_list_is_refused_naming_the_field() -> None:
    player = {**JOIN["players"][0], "blocked_players": [f"p-{i}" for i in range(101)]}  # type: ignore[dict-item]
    text = json.dumps({**JOIN, "players": [player]}).encode()
    assert inbound.fast_queue_event(text) is None
    with pytest.raises(InvalidEvent) as refused:
        inbound.decode(text)
    assert "blocked_players" in (refused.value.field or "")


def test_a_join_without_a_block_list_blocks_nobody() -> None:
    player = {"player_id": "p-1", "ratings": {"mmr": 1500}}
    event = inbound.fast_queue_event(json.dumps({**JOIN, "players": [player]}).encode())
    assert event is not None and event.ticket.players[0].blocked == ()


def test_a_snapshot_keeps_the_block_list() -> None:
    ticket = Ticket("t", "q", "eu", (Player("p", (("mmr", 1),), blocked=("x",)),), 0)
    assert ticket_from_record(ticket_to_record(ticket)) == ticket
    plain = Ticket("t", "q", "eu", (Player("p", (("mmr", 1),)),), 0)
    assert len(ticket_to_record(plain)[-1][0]) == 6  # as before block lists
    assert ticket_from_record(ticket_to_record(plain)) == plain


def test_the_rule_is_validated_and_refused_by_ladder() -> None:
    with pytest.raises(ValueError, match=r"rules.block_lists: must be true or false \(got 1\)"):
        parse_rules({"block_lists": 1})
    for strategy in ("optimal", "rebalance", "game-queue", "multifactor"):
        check_rules(QueueProfile("q", strategy, ("m",), rules={"block_lists": True}))
    with pytest.raises(ValueError, match=r"^rules.block_lists: not honoured by strategy 'ladder"):
        check_rules(QueueProfile("q", "ladder-v2.1", ("m",), rules={"block_lists": True}))


def test_a_party_that_blocked_its_own_member_is_refused_at_join() -> None:
    profile = QueueProfile("q", "rebalance", ("m",), team_size=2, rules={"block_lists": True})
    ann = Player("ann", (("mmr", 1500),), blocked=("ben",))
    ben = Player("ben", (("mmr", 1500),))
    party = Ticket("t", "q", "eu", (ann, ben), 0)
    assert ticket_rule_problem(party, profile) == "party: player ann blocked ben (block_lists)"
    unruled = QueueProfile("q", "rebalance", ("m",), team_size=2)
    assert ticket_rule_problem(party, unruled) is None


def test_the_deviation_is_read_by_both_decoders_and_kept_in_snapshots() -> None:
    player = {"player_id": "p-1", "ratings": {"mmr": 1500}, "deviation": 120}
    text = json.dumps({**JOIN, "players": [player]}).encode()
    fast = inbound.fast_queue_event(text)
    assert fast is not None and fast.ticket.players[0].deviation == 120
    assert inbound.decode(text) == fast
    body = {k: v for k, v in JOIN.items() if k != "type"}
    avro = inbound.fast_queue_event(
        encode(m.TicketJoined.model_validate({**body, "players": [player]}))
    )
    assert avro == fast
    ticket = fast.ticket
    assert ticket_from_record(ticket_to_record(ticket)) == ticket
    with pytest.raises(InvalidEvent) as refused:
        inbound.decode(json.dumps({**JOIN, "players": [{**player, "deviation": -1}]}).encode())
    assert "deviation" in (refused.value.field or "")


def test_the_deviation_rule_is_validated_and_refused_by_ladder() -> None:
    with pytest.raises(ValueError, match=r"^rules.deviation: needs rules.rating"):
        parse_rules({"deviation": 2})
    with pytest.raises(ValueError, match=r"^rules.deviation: must be a number or a table"):
        parse_rules({"rating": "mmr", "deviation": {"k": 2}})
    with pytest.raises(ValueError, match=r"^rules.deviation.missing: must be an integer"):
        parse_rules({"rating": "mmr", "deviation": {"weight": 2, "missing": 0.5}})
    rules = {"rating": "mmr", "deviation": 2}
    for strategy in ("optimal", "rebalance", "game-queue", "multifactor"):
        check_rules(QueueProfile("q", strategy, ("m",), rules=rules))
    with pytest.raises(ValueError, match=r"^rules.deviation: not honoured by strategy 'ladder"):
        check_rules(QueueProfile("q", "ladder-v2.1", ("m",), rules=rules))
