"""The multifactor ping_peer and p2p_host_max_ms options at start (one line naming the
field), in the fingerprint and in the published configuration a replay rebuilds."""

from __future__ import annotations

import pytest

from streams.settings import SettingsError, load_settings
from streams.worker.config_record import config_published, settings_of


def queue(**options: object) -> dict[str, object]:
    return {"name": "p2p", "strategy": "multifactor", "team_size": 3, "options": options}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"ping_peer": 3}, "options.ping_peer: must be 0 (regions) or 1 (peers)"),
        ({"p2p_host_max_ms": -5}, "options.p2p_host_max_ms: must be within [0, 60000] (0: off)"),
    ],
)
def test_a_bad_value_stops_loading_in_one_line(options: dict[str, object], message: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(queues=[queue(**options)])
    text = str(caught.value)
    assert text == f"queues.0: queue 'p2p': {message}", text


def test_each_option_changes_the_fingerprint_and_travels_in_the_record() -> None:
    variants = [queue(), queue(ping_peer=1), queue(p2p_host_max_ms=80, weight_hosts=1)]
    prints = set()
    for options in variants:
        settings = load_settings(queues=[options])
        prints.add(settings.config_fingerprint())
        record = config_published(settings, 1_767_225_600_000)
        rebuilt = settings_of(record, load_settings())
        assert rebuilt is not None
        assert rebuilt.queues[0].options == options["options"]
        assert rebuilt.config_fingerprint() == settings.config_fingerprint()
    assert len(prints) == len(variants)
