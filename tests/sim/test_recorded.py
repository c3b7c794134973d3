"""`wavematch simulate --log`: the recorded session through candidate queue settings."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import fastavro
import pytest

from matcher.core import Player, QueueProfile, Ticket, WaveResult, WaveSnapshot
from matcher.queue.book import QueueBook
from matcher.queue.cadence import CadencePolicy
from matcher.queue.events import Search, WaveTick
from matcher.queue.events import TicketJoined as DomainJoined
from matcher.queue.fold import QueueRules
from matcher.sim.recorded import Arrival, Candidate, Timer, run_candidate, wave_problems
from matcher.strategies import is_registered, register_strategy
from schemas.codec import decode
from schemas.models import ConfigPublished, MatchCreated, TicketJoined, TicketLeft
from schemas.topics import CONFIG, MATCHES, QUEUE
from streams.audit.logfile import read_log
from streams.cli import main
from tests.queue.conftest import pair_in_order

DATA = Path(__file__).resolve().parents[1] / "data"
STANDARD = str(Path(__file__).resolve().parents[2] / "docs" / "sim" / "standard.toml")
LOG = DATA / "recorded-session.avro"
#: The recorded queue as deployed, without its hour-long timer (the recording's ticks
#: were events of the log): a candidate states its own wave interval.
QUEUE_TOML = """
ticket_ttl_ms = 8000
{top}
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu", "na", "asia"]
maps = ["Fighting Spirit", "Polypoid", "Eclipse", "Vermeer"]
wave_interval_ms = {interval}
{rules}
"""


def candidate(
    tmp_path: Path, name: str, interval: int = 1000, rules: str = "", top: str = ""
) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(QUEUE_TOML.format(interval=interval, rules=rules, top=top))
    return path


def what_if(tmp_path: Path, *candidates: Path, out: str = "out") -> dict[str, Any]:
    args = ["simulate", "--log", str(LOG), "--report", str(tmp_path / out)]
    for path in candidates:
        args += ["--candidate", str(path)]
    assert main(args) == 0
    figures: dict[str, Any] = json.loads((tmp_path / out / "figures.json").read_text())
    return figures


def columns(figures: dict[str, Any]) -> dict[str, dict[str, Any]]:
    (scenario,) = figures["scenarios"]
    return {variant["variant"]: variant for variant in scenario["variants"]}


def recorded(topic: str, model: type) -> list[Any]:
    events = [decode(r.value or b"") for r in read_log(LOG) if r.topic == topic]
    return [e for e in events if isinstance(e, model)]


TIGHT = "[queues.rules]\nmax_distance = 50"


def test_two_candidates_against_the_recorded_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tight = candidate(tmp_path, "tight", rules=TIGHT)
    slow = candidate(tmp_path, "slow", interval=3000)
    figures = what_if(tmp_path, tight, slow)
    out = capsys.readouterr().out
    (config,) = recorded(CONFIG.name, ConfigPublished)
    assert f"baseline: the recorded configuration {config.config_fingerprint} from the log" in out

    (scenario,) = figures["scenarios"]
    joins = recorded(QUEUE.name, TicketJoined)
    assert scenario["recorded"]["joins"] == len(joins)
    assert scenario["recorded"]["leaves"] == len(recorded(QUEUE.name, TicketLeft))
    by_name = columns(figures)
    assert list(by_name) == ["recorded", "tight", "slow"]
    tickets = len({j.ticket_id for j in joins})
    for variant in by_name.values():
        # Every recorded ticket ends exactly once, whatever the column did with it.
        assert sum(variant["overall"]["tickets"].values()) == tickets
        assert variant["rule_violations"] == 0 and variant["failed_waves"] == 0

    base, strict, patient = (by_name[n]["overall"] for n in ("recorded", "tight", "slow"))
    # The baseline re-derives what the worker published from the same log.
    assert base["matches"] == len(recorded(MATCHES.name, MatchCreated))
    # A tighter limit: never more matches, none beyond it, at the cost of waiting.
    assert 0 < strict["matches"] < base["matches"]
    assert strict["rating_diff"]["max"] <= 50 < base["rating_diff"]["max"]
    assert strict["tickets"]["expired"] > base["tickets"]["expired"]
    assert strict["players_never_matched"] > base["players_never_matched"]
    # Waves three times rarer: a third of the waves, longer waits, closer pairs.
    assert patient["waves"] * 3 == pytest.approx(base["waves"], abs=6)
    assert patient["mean_interval_s"] == 3.0
    assert patient["wait_s"]["p50"] > base["wait_s"]["p50"]
    assert patient["rating_diff"]["mean"] < base["rating_diff"]["mean"]

    page = (tmp_path / "out" / "report.html").read_text()
    assert "rule violations (live checker)" in page and "wait p99 s" in page
    assert "Recorded traffic of recorded-session.avro" in page
    assert len(list((tmp_path / "out").glob("1v1-*.png"))) == 4


def test_the_recorded_cadence_as_a_candidate_reproduces_the_baseline(tmp_path: Path) -> None:
    # Ticks generated on the recorded grid (1 s, no stagger) are the recorded ticks.
    same = candidate(tmp_path, "same", top="stagger_ticks = false")
    by_name = columns(what_if(tmp_path, same))
    assert by_name["same"]["overall"] == by_name["recorded"]["overall"]
    # With the worker's default stagger the regions' waves shift: other figures.
    staggered = candidate(tmp_path, "staggered")
    by_name = columns(what_if(tmp_path, staggered, out="staggered"))
    assert by_name["staggered"]["overall"] != by_name["recorded"]["overall"]


def test_a_pop_timer_candidate_ticks_on_its_own_cadence(tmp_path: Path) -> None:
    pop = candidate(
        tmp_path, "pop", top="", rules='cadence = "pop"\npop_floor_ms = 500\npop_cap_ms = 4000'
    )
    overall = columns(what_if(tmp_path, pop))["pop"]["overall"]
    assert overall["matches"] > 0 and 0.5 <= overall["mean_interval_s"] <= 4.0
    assert overall["mean_interval_s"] != 1.0


def test_same_inputs_same_report(tmp_path: Path) -> None:
    tight = candidate(tmp_path, "tight", rules=TIGHT)
    what_if(tmp_path, tight, out="a")
    what_if(tmp_path, tight, out="b")
    for name in ("figures.json", "report.html", "1v1-wait_cdf.png"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_a_baseline_from_config_and_a_candidate_without_the_queue(tmp_path: Path) -> None:
    other = tmp_path / "other.toml"
    other.write_text('[[queues]]\nname = "2v2"\nteam_size = 2\nstrategy = "rebalance"\n')
    args = ["simulate", "--log", str(LOG), "--config", str(DATA / "recorded-session.toml")]
    assert main([*args, "--candidate", str(other), "--report", str(tmp_path / "out")]) == 0
    figures = json.loads((tmp_path / "out" / "figures.json").read_text())
    by_name = columns(figures)
    assert by_name["recorded"]["overall"]["matches"] > 0
    # The candidate does not open this queue: every recorded join is refused, visibly.
    tickets = by_name["other"]["overall"]["tickets"]
    assert by_name["other"]["strategy"] == "-" and tickets["rejected"] == 943
    assert by_name["other"]["overall"]["matches"] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--log", "/nope.avro", "--candidate", "{tight}"], "--log: /nope.avro not found"),
        (
            ["--log", str(DATA / "recorded-session.toml"), "--candidate", "{tight}"],
            "is not an exported log",
        ),
        (
            ["--log", str(DATA / "TicketJoined-r1-solo.avro"), "--candidate", "{tight}"],
            "is not an exported log: not an Avro object container file",
        ),
        (
            ["--log", "{other}", "--candidate", "{tight}"],
            "other.avro is not an exported log: its records are 'Other', not "
            "'io.wavematch.export.v1.TopicRecord'",
        ),
        (["--log", str(LOG)], "--candidate: at least one worker-settings TOML is required"),
        (["--log", str(LOG), "--candidate", "/nope.toml"], "--candidate /nope.toml: not found"),
        (
            ["--log", str(LOG), "--candidate", "{typo}"],
            "typo.toml: queues.0: queue '1v1': rules.max_distanse: unknown rule",
        ),
        (
            ["--log", str(LOG), "--candidate", "{option}"],
            "option.toml: queues.0: queue '1v1': options.weight_pings: unknown option",
        ),
        (["--log", str(LOG), "--candidate", "{broken}"], "broken.toml: not a TOML settings"),
        (
            ["--log", str(LOG), "--candidate", "{tight}", "--candidate", "{tight}"],
            "two candidates are named 'tight'",
        ),
        (
            ["--log", str(LOG), "--candidate", "{tight}", "--config", STANDARD],
            f"--config {STANDARD}: seed: not a setting",
        ),
        ([], "--config: a simulation TOML is required (or --log/--candidate"),
        (
            ["--config", STANDARD, "--broker", "kafka://localhost:1"],
            "--broker: only with --candidate",
        ),
    ],
)
def test_bad_input_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    paths = {
        "tight": candidate(tmp_path, "tight", rules=TIGHT),
        "typo": candidate(tmp_path, "typo", rules="[queues.rules]\nmax_distanse = 50"),
        "option": candidate(tmp_path, "option", rules="options = {weight_pings = 1.0}"),
        "broken": tmp_path / "broken.toml",
    }
    paths["broken"].write_text("x = [")
    paths["other"] = tmp_path / "other.avro"
    with paths["other"].open("wb") as out:
        schema = {"type": "record", "name": "Other", "fields": [{"name": "x", "type": "int"}]}
        fastavro.writer(out, schema, [{"x": 1}])
    filled = [arg.format(**{k: str(v) for k, v in paths.items()}) for arg in args]
    code = main(["simulate", *filled, "--report", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()


# -- the pure what-if (matcher/sim/recorded.py) ---------------------------------------


def _join(ticket_id: str, mmr: int, at_ms: int, region: str = "eu") -> Arrival:
    player = Player(ticket_id, (("mmr", mmr),))
    return Arrival(at_ms, DomainJoined(Ticket(ticket_id, "1v1", region, (player,), at_ms)))


def _profile(**rules: object) -> QueueProfile:
    return QueueProfile("1v1", "optimal", ("m",), rules={"rating": "mmr", **rules})


def test_the_live_checker_judges_every_wave_result() -> None:
    # A wave closed under no distance limit pairs 1500 with 1560; the same result judged
    # under a 50-point limit is a violation, named with its match.
    book = QueueBook({"1v1": _profile()}, {"1v1": ("eu",)}, QueueRules(verify_waves=False))
    for arrival in (_join("a", 1500, 10), _join("b", 1560, 20)):
        book.apply(arrival.event)
    tick = WaveTick("1v1", "eu", "1000", 1000, 1000, "cfg", 1000)
    step = book.apply(tick)
    assert len(step.matches) == 1
    assert wave_problems(step, _profile()) == []
    (problem,) = wave_problems(step, _profile(max_distance=50))
    assert problem.startswith(f"match {step.matches[0].match_id}:") and "50" in problem


def test_a_copy_opening_at_the_tick_is_judged_in_the_wave_it_joined() -> None:
    """A place's copy opens at the tick, before the snapshot: the checker judges the
    snapshot the strategy read, where the copy is, and finds nothing wrong."""
    book = QueueBook(
        {"1v1": _profile()}, {"1v1": ("eu", "na")}, QueueRules(verify_waves=False, claims=False)
    )
    player = Player("a", (("mmr", 1500),))
    places = (Search("1v1", "eu"), Search("1v1", "na", 500))
    book.apply(DomainJoined(Ticket("a", "1v1", "na", (player,), 10), places))
    step = book.apply(WaveTick("1v1", "na", "1000", 1000, 1000, "cfg", 1000))
    assert step.result is not None and step.result.unmatched == ("a",)
    assert wave_problems(step, _profile()) == []


def test_joins_a_candidate_cannot_take_are_rejected_not_lost() -> None:
    traffic = {
        "eu": [_join("a", 1500, 10), _join("b", 1510, 20)],
        "na": [_join("c", 1500, 30, "na")],
    }
    timers = {"eu": Timer(cadence=CadencePolicy(interval_ms=500))}
    run = run_candidate(Candidate("eu-only", "1v1", _profile(), timers), traffic, 0, 2_000)
    outcomes = sorted((t.ticket_id, t.outcome) for t in run.tickets)
    assert outcomes == [("a", "matched"), ("b", "matched"), ("c", "rejected")]
    assert [w.at_ms for w in run.waves] == [500, 1000, 1500, 2000]
    closed = run_candidate(Candidate("none", "1v1", None, {}), traffic, 0, 2_000)
    assert {t.outcome for t in closed.tickets} == {"rejected"} and closed.waves == []


OFF_MAP = "test-pairs-off-the-map-list"


def _pairs_off_the_map_list(snapshot: WaveSnapshot, profile: QueueProfile) -> WaveResult:
    """The in-order pairing, every match then moved to a map the queue does not have."""
    result = pair_in_order(snapshot, profile)
    moved = tuple(dataclasses.replace(m, map_name="nowhere") for m in result.matches)
    return dataclasses.replace(result, matches=moved)


if not is_registered(OFF_MAP):
    register_strategy(OFF_MAP, _pairs_off_the_map_list)


def test_a_strategy_breaking_the_common_rules_is_counted_match_by_match() -> None:
    traffic = {"eu": [_join(t, 1500, 10 * i) for i, t in enumerate("abcde")]}
    profile = QueueProfile("1v1", OFF_MAP, ("m",))
    timers = {"eu": Timer(cadence=CadencePolicy(interval_ms=1_000))}
    run = run_candidate(Candidate("broken", "1v1", profile, timers), traffic, 0, 1_000)
    assert len(run.matches) == 2  # counted, not refused: the what-if shows the damage
    assert len(run.violations) == 2 and run.failed_waves == 0
    assert all(v.endswith("map 'nowhere' not in the queue") for v in run.violations)
