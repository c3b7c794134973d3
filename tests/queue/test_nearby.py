"""Regions chosen from latency (docs/adr/0147): a join's ``nearby`` becomes places at
its home's book, from its players' latencies and the regions the queue runs in."""

from __future__ import annotations

from matcher.core import Player, QueueProfile, Ticket
from matcher.queue import DequeueReason, TicketJoined, WaveTick, nearby
from matcher.queue.book import QueueBook
from matcher.queue.events import Nearby, Search
from tests.queue.conftest import PAIRS
from tests.queue.test_searches import RULES, Log

REGIONS = ("eu", "na", "sa", "ap")


def book(rules: dict | None = None) -> QueueBook:
    profile = QueueProfile(queue="1v1", strategy=PAIRS, maps=("alpha",), rules=rules or {})
    return QueueBook({"1v1": profile}, {"1v1": REGIONS}, RULES)


def join(ticket_id: str, *latencies: dict[str, int], nearby: Nearby | None) -> TicketJoined:
    players = tuple(
        Player(f"{ticket_id}-{n}", (("any", 1500),), latency_ms=tuple(lat.items()))
        for n, lat in enumerate(latencies)
    )
    return TicketJoined(Ticket(ticket_id, "1v1", "eu", players, 1_000), (), nearby)


def copies(step) -> list[tuple[str, int]]:
    joins = [o for o in step.outputs if isinstance(o, TicketJoined)]
    assert all(j.nearby is None for j in joins)  # a copy carries the chosen places
    return [
        (j.region, dict((s.region, s.open_after_ms) for s in j.searches)[j.region]) for j in joins
    ]


def test_every_region_within_the_queues_cap_opens_after_the_wait():
    b = book({"max_latency_ms": {"base": 60, "growth_per_s": 2, "cap": 120}})
    a = {"eu": 20, "na": 110, "sa": 121}  # sa over the cap; no ap figure
    step = b.apply(join("t", a, nearby=Nearby(60_000)))
    assert copies(step) == [("na", 60_000)]  # eu is home, at once
    assert "t" in b.regions["1v1", "eu"].tickets
    assert b.regions["1v1", "eu"].life.places["t"] == (
        Search("1v1", "eu"),
        Search("1v1", "na", 60_000),
    )


def test_a_region_is_chosen_only_when_every_player_is_near_it_after_the_named_places():
    a = {"eu": 20, "na": 110, "sa": 119, "ap": 90}
    c = {"eu": 25, "na": 100, "sa": 121, "ap": 30}
    event = join("t", a, c, nearby=Nearby(5_000, 120))
    event = TicketJoined(
        event.ticket, (Search("1v1", "eu"), Search("1v1", "ap", 1_000)), event.nearby
    )
    chosen = nearby.choose(event, REGIONS, None)
    assert chosen.nearby is None
    assert chosen.searches == (
        Search("1v1", "eu"),
        Search("1v1", "ap", 1_000),
        Search("1v1", "na", 5_000),
    )


def test_a_given_bound_narrows_the_cap_and_the_copies_open_at_their_tick():
    b = book({"max_latency_ms": 200})
    log = Log(b)
    log.fold(join("t", {"eu": 20, "na": 90, "sa": 150}, nearby=Nearby(30_000, 100)))
    log.settle()
    na = b.regions["1v1", "na"]
    assert "t" in na.life.unopened and ("1v1", "sa") not in b.regions
    log.fold(WaveTick("1v1", "na", "w1", 1, 30_999, "cfg", 1_000))
    assert "t" not in na.tickets
    log.fold(WaveTick("1v1", "na", "w2", 2, 31_000, "cfg", 1_000))
    assert "t" in na.tickets


def test_no_region_near_enough_is_a_plain_join_and_the_same_join_again_a_duplicate():
    b = book({"max_latency_ms": 50})
    event = join("t", {"eu": 20, "na": 90}, nearby=Nearby(60_000))
    step = b.apply(event)
    assert copies(step) == [] and "t" not in b.regions["1v1", "eu"].life.places
    assert "t" in b.regions["1v1", "eu"].tickets
    assert b.apply(event).note == "duplicate"


def test_without_a_bound_the_join_is_refused_naming_the_field():
    b = book()
    (refused,) = b.apply(join("t", {"eu": 20, "na": 30}, nearby=Nearby(60_000))).dequeued
    assert refused.reason is DequeueReason.REJECTED
    assert refused.detail == (
        "nearby: no max_latency_ms given and the queue has no max_latency_ms cap"
    )
