"""The console's HTML: pure functions from plain rows to a page (no I/O, no script)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from html import escape
from typing import Any
from urllib.parse import quote

#: Hand-written and small on purpose: the console must render with no network access.
STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1d2330; background: #fafbfc; }
h1 { font-size: 1.5em; margin: 0 0 .3em; } h2 { font-size: 1.15em; margin: 1.4em 0 .4em; }
nav a, nav form { margin-right: 1em; } nav form { display: inline; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #d5dae1; padding: .25em .6em; text-align: left; }
th { background: #e8edf4; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #fff; border: 1px solid #d5dae1; padding: .8em; overflow-x: auto; }
.empty { color: #6a7382; font-style: italic; } .bad { color: #a3221b; }
"""

Row = dict[str, Any]


def page(title: str, body: str, status_line: str = "") -> str:
    """A whole document: the title, the navigation, ``body`` (already escaped HTML)."""
    nav = (
        '<nav><a href="/console">overview</a>'
        + _search("/console/ticket", "ticket id")
        + _search("/console/match", "match id")
        + "</nav>"
    )
    status = f'<p class="bad">{escape(status_line)}</p>' if status_line else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)} - wavematch</title><style>{STYLE}</style></head>"
        f"<body><h1>{escape(title)}</h1>{nav}{status}{body}</body></html>"
    )


def overview(
    queues: Sequence[Row], waves: Sequence[Row], matches: Sequence[Row], dead: Sequence[Row]
) -> str:
    """The overview: queues and depth per region, last waves, recent matches, dead letters."""
    body = (
        "<h2>Queues of this worker</h2>"
        + table(
            "queues",
            ("queue", "region", "partition", "tickets", "players", "waves closed"),
            (
                (q["queue"], q["region"], q["partition"], q["tickets"], q["players"], q["waves"])
                for q in queues
            ),
        )
        + "<h2>Last waves</h2>"
        + table(
            "waves",
            ("closed", "queue", "region", "wave", "players", "matches", "matched",
             "unmatched", "expired", "avg diff", "strategy", "ms"),
            (
                (
                    _time(w["closed_at_ms"]), w["queue"], w["region"], w["wave_number"],
                    w["players_in_snapshot"], w["matches"], w["matched_players"],
                    w["unmatched"], w["expired"], _figure(w["avg_rating_diff"]),
                    w["strategy"], _figure(w["duration_ms"]),
                )
                for w in waves
            ),
        )
        + "<h2>Recent matches</h2>"
        + table(
            "matches",
            ("at", "match", "type", "queue", "region", "tickets"),
            (
                (
                    _time(m["at_ms"]), Link("match", m["match_id"]), m["type"], m["queue"],
                    m["region"], Links("ticket", m["tickets"]),
                )
                for m in matches
            ),
        )
        + "<h2>Dead letters</h2>"
        + table(
            "deadletters",
            ("failed", "topic", "partition", "offset", "code", "field", "reason"),
            (
                (
                    _time(d["failed_at_ms"]), d["topic"], d["partition"], d["offset"],
                    d["error_code"], d["field"] or "", d["reason"],
                )
                for d in dead
            ),
        )
    )  # fmt: skip
    return page("wavematch console", body)


def answer(title: str, lines: Sequence[str] | None, missing: str) -> str:
    """An `explain` answer as a page; ``missing`` when the log holds none."""
    if lines is None:
        return page(title, "", missing)
    return page(title, f'<pre id="answer">{_linked(lines)}</pre>')


class Link:
    """A cell linking to the console's page of a match or a ticket."""

    def __init__(self, kind: str, ident: str) -> None:
        self.kind, self.ident = kind, ident

    def html(self) -> str:
        href = f"/console/{self.kind}?id={quote(self.ident, safe='')}"
        return f'<a href="{escape(href)}">{escape(self.ident)}</a>'


class Links:
    def __init__(self, kind: str, idents: Iterable[str]) -> None:
        self.links = [Link(kind, ident) for ident in idents]

    def html(self) -> str:
        return ", ".join(link.html() for link in self.links)


def table(name: str, headings: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    cells = ["<tr>" + "".join(_cell(value) for value in row) + "</tr>" for row in rows]
    if not cells:
        return f'<p class="empty" id="{name}">none yet</p>'
    head = "<tr>" + "".join(f"<th>{escape(h)}</th>" for h in headings) + "</tr>"
    return f'<table id="{name}">{head}{"".join(cells)}</table>'


def _cell(value: Any) -> str:
    if isinstance(value, Link | Links):
        return f"<td>{value.html()}</td>"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f'<td class="n">{escape(str(value))}</td>'
    return f"<td>{escape(str(value))}</td>"


def _search(action: str, label: str) -> str:
    return (
        f'<form action="{action}" method="get"><input name="id" placeholder="{label}" '
        f'aria-label="{label}"> <button>show</button></form>'
    )


def _time(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _figure(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def _linked(lines: Sequence[str]) -> str:
    return "\n".join(escape(line) for line in lines)
