"""``wavematch --help`` and each command's ``--help`` read as text for the person at the
terminal: no docstring markup, and every command of the list answers."""

from __future__ import annotations

import re

import pytest

from streams.cli import COMMANDS, main

#: reStructuredText a module's reader sees but a terminal shows raw.
MARKUP = re.compile(r"``|:(mod|func|class|meth|attr|data):`")


def help_of(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--help"])
    assert exited.value.code == 0
    return capsys.readouterr().out


def test_the_top_level_help_lists_every_command_without_markup(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown = help_of(capsys, [])
    assert not MARKUP.search(shown), shown
    assert "wavematch up" in shown, shown
    for name in COMMANDS:
        assert re.search(rf"^\s+{name}\s", shown, re.MULTILINE), (name, shown)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_command_help_has_no_markup(capsys: pytest.CaptureFixture[str], command: str) -> None:
    shown = help_of(capsys, [command])
    assert shown.startswith(f"usage: wavematch {command}"), shown
    assert not MARKUP.search(shown), shown
