"""Plug-in strategies from installed packages (docs/plug-ins.md): a package declaring a
strategy in the ``wavematch.strategies`` entry-point group is found by every process with
no setting; one that fails to load is one line naming it. Each case runs in its own
process, with a package installed the way pip leaves one (a module and its dist-info on
the path), so the registry of this test process is left alone."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_3V3 = ROOT / "examples" / "wave-3v3.json"
GUIDE = ROOT / "docs" / "plug-ins.md"

#: Two entry points beside the guide's: a plug-in that fails and one that registers
#: nothing.
FAILING = """

def broken():
    raise RuntimeError("no licence server")


def silent():
    pass
"""


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(), flags=re.DOTALL)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding docs/plug-ins.md's example as pip installs a package: its module
    (with :data:`FAILING`) and a dist-info with the entry points its pyproject declares."""
    site = tmp_path_factory.mktemp("site")
    declared = tomllib.loads(_blocks("toml")[0])["project"]["entry-points"]
    points = declared["wavematch.strategies"]
    (module,) = {value.split(":")[0] for value in points.values()}
    (site / f"{module}.py").write_text(_blocks("python")[0] + FAILING)
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    lines = [f"{name} = {value}" for name, value in points.items()]
    lines += [f"studio-broken = {module}:broken", f"studio-silent = {module}:silent"]
    (info / "entry_points.txt").write_text("[wavematch.strategies]\n" + "\n".join(lines) + "\n")
    return site


def _duel_wave(tmp_path: Path) -> Path:
    """Five solo tickets of a 1v1 queue in the generic wave format (docs/wave-format.md)."""
    data = json.loads(EXAMPLE_3V3.read_text())
    data["queue"], data["profile"]["team_size"] = "1v1", 1
    data["tickets"] = [
        {
            "ticket_id": f"t{i}",
            "party_id": f"t{i}",
            "wait_cycles": 0,
            "joined_at_ms": 1_000 * (6 - i),
            "players": [{"player_id": f"p{i}", "ratings": {"mmr": 1500 + i}}],
        }
        for i in range(5)
    ]
    path = tmp_path / "wave.json"
    path.write_text(json.dumps(data))
    return path


def _run(site: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``wavematch ARGV`` with ``site``'s packages installed."""
    return _python(site, "-m", "streams.cli", *argv)


def _python(site: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def test_the_guide_s_plug_in_closes_a_wave(installed: Path, tmp_path: Path) -> None:
    """Paired two by two in join order, the last to join left over."""
    wave = _duel_wave(tmp_path)
    found = _run(installed, "wave", "--strategy", "first-come-pairs", "--input", str(wave))
    assert found.returncode == 0, found.stderr
    result = json.loads(found.stdout)
    pairs = [
        sorted(seat["ticket_id"] for team in match["teams"] for seat in team["seats"])
        for match in result["matches"]
    ]
    assert pairs == [["t3", "t4"], ["t1", "t2"]]
    assert result["unmatched"] == ["t0"]


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        (
            "studio-broken",
            "strategy 'studio-broken': its plug-in first_come_pairs:broken failed to load: "
            "RuntimeError: no licence server",
        ),
        (
            "studio-silent",
            "strategy 'studio-silent': its plug-in first_come_pairs:silent registered no "
            "strategy of that name",
        ),
    ],
)
def test_a_plug_in_failing_to_load_is_one_line(installed: Path, name: str, reason: str) -> None:
    found = _run(installed, "wave", "--strategy", name, "--input", str(EXAMPLE_3V3))
    assert found.returncode == 2
    assert found.stderr.strip().splitlines() == [f"wavematch wave: error: --strategy: {reason}"]


def test_a_worker_validates_a_plug_in_queue_at_start(installed: Path, tmp_path: Path) -> None:
    """The settings load the plug-in: its revision enters the fingerprint; a queue whose
    plug-in fails, or that asks it for rules, stops the start with one line before any
    broker is reached."""
    config = tmp_path / "wavematch.toml"
    queue = '[[queues]]\nname = "1v1"\nstrategy = "{}"\nregions = ["eu"]\n'
    config.write_text(queue.format("studio-broken"))
    stopped = _run(installed, "worker", "--config", str(config), "--broker", "kafka://127.0.0.1:9")
    assert stopped.returncode == 2
    assert stopped.stderr.strip().splitlines() == [
        "wavematch worker: error: queues.0: queue '1v1': strategy 'studio-broken': its plug-in "
        "first_come_pairs:broken failed to load: RuntimeError: no licence server"
    ]
    config.write_text(queue.format("first-come-pairs") + "[queues.rules]\nmax_distance = 100\n")
    refused = _run(installed, "worker", "--config", str(config), "--broker", "kafka://127.0.0.1:9")
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        "wavematch worker: error: queues.0: queue '1v1': rules.max_distance: not honoured by "
        "strategy 'first-come-pairs' (it honours: none)"
    ]
    config.write_text(queue.format("first-come-pairs"))
    script = (
        "import sys; from streams.settings import load_settings; "
        "from matcher.strategies import decision_revision; "
        "s = load_settings(sys.argv[1]); print(decision_revision(s.queues[0].strategy))"
    )
    loaded = _python(installed, "-c", script, str(config))
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "1"


def test_an_unknown_strategy_names_the_installed_plug_ins(installed: Path) -> None:
    found = _run(installed, "wave", "--strategy", "nope", "--input", str(EXAMPLE_3V3))
    assert found.returncode == 2
    assert "first-come-pairs" in found.stderr and "optimal" in found.stderr
