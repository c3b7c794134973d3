"""docs/simulator.md shows what the simulator prints today (issue 33: a stale
fingerprint and example files that did not exist)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from streams.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "simulator.md"
BLOCK = re.compile(r"<!-- doc-output: [^>]*-->\n```bash\n(?P<body>.*?)```", re.S)


def test_the_what_if_example_prints_what_the_doc_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (block,) = BLOCK.findall(DOC.read_text())
    command = " ".join(
        line for line in block.replace("\\\n", " ").splitlines() if not line.startswith("#")
    )
    shown = [line[2:] for line in block.splitlines() if line.startswith("# ")]
    argv = shlex.split(command)
    assert argv[0] == "wavematch"
    for path in argv:
        if path.endswith((".avro", ".toml")):
            assert (ROOT / path).is_file(), f"{path} is named in the doc but does not exist"
    monkeypatch.chdir(tmp_path)
    for name in ("tests", "docs"):
        (tmp_path / name).symlink_to(ROOT / name)
    assert main(argv[1:]) == 0
    assert capsys.readouterr().out.splitlines() == shown
