"""Set up the suite's outside tiers before any test runs: Apache Kafka's jars, Apicurio
Registry with its JVM serde, and Chromium.

The README's test command alone must run the whole suite on a machine that can: a missing
tier is installed here (tests/kafka/install.sh and tests/registry/install.sh with Java and
Maven; Debian's chromium as root), and what cannot be installed stops the run with one
line saying what to run. A tier is skipped only when asked by name:
``WAVEMATCH_SKIP_TIERS=kafka,registry,chromium``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIERS = ("kafka", "registry", "chromium")
#: Directories whose tests start Apache Kafka (tests/integration runs each on both brokers).
KAFKA_DIRS = ("tests/integration", "tests/kafka", "tests/secured")
KAFKA_USE = re.compile(r"\b(kafka_broker|kafka_cluster|require_kafka)\b")
#: Tests of the schema registry tier (Apicurio Registry and its JVM serde; they start Kafka).
REGISTRY_DIRS = ("tests/registry",)
REGISTRY_USE = re.compile(r"\b(apicurio|require_registry)\b")
CHROMIUM_USE = re.compile(r"\bchromium_path\(")
CHROMIUM_NAMES = ("chromium", "chromium-browser")
INSTALL_KAFKA = "tests/kafka/install.sh"
INSTALL_REGISTRY = "tests/registry/install.sh"
SKIP_HINT = "or set WAVEMATCH_SKIP_TIERS={tier} to skip that tier knowingly"

Run = Callable[[list[str]], int]


def skipped_tiers() -> set[str]:
    """The tiers ``WAVEMATCH_SKIP_TIERS`` names; an unknown name is a mistake, not a skip."""
    names = {n.strip() for n in os.environ.get("WAVEMATCH_SKIP_TIERS", "").split(",")}
    names.discard("")
    unknown = names - set(TIERS)
    if unknown:
        raise ValueError(
            f"WAVEMATCH_SKIP_TIERS: unknown tier {sorted(unknown)[0]!r} (known: {', '.join(TIERS)})"
        )
    return names


#: Headless Chromium without a sandbox, a GPU or any traffic of its own (tests render pages).
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium_path(which: Callable[[str], str | None] = shutil.which) -> Path | None:
    """Where Chromium is, under any of its usual names."""
    for name in CHROMIUM_NAMES:
        found = which(name)
        if found:
            return Path(found)
    return None


def tiers_needed(paths: Iterable[str]) -> set[str]:
    """The tiers the test files under ``paths`` (pytest's arguments) use."""
    needed: set[str] = set()
    # Only the suite's own files (never a virtualenv's under a directory given as "."),
    # whichever directory or file the arguments name.
    ours = sorted((ROOT / "tests").rglob("test_*.py"))
    for arg in paths or ["tests"]:
        path = Path(arg.split("::", 1)[0]).resolve()
        files = [f for f in ours if f == path or (path.is_dir() and f.is_relative_to(path))]
        for file in files:
            relative = file.relative_to(ROOT).as_posix()
            text = file.read_text(errors="replace")
            if relative.startswith(KAFKA_DIRS) or KAFKA_USE.search(text):
                needed.add("kafka")
            if relative.startswith(REGISTRY_DIRS) or REGISTRY_USE.search(text):
                needed.add("registry")
            if CHROMIUM_USE.search(text):
                needed.add("chromium")
    return needed


def _run(command: list[str]) -> int:
    return subprocess.run(command, cwd=ROOT, check=False).returncode


def prepare_kafka(
    jars_ready: Callable[[], bool],
    which: Callable[[str], str | None] = shutil.which,
    run: Run = _run,
) -> str | None:
    """Install Kafka's jars if missing; return None, or one line saying what to do."""
    return _prepare_from_maven(
        MavenTier(
            "kafka",
            "Apache Kafka tier",
            ("java", "mvn"),
            "Java 17+ and Maven (Debian: apt-get install openjdk-17-jre-headless maven)",
            INSTALL_KAFKA,
            "the jars",
            "run it to see why",
        ),
        jars_ready,
        which,
        run,
    )


def prepare_registry(
    ready: Callable[[], bool],
    which: Callable[[str], str | None] = shutil.which,
    run: Run = _run,
) -> str | None:
    """Install Apicurio Registry and its serde if missing; None, or one line saying what to do."""
    return _prepare_from_maven(
        MavenTier(
            "registry",
            "schema registry tier",
            ("java", "javac", "mvn"),
            "a JDK 17+ and Maven (Debian: apt-get install openjdk-17-jdk-headless maven)",
            INSTALL_REGISTRY,
            "Apicurio Registry",
            "run it",
        ),
        ready,
        which,
        run,
    )


@dataclass(frozen=True)
class MavenTier:
    """A tier fetched from Maven Central by an install script, and how to name it."""

    name: str
    label: str
    tools: tuple[str, ...]
    install_hint: str
    script: str
    fetched: str
    failed_hint: str


def _prepare_from_maven(
    tier: MavenTier,
    ready: Callable[[], bool],
    which: Callable[[str], str | None],
    run: Run,
) -> str | None:
    if ready():
        return None
    missing = [tool for tool in tier.tools if which(tool) is None]
    hint = SKIP_HINT.format(tier=tier.name)
    if missing:
        return (
            f"{tier.label}: {' and '.join(missing)} not installed; install {tier.install_hint}, "
            f"{hint}"
        )
    print(f"{tier.label}: fetching {tier.fetched} ({tier.script}) ...", flush=True)
    code = run(["bash", tier.script])
    if code != 0 or not ready():
        return f"{tier.label}: {tier.script} failed (exit {code}); {tier.failed_hint}, {hint}"
    return None


def prepare_chromium(
    which: Callable[[str], str | None] = shutil.which,
    run: Run = _run,
    is_root: bool | None = None,
) -> str | None:
    """Install Chromium if missing and possible; return None, or one line saying what to do."""
    if chromium_path(which) is not None:
        return None
    root = os.geteuid() == 0 if is_root is None else is_root
    hint = SKIP_HINT.format(tier="chromium")
    if root and which("apt-get"):
        print("Chromium tier: apt-get install chromium ...", flush=True)
        install = ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq"]
        install.append("chromium")
        if run(install) != 0:
            run(["apt-get", "update", "-qq"])
            run(install)
        if chromium_path(which) is not None:
            return None
        return f"Chromium tier: apt-get could not install chromium; {hint}"
    return f"Chromium tier: chromium is not installed; run `sudo apt-get install chromium`, {hint}"


def prepare(
    paths: Iterable[str],
    jars_ready: Callable[[], bool],
    registry_ready: Callable[[], bool] = lambda: True,
) -> str | None:
    """Set up every tier the selected tests need and were not told to skip."""
    try:
        wanted = tiers_needed(paths) - skipped_tiers()
    except ValueError as error:
        return str(error)
    problems = []
    if "kafka" in wanted:
        problems.append(prepare_kafka(jars_ready))
    if "registry" in wanted:
        problems.append(prepare_registry(registry_ready))
    if "chromium" in wanted:
        problems.append(prepare_chromium())
    said = [problem for problem in problems if problem]
    return "; ".join(said) if said else None
