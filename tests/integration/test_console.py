"""The operator console in real headless Chromium (Debian's ``chromium``) against one
running worker with live traffic: every page is opened, screenshotted and read back from
its DOM. The overview shows the queue depth the worker holds, matches and dead letters
that are on the topics; a match's and a ticket's page show exactly what
`wavematch explain` prints; nothing fetched from elsewhere, no dead letter's bytes."""

from __future__ import annotations

import random
import re
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image

from schemas import models as m
from schemas.codec import decode
from schemas.topics import queue_key
from streams.cli import main
from streams.embedded.broker import EmbeddedBroker
from tests.integration.conftest import WorkerFactory, wait_until, write_config
from tests.integration.kafka import produce, read_topic, read_topic_to_end
from tests.integration.traffic import join_body
from tests.tiers import CHROMIUM_FLAGS, chromium_path, skipped_tiers

CHROMIUM = chromium_path() or Path("/usr/bin/chromium")
CONFIG = """
partitions = 4
session_timeout_ms = 6000
heartbeat_interval_ms = 500
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu", "asia"]
wave_interval_ms = 1000
"""
#: A record no decoder reads: a dead letter whose bytes the console must not show.
POISON = b"\x00\x01 console-poison-bytes"

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        "chromium" in skipped_tiers() and not CHROMIUM.exists(),
        reason="chromium is not installed; skipped as WAVEMATCH_SKIP_TIERS asks",
    ),
]


@dataclass
class Console:
    web: str
    broker: str
    bootstrap: str
    config: Path
    tmp: Path


def now_ms() -> int:
    return int(time.time() * 1000)


def both_sides(number: int, rng: random.Random) -> list[tuple[bytes, bytes]]:
    """Two eu tickets a 1v1 wave can pair (one rated in both games)."""
    both = {"bw": rng.randint(1400, 1600), "sc2": rng.randint(1400, 1600)}
    return [
        (queue_key("1v1", "eu"), join_body(f"eu-{number}-{side}", "eu", rng, now_ms(), None, both))
        for side in ("a", "b")
    ]


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    tmp = tmp_path_factory.mktemp("console")
    with EmbeddedBroker(log_path=tmp / "broker.log") as broker:
        factory = WorkerFactory(broker, write_config(tmp / "wavematch.toml", CONFIG), tmp)
        worker = factory.start()
        rng = random.Random(36)
        lone = join_body("asia-alone", "asia", rng, now_ms(), None, {"bw": 1500})
        produce(broker.bootstrap, [(queue_key("1v1", "asia"), lone)])
        produce(broker.bootstrap, [(queue_key("1v1", "eu"), POISON)])
        stop = threading.Event()

        def live_traffic() -> None:  # a pair a second for as long as the pages are read
            number = 0
            while not stop.wait(1.0):
                produce(broker.bootstrap, both_sides(number, rng))
                number += 1

        traffic = threading.Thread(target=live_traffic, daemon=True)
        traffic.start()
        try:
            wait_until(
                lambda: read_topic(broker.bootstrap, "wavematch.matches.v1", 0.3), 60, "a match"
            )
            wait_until(
                lambda: read_topic(broker.bootstrap, "wavematch.deadletter.v1", 0.3),
                60,
                "a dead letter",
            )
            yield Console(worker.web, broker.url, broker.bootstrap, factory.config, tmp)
        finally:
            stop.set()
            traffic.join(10)
            factory.stop_all()


