"""Pytest fixtures for the schema registry tier (imported by tests/conftest.py).

``apicurio`` is one Apicurio Registry for the session, launched and not waited for:
a test waits (``apicurio.wait_ready()``) once it has started its other processes, so the
JVMs start side by side. Without Java or the registry's
files it fails, saying why in one line, unless ``WAVEMATCH_SKIP_TIERS=registry`` asks to
skip it (never under ``CI=true``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.registry.apicurio import Apicurio, RegistryUnavailable, runner_jar
from tests.tiers import skipped_tiers


def require_registry() -> None:
    """Fail the calling test when the registry tier cannot run; skip it only when told to."""
    try:
        runner_jar()
    except RegistryUnavailable as missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{missing}; CI=true requires the schema registry tier", pytrace=False)
        if "registry" in skipped_tiers():
            pytest.skip(f"{missing}; skipped as WAVEMATCH_SKIP_TIERS asks")
        pytest.fail(str(missing), pytrace=False)


@pytest.fixture(scope="session")
def apicurio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Apicurio]:
    """One Apicurio Registry for the session (its log under pytest's kept tmp dirs),
    launched: call ``wait_ready()`` before using it (a no-op once it answered)."""
    require_registry()
    registry = Apicurio(tmp_path_factory.mktemp("apicurio") / "registry.log")
    with registry.start(wait=False):
        yield registry
