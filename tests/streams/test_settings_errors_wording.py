"""Settings mistakes a newcomer makes in a TOML file read in TOML's words: an array, a
misspelt field with the closest one, a number written as a string, a name given twice."""

from __future__ import annotations

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
            'queues.0.regions: must be an array, as in ["eu"',
        ),
        (QUEUE + '[queue.rules]\nrating = "mmr"\n', "queue: not a setting (did you mean queues?)"),
        (
            QUEUE + "wave_intervl_ms = 5\n",
            "queues.0.wave_intervl_ms: not a setting (did you mean wave_interval_ms?)",
        ),
        (QUEUE + 'team_size = "2"\n', "queues.0.team_size: must be a number, not the string '2'"),
        (QUEUE + QUEUE, "queues: queue names must be distinct; 'a' is named twice"),
    ],
)
def test_a_toml_mistake_reads_in_toml_words(tmp_path: Path, text: str, said: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text)
    with pytest.raises(SettingsError) as refused:
        load_settings(config)
    assert str(refused.value).startswith(said), refused.value
