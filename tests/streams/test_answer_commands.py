"""`wavematch accept|decline|placed` publish the platform's lifecycle events."""

from __future__ import annotations

import pytest

from schemas import models as m
from streams.cli import main
from streams.commands.publish import Sent

WHERE = ["--queue", "1v1", "--region", "eu", "--match", "m-1"]


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[m.Record]:
    events: list[m.Record] = []

    def fake(args, event):  # type: ignore[no-untyped-def]
        events.append(event)
        return Sent(3, 41)

    for module in ("streams.commands.answer", "streams.commands.placed"):
        monkeypatch.setattr(f"{module}.publish", fake)
    return events


@pytest.mark.parametrize(("command", "accepted"), [("accept", True), ("decline", False)])
def test_an_answer_is_a_ready_check_answered(sent, command, accepted, capsys):
    assert main([command, *WHERE, "--player", "alice"]) == 0
    verb = "accepts" if accepted else "declines"
    assert capsys.readouterr().out == (
        f"alice {verb} match m-1: sent to wavematch.queue.v1, partition 3, offset 41\n"
    )
    (event,) = sent
    assert isinstance(event, m.ReadyCheckAnswered)
    assert (event.match_id, event.player_id, event.accepted) == ("m-1", "alice", accepted)


def test_a_placement_report(sent, capsys):
    assert main(["placed", *WHERE, "FAILED", "--detail", "no capacity"]) == 0
    assert capsys.readouterr().out.startswith("match m-1 placement FAILED: sent to ")
    (event,) = sent
    assert (event.outcome, event.detail) == (m.PlacementOutcome.FAILED, "no capacity")


def test_a_bad_player_id_is_one_line_naming_the_field(sent, capsys):
    assert main(["accept", *WHERE, "--player", "bad\x01id"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("wavematch accept: error: player_id:") and error.count("\n") == 1
    assert sent == []


def test_a_started_report_with_connection_details(sent, tmp_path, capsys):
    token = tmp_path / "token"
    token.write_text("k7Yq2m9X-join\n")
    args = ["placed", *WHERE, "STARTED", "--connect", "[2001:db8::7]:7777"]
    assert main([*args, "--token-file", str(token)]) == 0
    (event,) = sent
    assert event.connection == m.Connection(
        address="[2001:db8::7]", port=7777, token="k7Yq2m9X-join"
    )
    for wrong, message in [
        (["FAILED", "--connect", "h:1"], "connection: only a STARTED placement carries"),
        (["STARTED", "--connect", "h:0"], "connection.port: Input should be greater"),
        (["STARTED", "--connect", "nope"], "--connect: 'nope' is not like ADDRESS:PORT"),
        (["STARTED", "--token-file", str(token)], "--token-file: only with --connect"),
    ]:
        assert main(["placed", *WHERE, *wrong]) == 2
        error = capsys.readouterr().err
        assert error.startswith(f"wavematch placed: error: {message}"), error
        assert error.count("\n") == 1
    assert len(sent) == 1
