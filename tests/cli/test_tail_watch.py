"""`wavematch tail` following a topic says when its broker goes away, once, with a
reminder a minute and a line when it is back, instead of hanging in silence."""

from __future__ import annotations

import asyncio

import pytest

import streams.connection
from streams.commands.tail import BrokerWatch
from streams.connection import BrokerRefused, Connection


def test_an_outage_is_one_line_a_reminder_and_one_line_when_it_ends(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    up = {"now": True}
    probes: list[float] = []

    async def check(brokers: object, timeout_s: float = 0) -> None:
        probes.append(timeout_s)
        if not up["now"]:
            raise BrokerRefused("broker_url: cannot reach 127.0.0.1:9 (PLAINTEXT): refused")

    monkeypatch.setattr(streams.connection, "check_connection", check)
    watch = BrokerWatch(Connection("127.0.0.1:9"), 0.0)

    def poll(heard: bool, at: float) -> list[str]:
        asyncio.run(watch.after(heard, at))
        return capsys.readouterr().err.splitlines()

    assert poll(False, 5) == [] and probes == []  # silence is normal for a while
    assert poll(True, 12) == [] and probes == []  # records: the broker answers
    up["now"] = False
    assert poll(False, 23) == [
        "wavematch tail: broker 127.0.0.1:9 unreachable; waiting for it (Ctrl-C stops)"
    ]
    assert poll(False, 40) == [] and poll(False, 60) == []  # probed, not repeated
    assert poll(False, 85) == ["wavematch tail: broker still unreachable after 62 s"]
    up["now"] = True
    assert poll(False, 96) == ["wavematch tail: broker reachable again after 73 s"]
    assert poll(False, 110) == []
