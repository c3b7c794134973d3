"""Create every topic explicitly, with its partition count, before any worker starts.

The embedded broker auto-creates an undeclared topic with 4 partitions, a count nobody
chose, and Apache Kafka clusters often forbid auto-creation. So wavematch never relies on
it.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import TopicAlreadyExistsError

from schemas.topics import TOPICS
from streams.connection import client_kwargs, connection_of
from streams.settings import Settings
from streams.worker.snapshot_topic import snapshot_topic


class TopicMismatch(RuntimeError):
    pass


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
