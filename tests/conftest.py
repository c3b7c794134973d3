"""Hypothesis profiles. The default ("ci") draws the same examples on every run, so a red
CI is always reproducible; "explore" draws fresh ones and more of them, to hunt bugs:

    .venv/bin/python -m pytest -q --hypothesis-profile=explore tests/queue tests/duel tests/teams
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.kafka.broker import jars_ready
from tests.registry.apicurio import registry_ready
from tests.tiers import prepare

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", max_examples=500, print_blob=True)
settings.load_profile("ci")

# The Apache Kafka tier's fixtures (a session broker, a factory for a test's own, a cluster).
from tests.kafka.fixtures import kafka_broker, kafka_broker_factory, kafka_cluster  # noqa: E402, F401

# The schema registry tier's fixture (Apicurio Registry for the session).
from tests.registry.fixtures import apicurio  # noqa: E402, F401


@pytest.fixture(autouse=True, scope="session")
def own_up_state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The suite's own `wavematch up` state files: a developer's running `up` is never the
    broker a test's command finds by itself."""
    previous = os.environ.get("WAVEMATCH_STATE_DIR")
    os.environ["WAVEMATCH_STATE_DIR"] = str(tmp_path_factory.mktemp("up-state"))
    yield
    if previous is None:
        os.environ.pop("WAVEMATCH_STATE_DIR", None)
    else:
        os.environ["WAVEMATCH_STATE_DIR"] = previous


def pytest_sessionstart(session: pytest.Session) -> None:
    """Install the outside tiers the selected tests need, or stop with one line (tests/tiers.py).

    Once, in the process that collects or controls the run (not in each xdist worker).
    """
    if hasattr(session.config, "workerinput"):
        return
    problem = prepare(session.config.args, jars_ready, registry_ready)
    if problem:
        pytest.exit(problem, returncode=pytest.ExitCode.USAGE_ERROR)