def chromium(tmp: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    profile = tmp / "chromium-profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run(
        [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def opened(console: Console, path: str, name: str) -> str:
    """The page's DOM as Chromium built it, after a screenshot that shows content."""
    url = f"{console.web}{path}"
    shot = console.tmp / f"{name}.png"
    done = chromium(console.tmp, "--window-size=1280,1600", f"--screenshot={shot}", url)
    assert shot.is_file(), done.stderr[-2000:]
    pixels = (image.imread(shot)[:, :, :3] * 255).round().astype(np.uint8)
    assert pixels.shape[:2] == (1600, 1280)
    inked = int((pixels.min(axis=2) < 128).sum())  # text and rules, not the background
    assert inked > 2_000, f"{name}: a blank page ({inked} dark pixels)"
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 8  # table shading, links, text
    dom = chromium(console.tmp, "--dump-dom", url)
    assert "<h1>" in dom.stdout, dom.stderr[-2000:]
    assert "http://" not in dom.stdout.replace(console.web, "")  # nothing from elsewhere
    assert "<script" not in dom.stdout
    return dom.stdout


class Tables(HTMLParser):
    """Each table's rows (cell texts) by table id, and the ``<pre>``'s text."""

    def __init__(self, dom: str) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.pre = ""
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._in_pre = False
        self.dom = dom
        self.feed(dom)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._table = dict(attrs).get("id") or "?"
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self.tables[self._table].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "pre":
            self._in_pre = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = None
        elif tag in ("td", "th") and self._cell is not None and self._table:
            self.tables[self._table][-1].append("".join(self._cell))
            self._cell = None
        elif tag == "pre":
            self._in_pre = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._in_pre:
            self.pre += data

    def rows(self, table: str) -> list[dict[str, str]]:
        head, *body = self.tables[table]
        return [dict(zip(head, row, strict=True)) for row in body]


def explain_output(console: Console, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert (
        main(["explain", *args, "--broker", console.broker, "--config", str(console.config)]) == 0
    )
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def overview(console: Console) -> Tables:
    return Tables(opened(console, "/console", "overview"))


def test_the_overview_shows_depth_waves_matches_and_dead_letters(
    console: Console, overview: Tables
) -> None:
    page = overview
    queues = {(r["queue"], r["region"]): r for r in page.rows("queues")}
    assert queues[("1v1", "asia")]["tickets"] == "1"  # the lone ticket waits
    assert int(queues[("1v1", "eu")]["waves closed"]) >= 1
    waves = page.rows("waves")
    assert waves and {w["queue"] for w in waves} == {"1v1"}
    # Each wave shown with its own record's counts (the last 20 waves may all be empty
    # on a loaded machine, whose traffic thread falls behind: the counts are what is read).
    closed = {
        (body.region, str(body.wave_number)): body
        for r in read_topic_to_end(console.bootstrap, "wavematch.waves.v1")
        if isinstance(body := decode(r.value or b""), m.WaveClosed)
    }
    for row in waves:
        record = closed[row["region"], row["wave"]]
        assert (int(row["matches"]), int(row["players"])) == (
            record.matches,
            record.players_in_snapshot,
        ), row
    published = {
        decode(r.value or b"").match_id
        for r in read_topic_to_end(console.bootstrap, "wavematch.matches.v1")
    }  # type: ignore[union-attr]
    shown = [m["match"] for m in page.rows("matches")]
    assert shown and set(shown) <= published
    dead = page.rows("deadletters")
    assert any(d["topic"] == "wavematch.queue.v1" for d in dead)
    assert "console-poison-bytes" not in page.dom and "original" not in page.dom


def test_a_match_page_says_what_explain_says(
    console: Console, overview: Tables, capsys: pytest.CaptureFixture[str]
) -> None:
    match_id = overview.rows("matches")[-1]["match"]  # the oldest shown
    assert f'href="/console/match?id={urllib.parse.quote(match_id)}"' in overview.dom
    page = Tables(opened(console, f"/console/match?id={urllib.parse.quote(match_id)}", "match"))
    assert page.pre.strip() == explain_output(console, capsys, match_id).strip()
    assert page.pre.startswith(f"match {match_id} (optimal)")


def test_a_ticket_page_tells_its_life_as_explain_does(
    console: Console, overview: Tables, capsys: pytest.CaptureFixture[str]
) -> None:
    match = overview.rows("matches")[-1]
    ticket = match["tickets"].split(", ")[0]
    page = Tables(opened(console, f"/console/ticket?id={urllib.parse.quote(ticket)}", "ticket"))
    assert page.pre.strip() == explain_output(console, capsys, "--ticket", ticket).strip()
    assert page.pre.startswith(f"ticket {ticket}\n") and "searching at place" in page.pre
    assert re.search(rf"dequeued MATCHED after \d+ waves?, match {match['match']}$", page.pre)


def test_unknown_ids_say_so(console: Console) -> None:
    dom = opened(console, "/console/ticket?id=no-such-ticket", "unknown-ticket")
    assert "ticket no-such-ticket: not in this log" in dom and "<pre" not in dom
    for kind in ("ticket", "match"):
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(f"{console.web}/console/{kind}?id=no-such-{kind}", timeout=30)
        assert answer.value.code == 404
        assert f"{kind} no-such-{kind}: not" in answer.value.read().decode()
    for bad in ("", "%01m", "m" * 129, "%ff%fe"):  # empty, control, too long, not UTF-8
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(f"{console.web}/console/match?id={bad}", timeout=30)
        assert answer.value.code == 400 and "id: give a match id" in answer.value.read().decode()
