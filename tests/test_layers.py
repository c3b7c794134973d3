"""The layers are declared and kept: import-linter's contracts, and no import cycle.

The contracts live in pyproject.toml ([tool.importlinter]): matcher imports neither
schemas nor streams; streams sits above both; a region's state sits below the steps that
call it; streams/wire below streams/worker (docs/adr/0125). The cycle check walks every
module-level import (TYPE_CHECKING ones included) of matcher/ and streams/.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(config: Path) -> subprocess.CompletedProcess[str]:
    command = [str(LINT_IMPORTS) if LINT_IMPORTS.exists() else shutil.which("lint-imports")]
    return subprocess.run(
        [*command, "--config", str(config), "--no-cache"],  # type: ignore[list-item]
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_import_contracts_are_kept() -> None:
    run = _lint_imports(ROOT / "pyproject.toml")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


def test_a_broken_contract_fails(tmp_path: Path) -> None:
    # The state's own steps import it: declaring the state above them must fail.
    config = tmp_path / "contracts.toml"
    config.write_text(
        '[tool.importlinter]\nroot_packages = ["matcher"]\n\n'
        "[[tool.importlinter.contracts]]\n"
        'name = "upside down"\ntype = "layers"\n'
        'layers = ["matcher.queue.state", "matcher.queue.wave"]\n'
    )
    run = _lint_imports(config)
    assert run.returncode != 0
    assert "upside down BROKEN" in run.stdout


def import_cycles(packages: tuple[str, ...]) -> list[list[str]]:
    """Every set of modules of ``packages`` that import each other in a circle."""
    graph = grimp.build_graph(*packages)
    edges = nx.DiGraph()
    for module in graph.modules:
        edges.add_node(module)
        for imported in graph.find_modules_directly_imported_by(module):
            edges.add_edge(module, imported)
    return sorted(sorted(c) for c in nx.strongly_connected_components(edges) if len(c) > 1)


def test_no_import_cycle_in_matcher_or_streams() -> None:
    assert import_cycles(("matcher", "streams")) == []


def test_the_cycle_check_finds_a_cycle(tmp_path: Path, monkeypatch) -> None:
    package = tmp_path / "circle"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from circle import b\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from circle import a\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles(("circle",)) == [["circle.a", "circle.b"]]
