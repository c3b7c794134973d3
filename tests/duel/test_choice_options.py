"""``optimal_choice`` and ``optimal_choice_scale`` (docs/adr/0181) as settings: checked at
load in one line, in the config fingerprint and the ConfigPublished record only when set,
so that a replay needs no settings file and today's configurations keep their
fingerprints."""

from __future__ import annotations

from pathlib import Path

import pytest

from matcher.duel.model import OPTIMAL_DEFAULTS, parse_config
from streams.settings import SettingsError, load_settings
from streams.worker.config_record import config_published, settings_of

QUEUE = '[[queues]]\nname = "q1"\nstrategy = "optimal"\nteam_size = 1\n'
BAD = [
    ('optimal_choice = "random"', "options.optimal_choice: must be one of best, weighted"),
    (
        'optimal_choice = "weighted", optimal_choice_scale = 0',
        "options.optimal_choice_scale: must be an integer from 1 to 100000",
    ),
    (
        'optimal_choice = "weighted", optimal_choice_scale = 2.5',
        "options.optimal_choice_scale: must be an integer from 1 to 100000",
    ),
    (
        "optimal_choice_scale = 50",
        'options.optimal_choice_scale: read only under optimal_choice "weighted"',
    ),
]


@pytest.mark.parametrize(("options", "message"), BAD)
def test_a_bad_choice_stops_loading_in_one_line(tmp_path: Path, options: str, message: str) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(QUEUE + f"options = {{{options}}}\n")
    with pytest.raises(SettingsError) as caught:
        load_settings(config)
    text = str(caught.value)
    assert text == f"queues.0: queue 'q1': {message}", text


def test_the_default_is_best_and_weighted_takes_a_scale() -> None:
    assert (OPTIMAL_DEFAULTS.optimal_choice, OPTIMAL_DEFAULTS.optimal_choice_scale) == ("best", 100)
    config = parse_config({"optimal_choice": "weighted", "optimal_choice_scale": 80})
    assert (config.optimal_choice, config.optimal_choice_scale) == ("weighted", 80)


def test_the_choice_is_in_the_fingerprint_and_the_record(tmp_path: Path) -> None:
    fingerprints = {}
    for name, options in (
        ("none", ""),
        ("best", 'options = { optimal_choice = "best" }\n'),
        ("w50", 'options = { optimal_choice = "weighted" }\n'),
        ("w80", 'options = { optimal_choice = "weighted", optimal_choice_scale = 80 }\n'),
    ):
        config = tmp_path / f"{name}.toml"
        config.write_text(QUEUE + options)
        settings = load_settings(config)
        record = config_published(settings, 1_767_225_600_000)
        assert ("optimal_choice" in record.settings_json) is (name != "none")
        rebuilt = settings_of(record, load_settings())
        assert rebuilt is not None
        assert rebuilt.queues[0].options == settings.queues[0].options
        assert rebuilt.config_fingerprint() == settings.config_fingerprint()
        fingerprints[name] = settings.config_fingerprint()
    # Each setting that can change a decision changes the fingerprint.
    assert len({fingerprints["none"], fingerprints["w50"], fingerprints["w80"]}) == 3


def test_the_fold_replays_the_draw_identically() -> None:
    """Through the real queue fold (the simulator drives it as the worker does): the same
    joins and ticks give the same matches under the draw, which are not the default's,
    and the live checker, which the fold runs on every wave (a seeded run raises on a
    failed one), passes each."""
    from matcher.sim import config_from_mapping, simulate

    weighted = {"optimal_choice": "weighted", "optimal_choice_scale": 100}
    config = config_from_mapping(
        {
            "seed": 3,
            "scenario": [
                {
                    "name": "s",
                    "queue": "1v1",
                    "kind": "duel",
                    "duration_s": 900,
                    "maps": ["m"],
                    "region": [{"name": "eu", "sessions_per_hour": 1200}],
                    "variant": [
                        {"name": "default", "strategy": "optimal", "wave_interval_ms": 20000},
                        {
                            "name": "w",
                            "strategy": "optimal",
                            "wave_interval_ms": 20000,
                            "options": weighted,
                        },
                    ],
                }
            ],
        }
    )
    (first,), (again,) = simulate(config), simulate(config)
    default, drawn = first.runs
    assert drawn.matches == again.runs[1].matches and len(drawn.matches) > 50
    assert drawn.failed_waves == 0 and len(drawn.waves) == 45
    assert [m.rating_diff for m in drawn.matches] != [m.rating_diff for m in default.matches]


def test_the_stats_say_which_waves_were_drawn() -> None:
    """Small-tier waves are drawn (the count proved, the score not the least); a wave
    above ``optimal_exact_limit`` is paired as by default and says so."""
    from matcher.strategies import result_problems, run_wave
    from tests.duel.waves import profile_of, snapshot_of, synthetic_players

    snapshot = snapshot_of(synthetic_players(12, 4), seed=11, active_population=24)
    weighted = {"optimal_choice": "weighted"}
    drawn = run_wave(snapshot, profile_of("optimal", **weighted))
    assert drawn.stat("choice_weighted") == 1.0 and drawn.stat("proven_optimal") == 0.0
    assert drawn.stat("max_pairs_bound") == len(drawn.matches) > 0
    assert run_wave(snapshot, profile_of("optimal")).stat("choice_weighted") is None
    large = profile_of("optimal", optimal_exact_limit=4, **weighted)
    by_default = run_wave(snapshot, large)
    assert by_default.stat("choice_weighted") == 0.0
    assert result_problems(snapshot, large, by_default) == []
    assert (
        by_default.matches
        == run_wave(snapshot, profile_of("optimal", optimal_exact_limit=4)).matches
    )


def test_explain_says_the_pairs_are_drawn() -> None:
    """``explain`` names the draw, and an exchange that costs less is not called a miss."""
    from matcher.explain import explain_match
    from matcher.strategies import run_wave
    from tests.duel.waves import profile_of, snapshot_of
    from tests.oracle.test_choice_oracle import LADDER

    queue = profile_of("optimal", optimal_choice="weighted")
    texts = []
    for seed in range(10):
        snapshot = snapshot_of(LADDER, seed=seed, active_population=1000)
        result = run_wave(snapshot, queue)
        for match in result.matches:
            found = explain_match(snapshot, queue, result, match.match_id)
            assert dict(found.facts)["choice"].startswith("optimal_choice weighted: the wave's")
            texts += [alternative.verdict for alternative in found.alternatives]
    assert any("cheaper, not drawn" in text for text in texts)
    assert not any("missed" in text for text in texts)
