"""The publishing commands import only what they need: no numpy, SciPy, matplotlib or
Faust for a `wavematch join` (each costs a short command a large part of a second)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("numpy", "scipy", "matplotlib", "faust")
ROOT = Path(__file__).resolve().parents[2]

COMMANDS = {
    "join": ["--queue", "1v1", "--region", "eu", "--player", "alice:bw=1500"],
    "leave": ["--queue", "1v1", "--region", "eu", "--ticket", "t-1"],
    "accept": ["--queue", "1v1", "--region", "eu", "--match", "m-1", "--player", "alice"],
    "decline": ["--queue", "1v1", "--region", "eu", "--match", "m-1", "--player", "alice"],
    "placed": ["--queue", "1v1", "--region", "eu", "--match", "m-1", "STARTED"],
}

#: Runs the command as `wavematch` does, its settings loaded and its event built and
#: encoded, up to the broker: the send is replaced by the imports the real one makes.
RUN = """
import json, sys
import streams.commands.publish as publish

def on_broker(settings, work, timeout_s=None):
    import aiokafka, streams.connection
    work  # the coroutine factory is not awaited: no broker here
    return publish.Sent(0, 0)

publish.on_broker = on_broker
from streams.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "heavy": sorted(
    name for name in sys.modules if name.split(".")[0] in %r)}))
"""


def run_command(argv: list[str], config: Path | None = None) -> dict[str, object]:
    extra = ["--config", str(config)] if config else []
    done = subprocess.run(
        [sys.executable, "-c", RUN % (HEAVY,), *argv, "--broker", "kafka://127.0.0.1:1", *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_publishing_command_imports_no_solver_plotting_or_faust(command: str) -> None:
    argv = [command, *COMMANDS[command]]
    assert run_command(argv) == {"code": 0, "heavy": []}


def test_a_configured_duel_queue_is_validated_without_its_solver(tmp_path: Path) -> None:
    config = tmp_path / "duel.toml"
    config.write_text(
        '[[queues]]\nname = "1v1"\nstrategy = "optimal"\nregions = ["eu"]\n'
        "rules = {max_distance = {base = 200}}\n\n"
        '[[queues]]\nname = "ladder"\nstrategy = "ladder-v2.1"\nregions = ["eu"]\n'
    )
    argv = ["join", *COMMANDS["join"]]
    assert run_command(argv, config) == {"code": 0, "heavy": []}


def test_configured_team_queues_are_validated_without_their_solvers(tmp_path: Path) -> None:
    config = tmp_path / "teams.toml"
    config.write_text(
        '[[queues]]\nname = "5v5"\nstrategy = "rebalance"\nteam_size = 5\n'
        'options = {method = "greedy"}\nrules = {max_spread = {base = 300}}\n\n'
        '[[queues]]\nname = "3v3"\nstrategy = "game-queue"\nteam_size = 3\n\n'
        '[[queues]]\nname = "4v4"\nstrategy = "multifactor"\nteam_size = 4\n'
    )
    argv = ["join", "--queue", "5v5", *COMMANDS["join"][2:]]
    assert run_command(argv, config) == {"code": 0, "heavy": []}
