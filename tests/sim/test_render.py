"""The report renders in a real browser: headless Chromium (Debian's ``chromium`` package).

The session's start installs it where it can (tests/tiers.py) or stops the run saying what
to do; the test skips only under ``WAVEMATCH_SKIP_TIERS=chromium``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image

from streams.cli import main
from tests.sim.test_cli import TINY
from tests.tiers import CHROMIUM_FLAGS, chromium_path, skipped_tiers

CHROMIUM = chromium_path() or Path("/usr/bin/chromium")
#: matplotlib's first two line colours: only the embedded plots can paint them.
BLUE, ORANGE = (31, 119, 180), (255, 127, 14)

pytestmark = pytest.mark.skipif(
    "chromium" in skipped_tiers() and not CHROMIUM.exists(),
    reason="chromium is not installed; skipped as WAVEMATCH_SKIP_TIERS asks",
)


def chromium(tmp_path: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / "chromium-profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run(
        [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("render")
    (root / "sim.toml").write_text(TINY)
    assert (
        main(
            [
                "simulate",
                "--config",
                str(root / "sim.toml"),
                "--report",
                str(root / "out"),
                "--quiet",
            ]
        )
        == 0
    )
    return root / "out" / "report.html"


def _pixels_near(pixels: np.ndarray, colour: tuple[int, int, int]) -> int:
    distance = np.abs(pixels.astype(int) - np.array(colour)).sum(axis=2)
    return int((distance < 30).sum())


def test_screenshot_shows_tables_and_plots(report: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    done = chromium(tmp_path, "--window-size=1280,2400", f"--screenshot={shot}", report.as_uri())
    assert shot.is_file(), done.stderr[-2000:]
    pixels = (image.imread(shot)[:, :, :3] * 255).round().astype(np.uint8)
    assert pixels.shape[:2] == (2400, 1280)
    non_white = int((pixels.min(axis=2) < 200).sum())
    assert non_white > 0.02 * pixels.shape[0] * pixels.shape[1]  # not a blank page
    assert _pixels_near(pixels, BLUE) > 200  # the first variant's lines and points
    assert _pixels_near(pixels, ORANGE) > 200  # the second variant's


def test_dom_has_every_plot_and_the_tables(report: Path, tmp_path: Path) -> None:
    done = chromium(tmp_path, "--dump-dom", report.as_uri())
    dom = done.stdout
    assert "<h1>wavematch simulation report</h1>" in dom, done.stderr[-2000:]
    assert dom.count('<img alt="') == 4 and dom.count("data:image/png;base64,iVBORw0KGgo") == 4
    assert dom.count("<table>") == 2 and "estimate MAE s" in dom
