"""Hypothesis profiles. The default ("ci") draws the same examples on every run, so a red
CI is always reproducible; "explore" draws fresh ones and more of them, to hunt bugs:

    .venv/bin/python -m pytest -q --hypothesis-profile=explore tests/queue tests/duel tests/teams
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", max_examples=500, print_blob=True)
settings.load_profile("ci")

# The Apache Kafka tier's fixtures (a session broker, a factory for a test's own, a cluster).
from tests.kafka.fixtures import kafka_broker, kafka_broker_factory, kafka_cluster  # noqa: E402, F401
