"""The container probe: exit 0 when this host's worker answers /health, 1 otherwise.

Run as ``python -m streams.healthcheck`` by the image's HEALTHCHECK and the Kubernetes
probes. It reads the worker's own variables (WAVEMATCH_WEB_PORT, WAVEMATCH_WEB_TOKEN or
WAVEMATCH_WEB_TOKEN_FILE) and imports nothing else of wavematch: a probe runs every few
seconds and must start fast. An HTTP probe cannot send a token kept in a Secret.
"""

from __future__ import annotations

import os
import sys
import urllib.request
from pathlib import Path

HEALTH_PATH = "/health"


def token_from(environ: dict[str, str]) -> str | None:
    """The web token a worker with ``environ`` requires (None: it requires none)."""
    if environ.get("WAVEMATCH_WEB_TOKEN"):
        return environ["WAVEMATCH_WEB_TOKEN"]
    path = environ.get("WAVEMATCH_WEB_TOKEN_FILE")
    try:
        return Path(path).read_text().strip() if path else None
    except OSError:  # the worker refuses to start without it; a client just sends none
        return None


def healthy(environ: dict[str, str]) -> bool:
    port = environ.get("WAVEMATCH_WEB_PORT", "6066")
    request = urllib.request.Request(f"http://127.0.0.1:{port}{HEALTH_PATH}")
    token = token_from(environ)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(0 if healthy(dict(os.environ)) else 1)
