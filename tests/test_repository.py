"""The repository keeps its promises: the core stays pure, CI runs the README's command."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Modules the pure core must never import (nor any of their submodules).
FORBIDDEN_IN_MATCHER = {
    "asyncio",
    "faust",
    "mode",
    "aiokafka",
    "kafka",
    "confluent_kafka",
    "pydantic",
    "pydantic_settings",
    "fastavro",
    "avro",
    "streams",
    "schemas",
    "socket",
    "threading",
    "multiprocessing",
    "subprocess",
}


def _imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", "") == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            roots.add(str(node.args[0].value).split(".")[0])
    return roots


def test_matcher_imports_nothing_impure() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(_imported_roots(path) & FORBIDDEN_IN_MATCHER)
        for path in (ROOT / "matcher").rglob("*.py")
    }
    assert {path: bad for path, bad in offenders.items() if bad} == {}


def test_purity_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import asyncio\nfrom pydantic import BaseModel\nimport math\n")
    assert _imported_roots(sample) & FORBIDDEN_IN_MATCHER == {"asyncio", "pydantic"}


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```bash\n(.*?)```", readme, re.S)
    assert block, "README's first screen has no bash block"
    commands = [line for line in block.group(1).splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2, "README's first screen shows install-and-run, then test"
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert commands[1] in ci_lines
    assert ci_lines[-1] == commands[1], "the test command is the last thing CI runs"
