"""The docstring examples of the team modules run as tests."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import matcher.teams

MODULES = sorted(
    f"matcher.teams.{info.name}" for info in pkgutil.iter_modules(matcher.teams.__path__)
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    failures, _ = doctest.testmod(importlib.import_module(name))
    assert failures == 0
