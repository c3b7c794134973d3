"""The one-shot topic command of compose and the Kubernetes Job, run for real.

It runs against the embedded broker (the only broker here) with the compose settings file:
it must create every topic of the plan, and a second run must create none (idempotent).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("yaml", reason="PyYAML parses the deployment files (test extra)")

from streams.embedded.broker import EmbeddedBroker
from streams.settings import load_settings
from streams.topics import topic_plan
from tests.deploy import checks

pytestmark = pytest.mark.integration


def test_topic_command_creates_every_topic_once(tmp_path: Path) -> None:
    topics = checks.compose()["services"]["topics"]
    argv = [sys.executable if arg == "python" else arg for arg in topics["entrypoint"]]
    config = checks.compose_config_file(topics)
    assert config is not None
    with EmbeddedBroker(log_path=tmp_path / "broker.log") as broker:
        env = {k: v for k, v in os.environ.items() if not k.startswith("WAVEMATCH_")}
        env.update(
            checks.service_env(topics),
            WAVEMATCH_BROKER_URL=broker.url,
            WAVEMATCH_CONFIG_FILE=str(config),
        )
        runs = [
            subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
            for _ in range(2)
        ]
        expected = {plan.name for plan in topic_plan(load_settings(config, broker_url=broker.url))}
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    first, second = (run.stdout.strip().removeprefix("created: ") for run in runs)
    assert set(ast.literal_eval(first)) == expected  # the printed list of created topics
    assert second == "[]"
