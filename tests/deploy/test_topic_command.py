"""The one-shot topic command of compose and the Kubernetes Job, run for real.

It runs against the embedded broker (the only broker here) with the compose settings file:
it must create every topic of the plan, and a second run must create none (idempotent);
with the partitions changed in the settings it exits non-zero, naming the drift.
"""

from __future__ import annotations

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
    argv = [wavematch_script(), *topics["entrypoint"][1:]]
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
        settings = load_settings(config, broker_url=broker.url)
        expected = {plan.name for plan in topic_plan(settings)}
        check = [wavematch_script(), "topics", "check"]
        fewer = env | {"WAVEMATCH_PARTITIONS": "2"}
        drifted = subprocess.run(
            check, env=fewer, capture_output=True, text=True, timeout=120, cwd=tmp_path
        )
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    first, second = (
        {line.split()[1]: line.split()[0] for line in r.stdout.splitlines()} for r in runs
    )
    assert first == dict.fromkeys(expected, "created")
    assert second == dict.fromkeys(expected, "exists")
    assert drifted.returncode == 1, drifted.stderr
    said = f"drift: wavematch.queue.v1: {settings.partitions} partitions, the settings say 2"
    assert said in drifted.stderr


def wavematch_script() -> str:
    """The venv's `wavematch`, the entry point the image installs."""
    return str(Path(sys.executable).parent / "wavematch")
