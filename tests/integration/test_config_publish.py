"""Rule changes through the log (docs/adr/0160), end to end: `wavematch config publish`
mid-traffic switches every region at one of its ticks; a worker started afterwards (a
takeover) ticks under the published configuration too; a bad file is refused by the
command and a bad record on the topic by the worker (a metric), changing nothing; and the
log replays IDENTICAL with no settings file."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

import pytest

from schemas import models as m
from schemas.codec import decode, encode
from schemas.topics import CONFIG, queue_key
from streams.cli import main
from streams.settings import load_settings
from streams.worker.config_log import PUBLISHED_KEY
from streams.worker.config_record import config_published
from tests.integration.conftest import wait_until
from tests.integration.kafka import produce, read_topic

pytestmark = pytest.mark.integration

NARROW = """
partitions = 4
session_timeout_ms = 6000
heartbeat_interval_ms = 500
[[queues]]
name = "ladder"
strategy = "optimal"
regions = ["eu", "na"]
maps = ["Polypoid"]
wave_interval_ms = 1000
[queues.rules]
rating = "mmr"
max_distance = 100
"""
WIDE = NARROW.replace("max_distance = 100", "max_distance = 400")
#: Not publishable: the partitions fix the ticks' keys' homes.
REPARTITIONED = WIDE.replace("partitions = 4", "partitions = 8")
#: Not publishable either: claims shape the queue's state (and are written in the record
#: only when on).
CLAIMS = "one_ticket_per_player = true\n" + WIDE


def join(boot: str, ticket: str, mmr: int, region: str) -> None:
    body = {
        "type": "TicketJoined",
        "ticket_id": ticket,
        "queue": "ladder",
        "region": region,
        "joined_at_ms": int(time.time() * 1000),
        "players": [{"player_id": ticket, "ratings": {"mmr": mmr}}],
    }
    produce(boot, [(queue_key("ladder", region), json.dumps(body).encode())])


def waves(boot: str) -> list[m.WaveClosed]:
    return [decode(r.value or b"") for r in read_topic(boot, "wavematch.waves.v1", 0.3)]


def matched(boot: str) -> dict[frozenset[str], m.MatchCreated]:
    found = {}
    for record in read_topic(boot, "wavematch.matches.v1", 0.3):
        match = decode(record.value or b"")
        if isinstance(match, m.MatchCreated):
            found[frozenset(p.player_id for t in match.teams for p in t.players)] = match
    return found


def match_of(boot: str, *players: str) -> m.MatchCreated:
    return wait_until(lambda: matched(boot).get(frozenset(players)), 60, f"a match of {players}")


def refused(web: str) -> float:
    with urllib.request.urlopen(f"{web}/metrics", timeout=10) as response:
        for line in response.read().decode().splitlines():
            if line.startswith("wavematch_configs_refused_total "):
                return float(line.split()[1])
    return 0.0


@pytest.mark.wavematch_config(NARROW)
def test_a_published_configuration_switches_every_region_at_a_tick_and_replays(
    broker, worker_factory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    boot = broker.bootstrap
    narrow = load_settings(worker_factory.config).config_fingerprint()
    wide_file = tmp_path / "wide.toml"
    wide_file.write_text(WIDE)
    wide = load_settings(wide_file).config_fingerprint()
    worker = worker_factory.start()
    for region in ("eu", "na"):  # 200 apart: never under NARROW
        join(boot, f"{region}-low", 1500, region)
        join(boot, f"{region}-high", 1700, region)
    wait_until(
        lambda: len({w.region for w in waves(boot) if w.players_in_snapshot}) == 2,
        60,
        "a wave holding each pair",
    )
    assert matched(boot) == {}

    bad = tmp_path / "repartitioned.toml"
    bad.write_text(REPARTITIONED)
    assert main(["config", "publish", str(bad), "--broker", broker.url]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "partitions" in err, err
    assert main(["config", "publish", str(wide_file), "--broker", broker.url]) == 0
    assert wide in capsys.readouterr().out

    for region in ("eu", "na"):
        match = match_of(boot, f"{region}-low", f"{region}-high")
        assert match.config_fingerprint == wide
        # Each region's waves: the worker's own, then from one tick on the published one.
        fingerprints = [w.config_fingerprint for w in waves(boot) if w.region == region]
        switch = fingerprints.index(wide)
        assert set(fingerprints[:switch]) == {narrow} and switch > 0
        assert set(fingerprints[switch:]) == {wide}

    # A record the command would have refused, written to the topic directly: the worker
    # refuses it, counts it, and keeps the configuration in force.
    produce(boot, [(PUBLISHED_KEY, b"not a ConfigPublished")], topic=CONFIG.name)
    wait_until(lambda: refused(worker.web) == 1.0, 30, "the bad record refused")

    # A worker started after the change, with the old file, takes over: it reads the
    # configuration in force from the log.
    worker.stop()
    worker = worker_factory.start()
    join(boot, "eu-late-low", 1500, "eu")
    join(boot, "eu-late-high", 1750, "eu")
    assert match_of(boot, "eu-late-low", "eu-late-high").config_fingerprint == wide
    worker.stop()

    # No settings file: the configuration of each wave comes from the log.
    code = main(["replay", "--broker", broker.url, "--quiet"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"switched to          config {wide}" in out
    assert out.rstrip().endswith("verdict              IDENTICAL"), out


@pytest.mark.wavematch_config(NARROW)
def test_a_claims_change_is_refused_and_a_refused_record_blocks_no_later_publish(
    broker, worker_factory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """QA outside try: `config publish` read the running configuration's missing
    one_ticket_per_player as the new file's, published a claims change the workers then
    refused, and judged every later file against that refused record, so no file of the
    running shape (the undo included) could be published again."""
    boot = broker.bootstrap
    worker = worker_factory.start()
    wait_until(lambda: waves(boot), 60, "a first wave")
    claims, wide = tmp_path / "claims.toml", tmp_path / "wide.toml"
    claims.write_text(CLAIMS)
    wide.write_text(WIDE)
    assert main(["config", "publish", str(claims), "--broker", broker.url]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "one_ticket_per_player" in err, err

    # The record the command refuses, written by an older command: the workers refuse it,
    # and it is not what the next file is judged against.
    record = config_published(load_settings(claims), int(time.time() * 1000))
    produce(boot, [(PUBLISHED_KEY, encode(record))], topic=CONFIG.name)
    wait_until(lambda: refused(worker.web) == 1.0, 30, "the claims record refused")
    assert main(["config", "publish", str(wide), "--broker", broker.url]) == 0, (
        capsys.readouterr().err
    )
    wide_fingerprint = load_settings(wide).config_fingerprint()
    wait_until(
        lambda: {w.config_fingerprint for w in waves(boot)} >= {wide_fingerprint},
        60,
        "a wave under the published file",
    )
    worker.stop()
