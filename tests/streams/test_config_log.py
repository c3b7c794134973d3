"""Rule changes through the log (docs/adr/0160): a configuration published to the config
topic is folded into the workers' catalog, a region switches to it at the first tick that
carries it, and a replay of the log re-derives every wave under the configuration in force
at its tick, with no settings file. A bad configuration is refused and changes nothing."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from matcher.queue.records import queue_from_record, queue_to_record
from schemas import models as m
from schemas.codec import encode
from schemas.topics import CLEANUP, CONFIG, DEADLETTER, MATCHES, WAVES
from streams.audit.logfile import write_log
from streams.cli import main
from streams.settings import QueueSettings, Settings
from streams.worker.config_log import PUBLISHED_KEY, ConfigCatalog
from streams.worker.config_record import config_published
from tests.streams.test_lifecycle_log import T0, Log


def ladder(max_distance: int, **overrides: Any) -> Settings:
    queue = QueueSettings(
        name="ladder",
        strategy="optimal",
        regions=("eu", "na"),
        maps=("Polypoid",),
        rules={"rating": "mmr", "max_distance": max_distance},
    )
    return Settings(queues=(queue,), **{"partitions": 4, **overrides})


NARROW, WIDE = ladder(100), ladder(400)


def joined(ticket: str, mmr: int, at_s: int, region: str = "eu") -> m.TicketJoined:
    return m.TicketJoined.model_validate(
        {
            "ticket_id": ticket,
            "queue": "ladder",
            "region": region,
            "joined_at_ms": T0 + at_s * 1000,
            "players": [{"player_id": ticket, "ratings": {"mmr": mmr}}],
        }
    )


def ticked(config: Settings, at_s: int, region: str = "eu") -> m.WaveTick:
    at = T0 + at_s * 1000
    return m.WaveTick(
        queue="ladder",
        region=region,
        wave_id=str(at),
        sequence=at,
        tick_at_ms=at,
        config_fingerprint=config.config_fingerprint(),
        interval_ms=10_000,
    )


def config_record(config: Settings, key: bytes | None = None) -> tuple[bytes, bytes]:
    record = config_published(config, T0)
    return key or record.config_fingerprint.encode(), encode(record)


def published_log(own: Settings, published: Settings) -> tuple[Log, ConfigCatalog]:
    """A worker's log under ``own`` whose config topic holds its own record, then
    ``published``'s, both offered to the worker's catalog."""
    log = Log(own)
    catalog = ConfigCatalog(own, log.folder.layouts)
    for key, value in (config_record(own), config_record(published, PUBLISHED_KEY)):
        log.produce(CONFIG.name, key, value)
        catalog.offer(key, value)
    return log, catalog


def matched(log: Log) -> list[set[str]]:
    return [
        {p.player_id for team in match.teams for p in team.players}
        for match in log.published(MATCHES.name)
        if isinstance(match, m.MatchCreated)
    ]


def live_session() -> Log:
    """A worker started under NARROW; WIDE is published; the timer's ticks carry NARROW,
    then WIDE (in eu only: na's next tick comes later), then NARROW again."""
    log, catalog = published_log(NARROW, WIDE)
    assert catalog.in_force == WIDE.config_fingerprint()
    log.send(joined("alice", 1500, 1))
    log.send(joined("bob", 1700, 2))
    log.send(joined("nadia", 1500, 3, "na"))
    log.send(joined("nico", 1700, 4, "na"))
    log.send(ticked(NARROW, 10))  # 200 apart: not under NARROW
    log.send(ticked(NARROW, 10, "na"))
    log.send(ticked(WIDE, 20))  # eu switches here
    log.send(ticked(NARROW, 20, "na"))  # na's timer had not switched yet
    log.send(joined("carol", 1500, 21))
    log.send(joined("dave", 1750, 22))
    log.send(ticked(WIDE, 30))
    log.send(joined("erin", 1500, 31))
    log.send(joined("frank", 1700, 32))
    log.send(ticked(NARROW, 40))  # and back
    return log


def test_a_region_switches_at_the_first_tick_that_carries_the_configuration() -> None:
    log = live_session()
    # alice-bob under WIDE at 20 s; na's pair never (NARROW); erin-frank not after the
    # switch back at 40 s.
    assert matched(log) == [{"alice", "bob"}, {"carol", "dave"}]
    states = [s.book.regions for s in log.states.values()]
    eu = next(r[("ladder", "eu")] for r in states if ("ladder", "eu") in r)
    na = next(r[("ladder", "na")] for r in states if ("ladder", "na") in r)
    assert eu.config is None and na.config is None  # both under the worker's own


def test_the_log_replays_identically_with_no_settings_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "switched.avro"
    write_log(path, live_session().records, {})
    assert main(["replay", "--log", str(path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"switched to          config {WIDE.config_fingerprint()} by the ticks of 2" in out
    assert out.rstrip().endswith("verdict              IDENTICAL")


def test_a_replay_without_the_published_record_cannot_judge_the_switched_waves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [r for r in live_session().records if r.key != PUBLISHED_KEY]
    records = [r for r in records if r.key != WIDE.config_fingerprint().encode()]
    path = tmp_path / "unknown.avro"
    write_log(path, records, {})
    assert main(["replay", "--log", str(path), "--quiet"]) == 3
    assert "NOT COMPARED" in capsys.readouterr().out


def test_a_replay_under_a_named_configuration_counts_only_the_regions_it_judges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, config = tmp_path / "switched.avro", tmp_path / "narrow.toml"
    write_log(path, live_session().records, {})
    config.write_text(
        'partitions = 4\n[[queues]]\nname = "ladder"\nstrategy = "optimal"\n'
        'regions = ["eu", "na"]\nmaps = ["Polypoid"]\n'
        'rules = { rating = "mmr", max_distance = 100 }\n'
    )
    assert main(["replay", "--log", str(path), "--config", str(config)]) == 3
    out = capsys.readouterr().out
    # eu switched to WIDE at 20 s: none of its four waves is judged; na's two are.
    assert "waves checked        2\n" in out
    assert "wave summaries       2 of 2\n" in out
    assert "regions not compared ladder/eu: each closed a wave under another" in out
    assert "(2 waves under another configuration; the 2 compared identical)" in out


def test_the_region_keeps_its_configuration_through_a_snapshot() -> None:
    log = Log(NARROW)
    ConfigCatalog(NARROW, log.folder.layouts).offer(*config_record(WIDE, PUBLISHED_KEY))
    log.send(ticked(WIDE, 10))
    state = next(s for s in log.states.values() if ("ladder", "eu") in s.book.regions)
    eu = state.book.regions[("ladder", "eu")]
    assert eu.config == WIDE.config_fingerprint()
    assert queue_from_record(queue_to_record(eu)).config == WIDE.config_fingerprint()
    eu.config = None  # under the worker's own: the snapshot stays as before
    assert "config" not in queue_to_record(eu)


@pytest.mark.parametrize(
    ("published", "reason"),
    [
        (ladder(400, partitions=8), "partitions: differs from the running configuration's"),
        (
            Settings(partitions=4, queues=(QueueSettings(name="other", maps=("Polypoid",)),)),
            "queues: names ['other'] differ from the running ['ladder']",
        ),
        (
            Settings(
                partitions=4,
                queues=(
                    QueueSettings(
                        name="ladder", regions=("eu",), maps=("Polypoid",), strategy="optimal"
                    ),
                ),
            ),
            "queues.0: queue 'ladder': regions: differs from the running configuration's",
        ),
    ],
)
def test_a_configuration_that_cannot_switch_at_a_tick_is_refused(
    published: Settings, reason: str
) -> None:
    refused: list[str] = []
    layouts: dict[str, Any] = {}
    catalog = ConfigCatalog(NARROW, layouts, refused.append)
    line = catalog.offer(*config_record(published, PUBLISHED_KEY))
    assert line is not None and reason in line and "\n" not in line
    # A worker started with another file sees the group's configuration refused: the line
    # says which settings it keeps, and what to do if it is the odd one.
    assert line.endswith(
        f"this worker keeps its own settings ({NARROW.config_fingerprint()}): if the group's "
        "other workers took it, start this one with their file"
    )
    assert refused == [line]
    assert catalog.in_force == NARROW.config_fingerprint() and layouts == {}


def test_unreadable_records_are_refused_and_change_nothing() -> None:
    refused: list[str] = []
    catalog = ConfigCatalog(NARROW, {}, refused.append)
    record = config_published(WIDE, T0).model_copy(update={"settings_json": '{"partitions": 0}'})
    for value in (b"garbage", encode(record), encode(ticked(WIDE, 1))):
        assert catalog.offer(PUBLISHED_KEY, value) is not None
    assert len(refused) == 3 and catalog.in_force == NARROW.config_fingerprint()
    # A worker's own record of another deployment is skipped, not refused.
    assert catalog.offer(*config_record(ladder(400, partitions=8))) is None
    assert len(refused) == 3 and catalog.layouts == {}


def test_the_latest_published_record_is_in_force() -> None:
    catalog = ConfigCatalog(NARROW, {})
    catalog.offer_all(
        [config_record(WIDE, PUBLISHED_KEY), config_record(ladder(250), PUBLISHED_KEY)]
    )
    assert catalog.in_force == ladder(250).config_fingerprint()
    assert set(catalog.layouts) == {WIDE.config_fingerprint(), ladder(250).config_fingerprint()}
    catalog.offer(*config_record(NARROW, PUBLISHED_KEY))  # back to the file's
    assert catalog.in_force == NARROW.config_fingerprint()


def test_config_publish_refuses_a_bad_file_in_one_line_before_the_broker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[queues]]\nname = "ladder"\nstrategy = "no-such-strategy"\n')
    code = main(["config", "publish", str(bad), "--broker", "kafka://127.0.0.1:1"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and str(bad) in err and "strategy" in err


def test_explain_names_the_switched_configuration_s_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = live_session()
    path = tmp_path / "switched.avro"
    write_log(path, log.records, {})
    match = next(
        r for r in log.published(MATCHES.name) if isinstance(r, m.MatchCreated)
    )  # alice-bob, 200 apart: legal under WIDE only
    assert main(["explain", match.match_id, "--log", str(path)]) == 0
    assert "400 for this pair" in capsys.readouterr().out


def test_tickets_the_new_configuration_refuses_leave_at_the_switching_tick(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A configuration that reads another rating key could never match the tickets
    queued under the old one: they leave REJECTED at the tick that switches (ADR 0209),
    not at their TTL, and the tickets joining after it under the new key match."""
    elo = Settings(
        partitions=4,
        queues=(
            QueueSettings(
                name="ladder",
                strategy="optimal",
                regions=("eu", "na"),
                maps=("Polypoid",),
                rules={"rating": "elo", "max_distance": 400},
            ),
        ),
    )
    log, _ = published_log(NARROW, elo)
    log.send(joined("alice", 1500, 1))
    log.send(joined("bob", 1900, 2))  # 400 apart: unmatched under NARROW
    log.send(ticked(NARROW, 10))
    assert not [d for d in log.published(CLEANUP.name)]
    log.send(ticked(elo, 20))
    gone = {d.ticket_id: d for d in log.published(CLEANUP.name)}
    assert sorted(gone) == ["alice", "bob"]
    assert all(d.reason == "REJECTED" for d in gone.values())
    assert gone["alice"].detail == (
        "the configuration in force from this wave refuses it: player alice has no 'elo' rating"
    )
    for name, rating, at_s in (("carol", 1500, 21), ("dave", 1600, 22)):
        event = joined(name, rating, at_s).model_dump()
        event["players"][0]["ratings"] = {"elo": rating}
        log.send(m.TicketJoined.model_validate(event))
    log.send(ticked(elo, 30))
    assert matched(log) == [{"carol", "dave"}]
    path = tmp_path / "refit.avro"
    write_log(path, log.records, {})
    assert main(["replay", "--log", str(path), "--quiet"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("verdict              IDENTICAL")


def test_a_region_outside_the_replay_s_scope_does_not_stop_its_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """eu closed waves under a configuration the log lacks: a replay of all regions
    cannot judge it (exit 3), one narrowed to na judges na alone and says IDENTICAL."""
    records = [r for r in live_session().records if r.key != PUBLISHED_KEY]
    records = [r for r in records if r.key != WIDE.config_fingerprint().encode()]
    path = tmp_path / "unknown.avro"
    write_log(path, records, {})
    assert main(["replay", "--log", str(path), "--quiet"]) == 3
    capsys.readouterr()
    assert main(["replay", "--log", str(path), "--quiet", "--region", "na"]) == 0
    out = capsys.readouterr().out
    assert "regions not compared" not in out and "other configuration" not in out
    assert out.rstrip().endswith("verdict              IDENTICAL")


def test_a_tick_naming_no_known_configuration_is_dead_lettered_and_switches_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tick's fingerprint decides the region's rules (ADR 0160); one that is neither the
    worker's nor published is refused (ADR 0210), as a replay of the log refuses it, so
    one forged record cannot close a wave or take its region out of the audit."""
    log, _ = published_log(NARROW, WIDE)
    log.folder = replace(log.folder, fingerprint=NARROW.config_fingerprint())
    log.send(ticked(WIDE, 10))
    log.send(joined("alice", 1500, 11))
    log.send(joined("bob", 1700, 12))  # 200 apart: a pair under WIDE only
    forged = ticked(WIDE, 20).model_copy(update={"config_fingerprint": "deadbeefdeadbeef"})
    log.send(forged)
    (letter,) = log.published(DEADLETTER.name)
    assert (letter.error_code, letter.field) == ("unknown_config", "config_fingerprint")
    assert "'deadbeefdeadbeef' is neither this worker's configuration" in letter.reason
    assert len(log.published(WAVES.name)) == 1 and matched(log) == []
    log.send(ticked(WIDE, 30))  # the region is still under WIDE
    assert matched(log) == [{"alice", "bob"}]
    path = tmp_path / "forged.avro"
    write_log(path, log.records, {})
    assert main(["replay", "--log", str(path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "regions not compared" not in out
    assert out.rstrip().endswith("verdict              IDENTICAL")


def test_a_held_ticket_the_new_configuration_refuses_leaves_when_it_comes_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """alice and bob are in a ready check when a tick switches the region to a
    configuration reading another rating key. bob declines: alice, back in the queue,
    could never be matched there, so she leaves REJECTED (ADR 0213) instead of searching
    until her TTL; a restored worker and a replay say the same."""

    def checked(rating: str) -> Settings:
        queue = QueueSettings(
            name="ladder",
            strategy="optimal",
            regions=("eu", "na"),
            maps=("Polypoid",),
            rules={"rating": rating, "max_distance": 400},
            ready_check_ms=5_000,
        )
        return Settings(partitions=4, queues=(queue,))

    mmr, elo = checked("mmr"), checked("elo")
    log, _ = published_log(mmr, elo)
    log.send(joined("alice", 1500, 1))
    log.send(joined("bob", 1600, 2))
    log.send(ticked(mmr, 10))
    (proposal,) = [e for e in log.published(MATCHES.name) if isinstance(e, m.MatchProposed)]
    log.send(ticked(elo, 12))  # switches while both are held: nobody leaves yet
    assert not [d for d in log.published(CLEANUP.name)]
    region = next(s for s in log.states.values() if s.book.regions.get(("ladder", "eu")))
    saved = queue_to_record(region.book.regions["ladder", "eu"])
    assert saved["life"]["unfit"] == [
        ["alice", "player alice has no 'elo' rating"],
        ["bob", "player bob has no 'elo' rating"],
    ]
    restored = queue_from_record(saved)
    assert restored.life.unfit == region.book.regions["ladder", "eu"].life.unfit
    log.send(
        m.ReadyCheckAnswered(
            match_id=proposal.match_id,
            queue="ladder",
            region="eu",
            player_id="bob",
            accepted=False,
            answered_at_ms=T0 + 13_000,
        )
    )
    gone = {d.ticket_id: d for d in log.published(CLEANUP.name)}
    assert sorted(gone) == ["alice", "bob"] and gone["alice"].reason == "REJECTED"
    assert gone["alice"].detail == (
        "the configuration in force refuses it: player alice has no 'elo' rating"
    )
    assert not region.book.regions["ladder", "eu"].tickets
    path = tmp_path / "held-refit.avro"
    write_log(path, log.records, {})
    assert main(["replay", "--log", str(path), "--quiet"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("verdict              IDENTICAL")


def test_a_tick_s_strategy_is_read_under_the_configuration_it_carries_without_a_switch() -> None:
    """The worker asks which strategy a tick's wave closes with before closing it, to
    close a plug-in's wave off the event loop (docs/adr/0217): a fresh tick carrying a
    published configuration reads that configuration's strategy, and the region stays
    under its own until the tick is folded."""
    from streams.wire import inbound

    queue = QueueSettings(
        name="ladder",
        strategy="ladder-v2.1",
        regions=("eu", "na"),
        maps=("Polypoid",),
        rules={"rating": "mmr"},
    )
    other = Settings(queues=(queue,), partitions=4)
    log, _ = published_log(NARROW, other)
    log.send(joined("alice", 1500, 1))
    (state,) = [s for s in log.states.values() if s.book.regions]
    region = state.book.regions["ladder", "eu"]
    own, carried = (inbound.decode(encode(ticked(c, 10))) for c in (NARROW, other))
    assert state.book.strategy_of(own) == "optimal"
    assert state.book.strategy_of(carried) == "ladder-v2.1"
    assert region.config is None  # not switched by the question
    log.send(ticked(other, 10))
    assert region.config == other.config_fingerprint()
    assert state.book.strategy_of(inbound.decode(encode(ticked(other, 10)))) == "ladder-v2.1"
