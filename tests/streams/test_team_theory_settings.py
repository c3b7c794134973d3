"""game-queue's ``role_parties`` and ``skill_dimensions`` (issue 37) through the settings:
a bad value stops loading with one line naming the option, and a value set is in the
configuration record and changes the fingerprint; the record rebuilds it."""

from __future__ import annotations

import pytest

from streams.settings import SettingsError, load_settings
from streams.worker.config_record import config_published, settings_of

ROLES = {"name": "gq", "strategy": "game-queue", "team_size": 3, "roles": ["t", "h", "d"]}
PLAIN = {"name": "gq", "strategy": "game-queue", "team_size": 3}


@pytest.mark.parametrize(
    ("queue", "options", "message"),
    [
        (ROLES, {"mode": "queue", "role_parties": "all"}, "options.role_parties: 'all' is not"),
        (ROLES, {"role_parties": "interval"}, 'options.role_parties: needs mode = "queue"'),
        (PLAIN, {"skill_dimensions": {"aim": 0}}, "options.skill_dimensions: weight of 'aim'"),
        (PLAIN, {"skill_dimensions": ["aim"]}, "options.skill_dimensions: must be a table"),
    ],
)
def test_bad_values_stop_loading_with_one_line(
    queue: dict[str, object], options: dict[str, object], message: str
) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(queues=[{**queue, "options": options}])
    text = str(caught.value)
    assert text.startswith(f"queues.0: queue 'gq': {message}"), text
    assert "\n" not in text


@pytest.mark.parametrize(
    ("queue", "options", "written"),
    [
        (ROLES, {"mode": "queue", "role_parties": "interval"}, '"role_parties":"interval"'),
        (
            PLAIN,
            {"skill_dimensions": {"aim": 1.0, "tactics": 0.5}},
            '"skill_dimensions":{"aim":1.0,"tactics":0.5}',
        ),
    ],
)
def test_a_value_set_is_in_the_record_and_the_fingerprint(
    queue: dict[str, object], options: dict[str, object], written: str
) -> None:
    base = {k: v for k, v in options.items() if k == "mode"}
    plain = load_settings(queues=[{**queue, "options": base}])
    chosen = load_settings(queues=[{**queue, "options": options}])
    assert plain.config_fingerprint() != chosen.config_fingerprint()
    record = config_published(chosen, 1_767_225_600_000)
    assert written in record.settings_json.replace(" ", "")
    rebuilt = settings_of(record, load_settings())
    assert rebuilt is not None
    assert rebuilt.config_fingerprint() == chosen.config_fingerprint()
