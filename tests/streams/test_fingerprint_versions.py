"""The config fingerprint is versioned: every setting is classified, and configurations
fingerprinted by earlier releases keep their fingerprints (docs/adr/0141)."""

from __future__ import annotations

from typing import Any

import pytest

import streams.settings
from streams.settings import (
    FINGERPRINT_ADDITIONS,
    FINGERPRINT_BASE,
    FINGERPRINT_VERSION,
    NOT_FINGERPRINTED,
    QueueSettings,
    RouteSettings,
    Settings,
)

#: Fingerprints of these configurations as the release before ADR 0141 computed them
#: (streams/settings.py at 382de77): a log they wrote must replay as "this configuration".
EARLIER_FINGERPRINTS: dict[str, tuple[dict[str, Any], str]] = {
    "default": ({}, "e7d2efc68d614f70"),
    "rules": (
        {
            "queues": (
                QueueSettings(
                    name="3v3",
                    strategy="rebalance",
                    team_size=3,
                    rules={"max_spread": {"base": 300}},
                ),
            )
        },
        "9f2a6fc369b9c1ad",
    ),
    "ready check written at its default": (
        {"queues": (QueueSettings(name="1v1", ready_check_ms=0),)},
        "ee3fd6d131049550",
    ),
    "ready check and placement": (
        {"queues": (QueueSettings(name="1v1", ready_check_ms=20_000, placement_timeout_ms=5_000),)},
        "0028468622db9009",
    ),
    "claims": ({"one_ticket_per_player": True}, "dcd815ef416c47fd"),
    "clock skew unchecked": ({"max_clock_skew_ms": None}, "fc29bec97741b822"),
    "routes and ttl": (
        {
            "routes": (RouteSettings(region_a="eu", region_b="na", servers=("x",)),),
            "ticket_ttl_ms": 30_000,
        },
        "9993d81032dd7216",
    ),
}


#: The decision revisions of that release. A strategy whose decisions changed since then
#: changes the fingerprint on purpose (a log replays as "another configuration"); the pins
#: hold the fingerprint's computation, so they are checked under the revisions they had.
EARLIER_REVISIONS = {
    "optimal": 12,
    "ladder-v2.1": 2,
    "rebalance": 3,
    "game-queue": 3,
    "multifactor": 4,
}


@pytest.mark.parametrize("name", sorted(EARLIER_FINGERPRINTS))
def test_a_configuration_keeps_the_fingerprint_an_earlier_release_gave_it(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streams.settings, "decision_revision", EARLIER_REVISIONS.__getitem__)
    fields, fingerprint = EARLIER_FINGERPRINTS[name]
    assert Settings(**fields).config_fingerprint() == fingerprint


def test_a_raised_revision_changes_the_fingerprint(monkeypatch: pytest.MonkeyPatch) -> None:
    fingerprint = Settings().config_fingerprint()
    monkeypatch.setattr(streams.settings, "decision_revision", EARLIER_REVISIONS.__getitem__)
    assert Settings().config_fingerprint() != fingerprint


def test_every_setting_is_either_fingerprinted_or_declared_not_to_be() -> None:
    """A new setting must be classified: a decision enters FINGERPRINT_ADDITIONS with the
    next version and the value earlier configurations implicitly had."""
    additions = {name for name in FINGERPRINT_ADDITIONS if not name.startswith("queues.")}
    classified = set(FINGERPRINT_BASE) | additions | NOT_FINGERPRINTED
    assert set(Settings.model_fields) == classified
    assert not (set(FINGERPRINT_BASE) | additions) & NOT_FINGERPRINTED
    for name in FINGERPRINT_ADDITIONS:
        if name.startswith("queues."):
            assert name.removeprefix("queues.") in QueueSettings.model_fields, name


def test_versions_are_numbered_in_order_of_addition() -> None:
    versions = [version for version, _ in FINGERPRINT_ADDITIONS.values()]
    assert versions == sorted(versions) and versions[0] == 2
    assert versions[-1] == FINGERPRINT_VERSION


ADDED_VALUES: dict[str, dict[str, Any]] = {
    "queues.rules": {"queues": (QueueSettings(name="1v1", rules={"rating": "mmr"}),)},
    "queues.ready_check_ms": {"queues": (QueueSettings(name="1v1", ready_check_ms=5_000),)},
    "queues.placement_timeout_ms": {
        "queues": (QueueSettings(name="1v1", placement_timeout_ms=5_000),)
    },
    "queues.placement_requeues": {"queues": (QueueSettings(name="1v1", placement_requeues=2),)},
    "one_ticket_per_player": {"one_ticket_per_player": True},
    "max_clock_skew_ms": {"max_clock_skew_ms": 5_000},
    "queues.team_steps": {
        "queues": (
            QueueSettings(
                name="ffa",
                strategy="rebalance",
                team_count=4,
                team_steps=({"after_s": 60, "team_count": 2},),
            ),
        )
    },
    "queues.team_sizes": {
        "queues": (QueueSettings(name="1v4", strategy="rebalance", team_size=4, team_sizes=(1, 4)),)
    },
    "queues.auto_backfill": {
        "queues": (
            QueueSettings(name="3v3", strategy="rebalance", team_size=3, auto_backfill=True),
        )
    },
    "queues.size_trigger_tickets": {
        "queues": (QueueSettings(name="1v1", cadence="size", size_trigger_tickets=4),)
    },
    "queues.size_floor_ms": {
        "queues": (QueueSettings(name="1v1", cadence="size", size_floor_ms=1_000),)
    },
    "queues.partial_backfill": {
        "queues": (
            QueueSettings(name="3v3", strategy="rebalance", team_size=3, partial_backfill=True),
        )
    },
    "queues.team_roles": {
        "queues": (
            QueueSettings(
                name="ad", strategy="rebalance", team_size=1, team_roles=(("attack",), ("defend",))
            ),
        )
    },
}


def test_each_added_setting_changes_the_fingerprint_once_it_differs() -> None:
    assert set(ADDED_VALUES) == set(FINGERPRINT_ADDITIONS)
    default = Settings().config_fingerprint()
    for name, fields in ADDED_VALUES.items():
        assert Settings(**fields).config_fingerprint() != default, name


def test_a_setting_outside_the_fingerprint_leaves_it_alone() -> None:
    changed = Settings(
        app_id="other", web_port=7000, stagger_ticks=False, log_level="debug", partitions=16
    )
    assert changed.config_fingerprint() == Settings().config_fingerprint()
