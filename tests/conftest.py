"""Hypothesis profiles. The default ("ci") draws the same examples on every run, so a red
CI is always reproducible; "explore" draws fresh ones and more of them, to hunt bugs:

    .venv/bin/python -m pytest -q --hypothesis-profile=explore tests/queue tests/duel tests/teams
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", max_examples=500, print_blob=True)
settings.load_profile("ci")

# The Apache Kafka tier's fixtures (a session broker, and a factory for a test's own).
from tests.kafka.fixtures import kafka_broker, kafka_broker_factory  # noqa: E402, F401
