"""`wavematch topics`: create, check or describe the topics against the settings."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from streams.cli import UsageError
from streams.commands.common import add_connection_arguments, on_broker, settings_from
from streams.settings import Settings

if TYPE_CHECKING:
    from streams.connection import Connection
    from streams.topics import TopicState


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=("create", "check", "describe"),
        help="create: the missing topics, then check; check: exit 1 if a topic differs "
        "from the settings (partitions, replication, retention, cleanup policy); "
        "describe: print each topic as the broker has it",
    )
    add_connection_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from streams.topics import TopicMismatch, describe_topics, ensure_topics, topic_plan

    settings = settings_from(args)

    async def work(connection: Connection) -> tuple[list[str], dict[str, TopicState]]:
        created = await ensure_topics(settings) if args.action == "create" else []
        # A topic just created may take a moment to show in the broker's metadata.
        for _ in range(20):
            states = await describe_topics(settings)
            if not set(created) - set(states):
                break
            await asyncio.sleep(0.25)
        return created, states

    try:
        created, states = on_broker(settings, work, timeout_s=60)
    except TopicMismatch as error:
        raise UsageError(str(error)) from None
    for plan in topic_plan(settings):
        state = states.get(plan.name)
        verb = "created" if plan.name in created else ("exists" if state else "missing")
        print(f"{verb:<8} {plan.name:<34} {_describe(state)}")
    return _report_drift(settings, states)


def _describe(state: TopicState | None) -> str:
    if state is None:
        return ""
    configs = " ".join(f"{k}={v}" for k, v in sorted(state.config.items()))
    return f"partitions {state.partitions}  replication {state.replication}  {configs}".rstrip()


def _report_drift(settings: Settings, states: dict[str, TopicState]) -> int:
    from streams.topics import topic_drift

    drift = topic_drift(settings, states)
    for line in drift:
        print(f"drift: {line}", file=sys.stderr)
    if drift:
        print(f"wavematch topics: {len(drift)} differences from the settings", file=sys.stderr)
        return 1
    return 0
