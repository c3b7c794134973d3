"""`wavematch up --config FILE` prints joins that fit the file's first queue: a new user
pastes them, and the tail the banner prints shows their match (README: "its banner shows
joins that fit them"). Run as written against the live `up`, on two archetypes whose
players need roles (1v4) or attributes and numbers (`--player-json`, the dungeon)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import ROOT, running_up

pytestmark = pytest.mark.integration


def banner_commands(log: Path) -> list[str]:
    """The banner's `try` commands, in order."""
    text = log.read_text()
    block = text[text.index("  try        ") : text.index("Ctrl-C stops")]
    lines = [line.strip().removeprefix("try").strip() for line in block.splitlines()]
    return [re.sub(r"\s+\(a 1v1 duel.*\)$", "", line) for line in lines if line]


@pytest.mark.parametrize("example", ["rules-1v4-asymmetric", "rules-mmo-dungeon"])
def test_the_banner_joins_make_a_match(tmp_path: Path, example: str) -> None:
    text = (ROOT / "examples" / f"{example}.toml").read_text()
    config = tmp_path / "config.toml"
    config.write_text(re.sub(r"(?m)^wave_interval_ms = \d+$", "wave_interval_ms = 1000", text))
    state, log = tmp_path / "state", tmp_path / "up.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAVEMATCH_")}
    env["WAVEMATCH_STATE_DIR"] = str(state)
    with running_up(["up", "--config", str(config)], log, tmp_path, state):
        *joins, tail = banner_commands(log)
        assert joins and all(line.startswith("wavematch join ") for line in joins), joins
        assert tail.startswith("wavematch tail "), tail
        for line in joins:
            command = [sys.executable, "-m", "streams.cli", *shlex.split(line)[1:]]
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, line + "\n" + done.stderr
        command = [sys.executable, "-m", "streams.cli", *shlex.split(tail)[1:], "--field", "type"]
        shown = subprocess.run(command, env=env, capture_output=True, text=True, timeout=90)
        assert (shown.returncode, shown.stdout) == (0, "MatchCreated\n"), shown.stderr
        matched = subprocess.run(
            [sys.executable, "-m", "streams.cli", *shlex.split(tail)[1:]],
            env=env,
            capture_output=True,
            text=True,
            timeout=90,
        )
        seats = [s for team in json.loads(matched.stdout)["teams"] for s in team["players"]]
        assert len(seats) == len(joins)
    # Written to a file, not a terminal: no cursor codes from Faust's start-up spinner.
    assert "\x1b" not in log.read_text()
