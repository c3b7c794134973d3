"""The README's test command sets up the outside tiers or stops with one line (issue 33)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tiers import ROOT, prepare_chromium, prepare_kafka, prepare_registry, tiers_needed


def which_only(*present: str):  # type: ignore[no-untyped-def]
    return lambda name: f"/usr/bin/{name}" if name in present else None


def test_the_selected_files_decide_the_tiers() -> None:
    assert tiers_needed(["tests/queue"]) == set()
    assert tiers_needed(["tests/integration/test_worker.py::test_x"]) == {"kafka"}
    assert tiers_needed(["tests/sim/test_render.py"]) == {"chromium"}
    assert tiers_needed(["tests/registry/test_registry.py"]) == {"kafka", "registry"}
    assert tiers_needed(["tests"]) == {"kafka", "registry", "chromium"}


def test_missing_jars_are_fetched_when_java_and_maven_are_there() -> None:
    ran: list[list[str]] = []
    installed: list[bool] = []

    def run(command: list[str]) -> int:
        ran.append(command)
        installed.append(True)
        return 0

    assert prepare_kafka(lambda: bool(installed), which_only("java", "mvn"), run) is None
    assert ran == [["bash", "tests/kafka/install.sh"]]


def test_no_java_is_one_line_saying_what_to_install() -> None:
    said = prepare_kafka(lambda: False, which_only("mvn"), lambda command: 0)
    assert said is not None and "\n" not in said
    assert said.startswith("Apache Kafka tier: java not installed; install Java 17+ and Maven")
    assert "WAVEMATCH_SKIP_TIERS=kafka" in said


def test_a_failed_install_is_one_line() -> None:
    said = prepare_kafka(lambda: False, which_only("java", "mvn"), lambda command: 1)
    assert said == (
        "Apache Kafka tier: tests/kafka/install.sh failed (exit 1); run it to see why, "
        "or set WAVEMATCH_SKIP_TIERS=kafka to skip that tier knowingly"
    )


def test_the_registry_tier_is_fetched_or_named_in_one_line() -> None:
    ran: list[list[str]] = []
    installed: list[bool] = []

    def run(command: list[str]) -> int:
        ran.append(command)
        installed.append(True)
        return 0

    tools = which_only("java", "javac", "mvn")
    assert prepare_registry(lambda: bool(installed), tools, run) is None
    assert ran == [["bash", "tests/registry/install.sh"]]
    said = prepare_registry(lambda: False, which_only("java", "mvn"), run)
    assert said is not None and "\n" not in said
    assert said.startswith("schema registry tier: javac not installed; install a JDK 17+")
    assert "WAVEMATCH_SKIP_TIERS=registry" in said
    failed = prepare_registry(lambda: False, tools, lambda command: 1)
    assert failed is not None and "tests/registry/install.sh failed (exit 1)" in failed


def test_chromium_is_installed_as_root_and_named_otherwise() -> None:
    installed: list[str] = []

    def which(name: str) -> str | None:
        return "/usr/bin/apt-get" if name == "apt-get" else (installed[0] if installed else None)

    def run(command: list[str]) -> int:
        if command[-1] == "chromium":
            installed.append("/usr/bin/chromium")
        return 0

    assert prepare_chromium(which, run, is_root=True) is None
    said = prepare_chromium(which_only("apt-get"), lambda command: 0, is_root=False)
    assert said is not None and "sudo apt-get install chromium" in said


def test_the_kafka_tier_is_never_skipped_silently(tmp_path: Path) -> None:
    """No java, no jars: the run stops at once with one line and a non-zero exit."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "WAVEMATCH_SKIP_TIERS")} | {
        "PATH": str(Path(sys.executable).parent),
        "WAVEMATCH_KAFKA_JARS": str(tmp_path / "no-jars"),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "0",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/kafka/test_broker.py",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, output
    assert "Apache Kafka tier: java and mvn not installed" in output
    assert " skipped" not in output and " passed" not in output
