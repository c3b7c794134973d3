"""The consumer mode setting: its default, the group it commits in, what it refuses, and
the snapshot topic every mode's topics include."""

from __future__ import annotations

import pytest

from streams.settings import SettingsError, load_settings
from streams.topics import topic_plan


def test_direct_is_the_default_and_commits_in_a_group_of_its_own() -> None:
    settings = load_settings(app_id="mm")
    assert settings.consumer == "direct"
    assert settings.queue_group == "mm-queue"
    assert load_settings(app_id="mm", consumer="faust").queue_group == "mm"


@pytest.mark.parametrize("consumer", ["direct", "faust"])
def test_exactly_once_is_refused_in_one_line_naming_the_field_and_the_adr(consumer: str) -> None:
    with pytest.raises(SettingsError, match=r"^processing_guarantee: .*removed.*adr/0090\)$"):
        load_settings(processing_guarantee="exactly_once", consumer=consumer)
    assert load_settings(processing_guarantee="at_least_once", consumer=consumer)


def test_an_unknown_mode_is_one_line_naming_the_field() -> None:
    with pytest.raises(SettingsError, match=r"^consumer: "):
        load_settings(consumer="kafka-streams")


@pytest.mark.parametrize("broker", ["kafka://k:9092", "tansu://127.0.0.1:9092"])
def test_the_snapshot_topic_has_the_queue_topics_partitions(broker: str) -> None:
    plans = {plan.name: plan for plan in topic_plan(load_settings(broker_url=broker, partitions=6))}
    snapshots = plans["wavematch-queue-snapshots"]
    assert snapshots.partitions == plans["wavematch.queue.v1"].partitions == 6
    compacted = {"cleanup.policy": "compact"}
    assert snapshots.config == (compacted if broker.startswith("kafka") else {})
