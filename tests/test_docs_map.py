"""The docs are a map: the ADR index lists every ADR once, wholly superseded ones live
under docs/adr/history/, and every relative link in the Markdown files resolves."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ADR = ROOT / "docs" / "adr"
INDEX = (ADR / "README.md").read_text()
LINK = re.compile(r"\]\(([^)\s]+)\)")


def index_rows() -> dict[str, str]:
    """Linked ADR file (relative to docs/adr) -> its index row."""
    rows: dict[str, str] = {}
    for line in INDEX.splitlines():
        match = re.match(r"\| \[\d{4}\]\(([^)]+)\) \|", line)
        if match:
            rows[match.group(1)] = line
    return rows


def test_the_index_lists_every_adr_once() -> None:
    files = {p.relative_to(ADR).as_posix() for p in ADR.rglob("[0-9]*.md")}
    rows = index_rows()
    assert set(rows) == files
    assert len(rows) == len(
        [line for line in INDEX.splitlines() if re.match(r"\| \[\d{4}\]", line)]
    )


def test_wholly_superseded_adrs_live_in_history() -> None:
    for path, row in index_rows().items():
        status = row.rstrip(" |").rsplit("|", 1)[-1].strip()
        in_history = path.startswith("history/")
        wholly_superseded = not status.startswith("accepted")
        assert in_history == wholly_superseded, row


def test_every_relative_link_in_the_docs_resolves() -> None:
    broken = []
    for page in ROOT.rglob("*.md"):
        if {".venv", ".git", "node_modules"} & set(page.relative_to(ROOT).parts):
            continue
        for target in LINK.findall(page.read_text()):
            path = target.split("#", 1)[0]
            if not path or re.match(r"[a-z][a-z0-9+.-]*:", path):
                continue
            if not (page.parent / path).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []
