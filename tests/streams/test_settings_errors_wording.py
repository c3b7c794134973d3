"""Settings mistakes a newcomer makes in a TOML file read in TOML's words: an array, a
misspelt field with the closest one, a number written as a string, a name given twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streams.settings import SettingsError, load_settings

QUEUE = '[[queues]]\nname = "a"\nregions = ["eu"]\n'


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            '[queues]\nname = "a"\nregions = ["eu"]\n',
            "queues: must be an array of tables: [[queues]]",
        ),
        (
            '[[queues]]\nname = "a"\nregions = "eu"\n',
            "queues.0: queue 'a': regions: must be an array, as in [\"eu\"",
        ),
        (QUEUE + '[queue.rules]\nrating = "mmr"\n', "queue: not a setting (did you mean queues?)"),
        (
            QUEUE + "wave_intervl_ms = 5\n",
            "queues.0: queue 'a': wave_intervl_ms: not a setting (did you mean wave_interval_ms?)",
        ),
        (
            QUEUE + 'team_size = "2"\n',
            "queues.0: queue 'a': team_size: must be a number, not the string '2'",
        ),
        (QUEUE + QUEUE, "queues: queue names must be distinct; 'a' is named twice"),
    ],
)
def test_a_toml_mistake_reads_in_toml_words(tmp_path: Path, text: str, said: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text)
    with pytest.raises(SettingsError) as refused:
        load_settings(config)
    assert str(refused.value).startswith(said), refused.value


@pytest.mark.parametrize("source", ["file", "variable", "argument"])
def test_a_queue_field_error_names_the_queue_wherever_the_queues_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    queues = [
        {"name": "1v1", "regions": ["eu"]},
        {"name": "2v2", "regions": ["eu"], "team_size": 2, "wave_interval_ms": 5},
    ]
    if source == "file":
        config = tmp_path / "config.toml"
        config.write_text(
            QUEUE.replace('"a"', '"1v1"')
            + '[[queues]]\nname = "2v2"\nregions = ["eu"]\nteam_size = 2\nwave_interval_ms = 5\n'
        )
        call = lambda: load_settings(config)  # noqa: E731
    elif source == "variable":
        monkeypatch.setenv("WAVEMATCH_QUEUES", json.dumps(queues))
        call = load_settings
    else:
        call = lambda: load_settings(queues=queues)  # noqa: E731
    with pytest.raises(SettingsError) as refused:
        call()
    assert str(refused.value) == (
        "queues.1: queue '2v2': wave_interval_ms: Input should be greater than or equal to 100"
    )
