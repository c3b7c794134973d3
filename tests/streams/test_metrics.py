"""The worker's own Prometheus metrics follow what the fold did."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry

from matcher.core import QueueProfile
from matcher.queue import QueueRules
from matcher.queue.lifecycle import LifecyclePolicy
from schemas.codec import encode
from schemas.models import PlacementReported, ReadyCheckAnswered, TicketJoined
from streams.worker.folding import Folder
from streams.worker.metrics import WorkerMetrics, observe_all
from tests.queue.conftest import PAIRS
from tests.streams.conftest import HOME, KEY, PARTITIONS, joined, tick


def test_events_waves_matches_depth_and_dead_letters_are_counted(folder: Folder) -> None:
    registry = CollectorRegistry()
    metrics = WorkerMetrics(registry)
    state = folder.new_state(HOME)
    records = [joined("t1", "a"), joined("t2", "b"), joined("t3", "c"), joined("t1", "a")]
    records += [tick(1), b"not an event"]
    for offset, value in enumerate(records):
        folded = folder.fold(state, KEY, value, offset)
        assert folded is not None
        metrics.observe(folded, state)
    metrics.flush()  # the worker adds a batch's event counts once, after the batch

    def value(name: str, **labels: str) -> float | None:
        return registry.get_sample_value(name, labels)

    assert value("wavematch_events_total", note="joined") == 3
    assert value("wavematch_events_total", note="duplicate") == 1
    assert value("wavematch_events_total", note="wave_closed") == 1
    assert value("wavematch_matches_per_wave_count", queue="duo") == 1
    assert value("wavematch_matches_per_wave_sum", queue="duo") == 1
    assert value("wavematch_match_rating_diff_count", queue="duo") == 1
    assert value("wavematch_queue_depth_players", queue="duo", region="eu") == 1
    assert value("wavematch_dead_letters_total", code="garbage") == 1
    assert value("wavematch_wave_duration_seconds_count", queue="duo") == 1


@pytest.mark.parametrize(
    "amounts",
    [
        [],
        [0, 10, 10.0, 11, 25, 999, 1000, 1001, 5_000, -3],
        [float(n % 1_200) for n in range(5_000)],
        [float("inf"), 7],
        [float("-inf"), 7],
    ],
)
def test_observe_all_leaves_the_samples_observe_leaves(amounts: list[float]) -> None:
    registries = CollectorRegistry(), CollectorRegistry()
    one_by_one, at_once = (WorkerMetrics(r).rating_diff.labels("q") for r in registries)
    for amount in amounts:
        one_by_one.observe(amount)
    observe_all(at_once, amounts)
    assert samples(registries[1]) == samples(registries[0])


def samples(registry: CollectorRegistry) -> list[tuple[str, dict[str, str], float]]:
    """Every sample but the creation times (two registries are never created at once)."""
    return [
        (sample.name, sample.labels, sample.value)
        for metric in registry.collect()
        for sample in metric.samples
        if not sample.name.endswith("_created")
    ]


def test_time_to_match_runs_from_the_joined_time_to_the_tick_and_unmatched_are_left(
    folder: Folder,
) -> None:
    registry = CollectorRegistry()
    metrics = WorkerMetrics(registry)
    state = folder.new_state(HOME)
    base = 1_767_225_600_000  # tick(1) is at base + 1 s
    records = [joined("t1", "a", base - 4_000), joined("t2", "b", base), joined("t3", "c", base)]
    for offset, value in enumerate([*records, tick(1)]):
        folded = folder.fold(state, KEY, value, offset)
        assert folded is not None
        metrics.observe(folded, state)

    def value(name: str) -> float | None:
        return registry.get_sample_value(name, {"queue": "duo", "region": "eu"})

    # Two of the three are paired: t1 after 5 s of log time, and t2 or t3 after 1 s.
    assert value("wavematch_time_to_match_seconds_count") == 2
    assert value("wavematch_time_to_match_seconds_sum") == 6
    assert (
        registry.get_sample_value(
            "wavematch_time_to_match_seconds_bucket", {"queue": "duo", "region": "eu", "le": "2.5"}
        )
        == 1
    )
    assert value("wavematch_unmatched_after_wave_tickets") == 1


def test_time_to_match_counts_tickets_confirmed_by_answers_and_reports() -> None:
    """With a ready check and placement reports, a ticket is matched for good by an
    answer or a report (whose steps carry no wave summary): it is counted then, once."""
    profile = QueueProfile(queue="duo", strategy=PAIRS, maps=("alpha",), team_size=2)
    policy = LifecyclePolicy(ready_check_ms=5_000, placement_timeout_ms=20_000)
    folder = Folder(
        {"duo": profile}, {"duo": ("eu",)}, QueueRules(), PARTITIONS, policies={"duo": policy}
    )
    registry = CollectorRegistry()
    metrics = WorkerMetrics(registry)
    state = folder.new_state(HOME)
    base = 1_767_225_600_000  # tick(1) is at base + 1 s
    records = [joined("t1", "a", base - 4_000), joined("t2", "b", base), tick(1)]
    for offset, value in enumerate(records):
        metrics.observe(folder.fold(state, KEY, value, offset), state)
    (match_id,) = state.book.regions["duo", "eu"].life.proposals
    later = [
        answered(match_id, "a", base + 2_000),
        answered(match_id, "b", base + 3_000),  # confirmed: placing
        reported(match_id, base + 9_000),  # started
    ]
    for offset, value in enumerate(later, start=len(records)):
        metrics.observe(folder.fold(state, KEY, value, offset), state)

    def value(name: str) -> float | None:
        return registry.get_sample_value(name, {"queue": "duo", "region": "eu"})

    # Matched for good when the placement started: t1 after 13 s of log time, t2 after 9 s.
    assert value("wavematch_time_to_match_seconds_count") == 2
    assert value("wavematch_time_to_match_seconds_sum") == 22


def answered(match_id: str, player: str, at_ms: int) -> bytes:
    return encode(
        ReadyCheckAnswered(
            match_id=match_id,
            queue="duo",
            region="eu",
            player_id=player,
            accepted=True,
            answered_at_ms=at_ms,
        )
    )


def reported(match_id: str, at_ms: int) -> bytes:
    return encode(
        PlacementReported(
            match_id=match_id, queue="duo", region="eu", outcome="STARTED", reported_at_ms=at_ms
        )
    )


def test_named_rules_count_their_verdicts_per_queue_and_rule() -> None:
    # Two players of one class and one of another: "unique" refuses the pair of the same
    # class and passes the other, so both outcomes are counted by the wave's strategy.
    rules = {
        "rating": "any",
        "checks": [{"name": "one-per-class", "kind": "unique", "attribute": "class"}],
    }
    profile = QueueProfile(queue="duo", strategy="rebalance", maps=("m",), team_size=1, rules=rules)
    folder = Folder({"duo": profile}, {"duo": ("eu", "na")}, QueueRules(), PARTITIONS)
    registry = CollectorRegistry()
    metrics = WorkerMetrics(registry)
    state = folder.new_state(HOME)
    records = []
    for ticket, cls in (("t1", "tank"), ("t2", "tank"), ("t3", "healer")):
        records.append(
            encode(
                TicketJoined(
                    ticket_id=ticket,
                    queue="duo",
                    region="eu",
                    joined_at_ms=1_767_225_600_000,
                    players=[
                        {
                            "player_id": ticket,
                            "ratings": {"any": 1500},
                            "attributes": {"class": cls},
                        }
                    ],
                )
            )
        )
    for offset, value in enumerate([*records, tick(1)]):
        folded = folder.fold(state, KEY, value, offset)
        assert folded is not None
        metrics.observe(folded, state)
    sample = registry.get_sample_value
    labels = {"queue": "duo", "rule": "one-per-class"}
    assert sample("wavematch_rule_evaluations_total", {**labels, "outcome": "passed"}) == 1
    assert sample("wavematch_rule_evaluations_total", {**labels, "outcome": "failed"}) >= 1


def test_a_partition_handed_over_takes_its_gauges_along(folder: Folder) -> None:
    """After a rebalance the old owner no longer says a region's depth or its partition's
    lag: left set, the series kept their last value, and a sum over the workers counted
    the region twice (seen in an operator's failover: 14 and 21 players for one region)."""
    registry = CollectorRegistry()
    metrics = WorkerMetrics(registry)
    state = folder.new_state(HOME)
    for offset, value in enumerate([joined("t1", "a"), tick(1)]):
        folded = folder.fold(state, KEY, value, offset)
        assert folded is not None
        metrics.observe(folded, state)
    metrics.lag(HOME, 7)
    metrics.lag(HOME + 1, 3)
    depth = ("wavematch_queue_depth_players", {"queue": "duo", "region": "eu"})
    unmatched = ("wavematch_unmatched_after_wave_tickets", {"queue": "duo", "region": "eu"})
    assert registry.get_sample_value(*depth) == 1
    assert registry.get_sample_value(*unmatched) == 1

    metrics.forget_partitions({HOME})
    assert registry.get_sample_value(*depth) is None
    assert registry.get_sample_value(*unmatched) is None
    lag = "wavematch_consumer_lag_records"
    assert registry.get_sample_value(lag, {"partition": str(HOME)}) is None
    assert registry.get_sample_value(lag, {"partition": str(HOME + 1)}) == 3  # still owned
    # The counters only add up: they stay.
    assert registry.get_sample_value("wavematch_events_total", {"note": "wave_closed"}) == 1
    metrics.forget_partitions({HOME})  # again, or a partition never observed: nothing to drop
