"""The docstring examples of every ``matcher`` module run as tests (they document
behaviour, so a stale one is a defect)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import matcher

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(matcher.__path__, "matcher.") if not info.ispkg
)


def test_every_matcher_module_is_collected() -> None:
    assert {"matcher.duel.graph", "matcher.duel.optimal", "matcher.teams.grouping"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    outcome = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert outcome.failed == 0
