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


def test_a_reader_that_goes_away_ends_the_command_quietly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`wavematch wave ... | head -c 5`: a closed pipe is the reader's choice, not an error."""
    import io
    import os
    from pathlib import Path

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before anything is written
    closed = io.TextIOWrapper(os.fdopen(write_end, "wb"))  # block-buffered, as to a pipe
    monkeypatch.setattr("sys.stdout", closed)
    example = Path(__file__).resolve().parents[2] / "examples" / "wave-1v1.json"
    assert main(["wave", "--strategy", "optimal", "--input", str(example)]) == 0
    closed.write("more")
    closed.close()  # stdout now leads nowhere: no second error at exit
    assert capsys.readouterr().err == ""
