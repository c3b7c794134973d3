"""Every command block the docs mark as runnable runs, as written, against a live `up`.

A block marked ``<!-- doc-commands: up ARGS -->`` above its fence is run with ``bash -e``
from a directory that looks like the repository's root (``.venv``, ``examples``,
``docs``), while ``wavematch up ARGS`` (on the embedded broker) runs beside it; blocks
sharing ARGS share one `up` and run side by side, as a reader's terminals would: each
such block keeps to its own region (docs/ready-checks.md says so), so none waits for
another's wave or ready check.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.integration.conftest import running_up

ROOT = Path(__file__).resolve().parent.parent
MARKED = re.compile(r"<!-- doc-commands: (?P<up>[^>]*?) -->\n```bash\n(?P<body>.*?)```", re.S)
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

pytestmark = pytest.mark.integration


def marked_blocks() -> dict[str, list[tuple[str, str]]]:
    """up arguments -> [(where, block)] in page order."""
    blocks: dict[str, list[tuple[str, str]]] = {}
    for page in PAGES:
        text = page.read_text()
        for found in MARKED.finditer(text):
            line = text[: found.start()].count("\n") + 1
            where = f"{page.relative_to(ROOT)}:{line}"
            blocks.setdefault(found["up"].strip(), []).append((where, found["body"]))
    return blocks


def test_the_docs_mark_their_walk_throughs() -> None:
    blocks = marked_blocks()
    assert "up" in blocks, "README's Try it is not marked"
    assert len(blocks.get("up --config examples/ready-check.toml", [])) == 4


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    """A directory with the repository's paths the commands name."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".venv").symlink_to(Path(sys.executable).parent.parent)
    for name in ("examples", "docs"):
        (root / name).symlink_to(ROOT / name)
    return root


@pytest.fixture
def live_up(
    request: pytest.FixtureRequest, sandbox: Path, tmp_path: Path
) -> Iterator[dict[str, str]]:
    args = shlex.split(request.param)
    assert args[0] == "up"
    state = tmp_path / "state"
    log = tmp_path / "up.log"
    with running_up(args, log, sandbox, state):
        yield {"WAVEMATCH_STATE_DIR": str(state)}
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]


@pytest.mark.parametrize("live_up", sorted(marked_blocks()), indirect=True)
def test_documented_commands_run_as_written(
    live_up: dict[str, str], sandbox: Path, request: pytest.FixtureRequest
) -> None:
    up = request.node.callspec.params["live_up"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("WAVEMATCH_")} | live_up

    def run(block: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block],
            cwd=sandbox,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    blocks = marked_blocks()[up]
    with ThreadPoolExecutor(len(blocks)) as pool:
        runs = list(pool.map(run, [block for _, block in blocks]))
    for (where, _), done in zip(blocks, runs, strict=True):
        assert done.returncode == 0, (
            f"{where}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
        )
        assert "Traceback" not in done.stderr, f"{where}:\n{done.stderr}"
