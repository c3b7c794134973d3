"""The queue consumer's settings: the group it commits in, the modes that went (Faust's
agent, exactly-once) refused in one line naming the field and the ADR, and the snapshot
topic in the topic plan."""

from __future__ import annotations

import pytest

from streams.settings import SettingsError, load_settings
from streams.topics import topic_plan


def test_the_queue_consumer_commits_in_a_group_of_its_own() -> None:
    assert load_settings(app_id="mm").queue_group == "mm-queue"
    assert load_settings(app_id="mm", consumer="direct").queue_group == "mm-queue"


def test_the_faust_consumer_is_refused_in_one_line_naming_the_field_and_the_adr() -> None:
    with pytest.raises(
        SettingsError, match=r"^consumer: .*removed.*adr/0120\); remove the setting$"
    ):
        load_settings(consumer="faust")


def test_exactly_once_is_refused_in_one_line_naming_the_field_and_the_adr() -> None:
    with pytest.raises(SettingsError, match=r"^processing_guarantee: .*removed.*adr/0090\)$"):
        load_settings(processing_guarantee="exactly_once")
    assert load_settings(processing_guarantee="at_least_once")


def test_an_unknown_mode_is_one_line_naming_the_field() -> None:
    with pytest.raises(SettingsError, match=r"^consumer: "):
        load_settings(consumer="kafka-streams")


@pytest.mark.parametrize("broker", ["kafka://k:9092", "tansu://127.0.0.1:9092"])
def test_the_snapshot_topic_has_the_queue_topics_partitions(broker: str) -> None:
    plans = {plan.name: plan for plan in topic_plan(load_settings(broker_url=broker, partitions=6))}
    assert set(plans) == {
        *(name for name in plans if name.startswith("wavematch.")),
        "wavematch-queue-snapshots",
        "wavematch-__assignor-__leader",
    }
    snapshots = plans["wavematch-queue-snapshots"]
    assert snapshots.partitions == plans["wavematch.queue.v1"].partitions == 6
    compacted = {"cleanup.policy": "compact"}
    assert snapshots.config == (compacted if broker.startswith("kafka") else {})
