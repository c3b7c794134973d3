"""`wavematch explain`: a match's wave rebuilt from a log, its window and its alternatives."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from matcher.explain import explain_match
from schemas.codec import encode
from schemas.models import TicketJoined, WaveTick
from schemas.topics import QUEUE, murmur2_partition, queue_key
from streams.audit.explain import find_wave
from streams.audit.logfile import write_log
from streams.audit.rederive import LogRecord, rederive
from streams.cli import main
from streams.settings import load_settings
from streams.worker.folding import Folder

START_MS = 1_767_225_600_000
CONFIG = """
partitions = 4
[[queues]]
name = "1v1"
strategy = "{strategy}"
regions = ["eu"]
wave_interval_ms = 1000
{options}
"""


def duel_log(seed: int, players: int = 40) -> list[LogRecord]:
    rng = random.Random(seed)
    key = queue_key("1v1", "eu")
    partition = murmur2_partition(key, 4)
    values = []
    for number in range(players):
        side = rng.random()
        ratings = (
            {"bw": rng.randint(1200, 1800)}
            if side < 0.4
            else {"sc2": rng.randint(1200, 1800)}
            if side < 0.8
            else {"bw": rng.randint(1200, 1800), "sc2": rng.randint(1200, 1800)}
        )
        values.append(
            encode(
                TicketJoined(
                    ticket_id=f"t{number}",
                    queue="1v1",
                    region="eu",
                    joined_at_ms=START_MS,
                    players=[{"player_id": f"p{number}", "ratings": ratings}],
                )
            )
        )
    values.append(
        encode(
            WaveTick(
                queue="1v1",
                region="eu",
                wave_id="1",
                sequence=1,
                tick_at_ms=START_MS + 1000,
                config_fingerprint="f",
                interval_ms=1000,
            )
        )
    )
    return [
        LogRecord(QUEUE.name, partition, offset, key, value) for offset, value in enumerate(values)
    ]


def setup(tmp_path: Path, strategy: str, rule: str | None = None) -> tuple[Path, Folder]:
    config = tmp_path / "wavematch.toml"
    options = f'options = {{ window_rule = "{rule}" }}' if rule else ""
    config.write_text(CONFIG.format(strategy=strategy, options=options))
    settings = load_settings(config, broker_url="kafka://localhost:1")
    return config, Folder.from_settings(settings)


def published_matches(folder: Folder, log: list[LogRecord]) -> list[str]:
    return [
        m.match_id for d in rederive(folder, log) if d.folded.step for m in d.folded.step.matches
    ]


@pytest.mark.parametrize("rule", ["longer", "lead"])
@pytest.mark.parametrize("seed", range(5))
def test_no_exchange_beats_an_optimal_wave(tmp_path: Path, seed: int, rule: str) -> None:
    _, folder = setup(tmp_path, "optimal", rule)
    log = duel_log(seed)
    matches = published_matches(folder, log)
    assert matches
    for match_id in matches:
        wave = find_wave(folder, log, match_id)
        assert wave is not None and wave.tick.offset == len(log) - 1
        assert len(wave.snapshot.tickets) == 40
        explanation = explain_match(wave.snapshot, wave.profile, wave.result, match_id, nearest=4)
        facts = dict(explanation.facts)
        assert "max diff" in facts["window"]
        assert explanation.alternatives
        assert not [a for a in explanation.alternatives if "missed" in a.verdict], match_id


def test_explain_command_reads_an_exported_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, folder = setup(tmp_path, "ladder-v2.1")
    log = duel_log(3)
    match_id = published_matches(folder, log)[0]
    exported = tmp_path / "queue.avro"
    write_log(exported, log, {"source": "test"})

    assert (
        main(["explain", match_id, "--log", str(exported), "--config", str(config), "--json"]) == 0
    )
    shown = json.loads(capsys.readouterr().out)
    assert shown["match_id"] == match_id and shown["strategy"] == "ladder-v2.1"
    assert shown["tick"]["offset"] == len(log) - 1
    assert len(shown["alternatives"]) == 6

    assert main(["explain", "no-such-match", "--log", str(exported), "--config", str(config)]) == 2
    assert "match_id: no-such-match was not produced" in capsys.readouterr().err
