"""A queue's ``team_steps`` (issue 35): checked when the settings load with one line naming
the field, refused by a strategy that cannot play them, carried by the configuration
record and the fingerprint, and absent from both for a queue without them."""

from __future__ import annotations

import pytest

from streams.settings import SettingsError, load_settings
from streams.worker.config_record import config_published, settings_of

FFA = {"name": "ffa", "strategy": "rebalance", "team_count": 4, "team_size": 2}


@pytest.mark.parametrize(
    ("steps", "strategy", "message"),
    [
        ([{"after_s": 60}], "rebalance", "team_steps.0: give team_count or team_size (or both)"),
        (
            [{"after_s": 60, "team_count": 5}],
            "rebalance",
            "team_steps.0.team_count: must be between 2 and 4, the step before's (got 5)",
        ),
        (
            [{"after_s": 60, "team_count": 3}, {"after_s": 30, "team_count": 2}],
            "rebalance",
            "team_steps.1.after_s: must be a number of seconds above the step before's (got 30)",
        ),
        (
            [{"after_s": 60, "team_count": 3, "teams": 2}],
            "rebalance",
            "team_steps.0.teams: unknown field (known: after_s, team_count, team_size)",
        ),
        (
            [{"after_s": 60, "team_count": 4}],
            "rebalance",
            "team_steps.0: must make matches smaller than 4 teams of 2",
        ),
        (
            [{"after_s": 60, "team_count": 2}],
            "optimal",
            "team_steps: not honoured by strategy 'optimal' (honoured by: game-queue, rebalance)",
        ),
        (
            [{"after_s": 60, "team_count": 2}],
            "multifactor",
            "team_steps: not honoured by strategy 'multifactor' (honoured by: game-queue,",
        ),
    ],
)
def test_bad_steps_stop_loading_with_one_line(
    steps: list[dict[str, object]], strategy: str, message: str
) -> None:
    queue = {**FFA, "strategy": strategy, "team_steps": steps}
    with pytest.raises(SettingsError) as caught:
        load_settings(queues=[queue])
    text = str(caught.value)
    assert text.startswith(f"queues.0: queue 'ffa': {message}"), text
    assert "\n" not in text


def test_the_game_queue_relaxes_its_team_size_but_not_its_team_count() -> None:
    queue = {"name": "gq", "strategy": "game-queue", "team_size": 3}
    settings = load_settings(queues=[{**queue, "team_steps": [{"after_s": 30, "team_size": 2}]}])
    assert settings.profiles()["gq"].team_steps[0].team_size == 2
    same_count = {**queue, "team_steps": [{"after_s": 30, "team_count": 2, "team_size": 2}]}
    load_settings(queues=[same_count])  # team_count written but unchanged: only the size relaxes
    with pytest.raises(SettingsError, match=r"team_steps.0.team_size: a role queue keeps"):
        load_settings(
            queues=[
                {
                    **queue,
                    "roles": ["tank", "healer", "dps"],
                    "team_steps": [{"after_s": 30, "team_size": 2}],
                }
            ]
        )


def test_a_team_count_step_is_refused_by_the_game_queue() -> None:
    queue = {"name": "gq", "strategy": "game-queue", "team_size": 3, "team_count": 2}
    # A game queue has two teams, so a count step can only be tried from a larger count,
    # which the game queue refuses first; its check still names the setting for a plug-in.
    from matcher.core import QueueProfile, TeamStep
    from matcher.teams.step_config import check_team_steps

    profile = QueueProfile(
        "gq", "game-queue", ("m",), team_count=3, team_size=3, team_steps=(TeamStep(30, 2, 3),)
    )
    with pytest.raises(ValueError, match=r"^team_steps.0.team_count: not honoured by strategy"):
        check_team_steps(profile, frozenset({"team_size"}))
    assert load_settings(queues=[queue]).profiles()["gq"].team_steps == ()


def test_steps_are_in_the_record_and_the_fingerprint_only_when_set() -> None:
    plain = load_settings(queues=[FFA])
    stepped = load_settings(queues=[{**FFA, "team_steps": [{"after_s": 60, "team_count": 2}]}])
    assert "team_steps" not in config_published(plain, 1_767_225_600_000).settings_json
    assert plain.config_fingerprint() != stepped.config_fingerprint()
    record = config_published(stepped, 1_767_225_600_000)
    assert '"team_steps":[{"after_s":60,"team_count":2}]' in record.settings_json
    rebuilt = settings_of(record, load_settings())
    assert rebuilt is not None
    assert rebuilt.config_fingerprint() == stepped.config_fingerprint()
    assert rebuilt.profiles()["ffa"].team_steps == stepped.profiles()["ffa"].team_steps
