"""The worker process's allocator setting (docs/adr/history/0072, docs/adr/0085)."""

from __future__ import annotations

import ctypes
import platform
import subprocess
import sys

import pytest

from streams import allocator

GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


@pytest.mark.skipif(not GLIBC, reason="glibc's malloc only")
def test_freed_blocks_stay_in_the_heap_for_reuse() -> None:
    # In a child process: the setting is process-wide and the test must see its effect
    # from a known start. A 4 MiB block would be mapped on its own and a freed top of
    # the heap given back under glibc's defaults; with the setting neither happens.
    code = """
import ctypes
from streams.allocator import keep_freed_memory
from tests.streams.test_allocator import _MallInfo2
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = _MallInfo2
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = (ctypes.c_void_p,)
assert keep_freed_memory()
before = libc.mallinfo2()
blocks = [libc.malloc(4 << 20) for _ in range(4)]
during = libc.mallinfo2()
for block in reversed(blocks):
    libc.free(block)
after = libc.mallinfo2()
print(during.hblkhd - before.hblkhd, during.arena - before.arena, after.arena - before.arena)
"""
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    mapped, heap_grown, heap_kept = (int(word) for word in found.stdout.split())
    assert mapped == 0  # served from the heap, not mmap
    assert heap_grown >= 15 << 20
    assert heap_kept >= 15 << 20  # not trimmed on free


def test_glibc_takes_the_setting() -> None:
    assert allocator.keep_freed_memory() is GLIBC


def test_nothing_changes_without_mallopt(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_library(name: object) -> object:
        raise OSError("no C library here")

    monkeypatch.setattr(ctypes, "CDLL", no_library)
    assert allocator.keep_freed_memory() is False
    monkeypatch.setattr(sys, "platform", "darwin")
    assert allocator.keep_freed_memory() is False


class _Stop(Exception):
    """Raised where the worker command would read its settings: nothing is started."""


def _record_calls(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    calls: list[bool] = []

    def recorded() -> bool:
        calls.append(True)
        return True

    monkeypatch.setattr(allocator, "keep_freed_memory", recorded)
    return calls


def test_the_worker_command_sets_it_before_anything_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from streams import cli
    from streams.commands import worker

    calls = _record_calls(monkeypatch)

    def stop(*args: object, **kwargs: object) -> None:
        assert calls == [True]
        raise _Stop

    monkeypatch.setattr(worker, "settings_from", stop)
    with pytest.raises(_Stop):
        cli.main(["worker"])


def test_other_commands_keep_the_c_librarys_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    from streams import cli

    calls = _record_calls(monkeypatch)
    with pytest.raises(SystemExit):
        cli.main(["wave", "--help"])
    assert calls == []
