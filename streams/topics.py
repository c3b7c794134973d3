"""Create every topic explicitly, with its partition count, before any worker starts;
describe them and say how they drift from the settings (`wavematch topics`).

The embedded broker auto-creates an undeclared topic with 4 partitions, a count nobody
chose, and Apache Kafka clusters often forbid auto-creation. So wavematch never relies on
it.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.errors import TopicAlreadyExistsError

from schemas.topics import TOPICS
from streams.connection import client_kwargs, connection_of
from streams.settings import Settings
from streams.worker.snapshot_topic import snapshot_topic


class TopicMismatch(RuntimeError):
    pass


class TopicsUnreadable(TopicMismatch):
    """The broker would not describe a topic or its configs to this principal: a check
    would otherwise report settings it was not allowed to read as drift."""


@dataclass(frozen=True, slots=True)
class TopicPlan:
    name: str
    partitions: int
    config: dict[str, str]


def topic_plan(settings: Settings) -> tuple[TopicPlan, ...]:
    """Every topic a worker needs; retention/cleanup configs only where the broker has them."""
    partitions = settings.partitions
    real_kafka = not settings.is_embedded_broker
    return (
        *(TopicPlan(t.name, partitions, t.config() if real_kafka else {}) for t in TOPICS),
        # Snapshots (ADR 0061): partition P holds input partition P's. Their keys are
        # overwritten, so compaction keeps one snapshot per partition; the embedded broker
        # cannot compact (ADR 0005).
        TopicPlan(
            snapshot_topic(settings.app_id),
            partitions,
            {"cleanup.policy": "compact"} if real_kafka else {},
        ),
        # Faust's leader-election topic: one partition by design.
        TopicPlan(f"{settings.app_id}-__assignor-__leader", 1, {}),
    )


async def ensure_topics(settings: Settings) -> list[str]:
    """Create missing topics; fail, naming the topic, if one exists with another partition count.

    Returns the names of the topics it created.
    """
    admin = AIOKafkaAdminClient(**client_kwargs(connection_of(settings)))
    await admin.start()
    try:
        existing = await _partition_counts(admin)
        created = []
        for plan in topic_plan(settings):
            have = existing.get(plan.name)
            if have is None:
                try:
                    await admin.create_topics(
                        [
                            NewTopic(
                                plan.name,
                                plan.partitions,
                                settings.replication_factor,
                                topic_configs=plan.config,
                            )
                        ]
                    )
                    created.append(plan.name)
                except TopicAlreadyExistsError:
                    pass
            elif have != plan.partitions:
                raise TopicMismatch(
                    f"topic {plan.name} has {have} partitions, the settings say {plan.partitions}"
                )
        return created
    finally:
        await admin.close()


async def _partition_counts(admin: AIOKafkaAdminClient) -> dict[str, int]:
    names = await admin.list_topics()
    if not names:
        return {}
    described = await admin.describe_topics(list(names))
    return {
        topic["topic"]: len(topic["partitions"])
        for topic in described
        if not topic.get("error_code")
    }


@dataclass(frozen=True, slots=True)
class TopicState:
    """A topic as the broker describes it: partitions, replicas, the configs we plan."""

    name: str
    partitions: int
    replication: int
    config: dict[str, str]


async def describe_topics(settings: Settings) -> dict[str, TopicState]:
    """The planned topics that exist, as the broker has them (configs: the planned keys)."""
    admin = AIOKafkaAdminClient(**client_kwargs(connection_of(settings)))
    await admin.start()
    try:
        plans = {plan.name: plan for plan in topic_plan(settings)}
        names = [name for name in await admin.list_topics() if name in plans]
        described = await admin.describe_topics(names) if names else []
        states = {}
        for topic in described:
            if topic.get("error_code") == _AUTHORIZATION_FAILED:
                raise TopicsUnreadable(_refused(topic["topic"], "Describe"))
            if topic.get("error_code"):
                continue
            partitions = topic["partitions"]
            name = topic["topic"]
            states[name] = TopicState(
                name,
                len(partitions),
                max((len(p["replicas"]) for p in partitions), default=0),
                await _configs(admin, name, set(plans[name].config)),
            )
        return states
    finally:
        await admin.close()


async def _configs(admin: AIOKafkaAdminClient, name: str, keys: set[str]) -> dict[str, str]:
    if not keys:  # the embedded broker: no configs planned, none asked
        return {}
    resource = ConfigResource(ConfigResourceType.TOPIC, name)
    found: dict[str, str] = {}
    for response in await admin.describe_configs([resource]):
        for code, _message, _type, _name, entries in response.resources:
            if code == _AUTHORIZATION_FAILED:
                raise TopicsUnreadable(_refused(name, "DescribeConfigs"))
            found.update({entry[0]: entry[1] for entry in entries if entry[0] in keys})
    return found


#: Kafka's TOPIC_AUTHORIZATION_FAILED.
_AUTHORIZATION_FAILED = 29


def _refused(topic: str, operation: str) -> str:
    return (
        f"{topic}: the broker refused {operation} to this principal "
        "(TOPIC_AUTHORIZATION_FAILED): run the check as one the ACLs allow to "
        f"{operation} the topics"
    )


def topic_drift(settings: Settings, states: dict[str, TopicState]) -> list[str]:
    """One line per way the broker's topics differ from the settings; empty if none."""
    drift = []
    secured = connection_of(settings).uses_sasl
    for plan in topic_plan(settings):
        state = states.get(plan.name)
        if state is None:
            # An ACL hides a topic from a principal not allowed to describe it.
            hidden = " (or hidden by the ACLs from this principal)" if secured else ""
            drift.append(f"{plan.name}: missing{hidden}")
            continue
        if state.partitions != plan.partitions:
            drift.append(
                f"{plan.name}: {state.partitions} partitions, the settings say {plan.partitions}"
            )
        # Snapshot and leader topics of the embedded broker aside, every topic is replicated
        # as the settings say; fewer replicas than asked loses data a broker holds alone.
        if state.replication != settings.replication_factor and not settings.is_embedded_broker:
            drift.append(
                f"{plan.name}: replication {state.replication}, "
                f"the settings say {settings.replication_factor}"
            )
        for key, value in sorted(plan.config.items()):
            have = state.config.get(key)
            if have != value:
                drift.append(f"{plan.name}: {key}={have}, the settings say {value}")
    return drift
