"""The image's runtime contract, run without a container engine.

A worker started exactly as the image starts it - the `wavematch worker` entrypoint with no
arguments, configured only by the compose service's environment - becomes healthy by the
Dockerfile's own HEALTHCHECK command, owns every partition, and stops cleanly (exit 0) on
SIGTERM, after which the HEALTHCHECK fails. The broker is the embedded one. Its web views
bind 0.0.0.0, so they answer 401 without the compose secret's token and 200 with it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("yaml", reason="PyYAML parses the deployment files (test extra)")

from streams.embedded.broker import EmbeddedBroker, free_port
from tests.deploy import checks

pytestmark = pytest.mark.integration
TOKEN = "image-contract-0123456789abcdef"


def healthcheck_command() -> str:
    for instruction, args in checks.dockerfile_instructions(checks.DOCKERFILE.read_text()):
        if instruction == "HEALTHCHECK":
            return re.search(r"\bCMD (.+)$", args).group(1)  # type: ignore[union-attr]
    raise AssertionError("no HEALTHCHECK")


def healthy(env: dict[str, str]) -> bool:
    return (
        subprocess.run(
            ["sh", "-c", healthcheck_command()], env=env, capture_output=True, timeout=10
        ).returncode
        == 0
    )


def get(env: dict[str, str], path: str, token: str | None) -> Any:
    request = urllib.request.Request(f"http://127.0.0.1:{env['WAVEMATCH_WEB_PORT']}{path}")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    return urllib.request.urlopen(request, timeout=2)


def owned(env: dict[str, str]) -> list[int]:
    with get(env, "/health", TOKEN) as response:
        return list(json.load(response)["partitions"])


def status_without_token(env: dict[str, str], path: str) -> int:
    try:
        with get(env, path, None) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_entrypoint_with_compose_environment_is_healthy_and_stops_cleanly(tmp_path: Path) -> None:
    worker = checks.compose()["services"]["worker"]
    entrypoint = checks.dockerfile_instructions(checks.DOCKERFILE.read_text())
    argv = [a for i, a in entrypoint if i == "ENTRYPOINT"][-1]
    command = [
        str(Path(sys.executable).parent / word) if n == 0 else word
        for n, word in enumerate(checks.yaml.safe_load(argv))
    ]
    assert checks.service_env(worker)["WAVEMATCH_WEB_TOKEN_FILE"].startswith("/run/secrets/")
    token_file = tmp_path / "web-token.txt"
    token_file.write_text(TOKEN)
    with EmbeddedBroker(log_path=tmp_path / "broker.log") as broker:
        env = {k: v for k, v in os.environ.items() if not k.startswith("WAVEMATCH_")}
        env.update(
            checks.service_env(worker),
            WAVEMATCH_BROKER_URL=broker.url,
            WAVEMATCH_WEB_PORT=str(free_port()),
            WAVEMATCH_CONFIG_FILE=str(checks.compose_config_file(worker)),
            # The compose secret's file, and the image's python first on PATH.
            WAVEMATCH_WEB_TOKEN_FILE=str(token_file),
            PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        )
        topics = checks.compose()["services"]["topics"]["entrypoint"]
        subprocess.run(
            [str(Path(sys.executable).parent / topics[0]), *topics[1:]],
            env=env,
            check=True,
            timeout=120,
            capture_output=True,
        )
        log = tmp_path / "worker.log"
        process = subprocess.Popen(
            command,
            env=env,
            cwd=tmp_path,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 90
            while not healthy(env):
                assert process.poll() is None, log.read_text()[-2000:]
                assert time.monotonic() < deadline, "never healthy"
                time.sleep(0.5)
            partitions = checks.load_settings(checks.compose_config_file(worker)).partitions
            while owned(env) != list(range(partitions)):
                assert time.monotonic() < deadline, f"owns {owned(env)} of {partitions}"
                time.sleep(0.5)
            for path in ("/health", "/queues", "/metrics", "/console"):
                assert status_without_token(env, path) == 401, path
                with get(env, path, TOKEN) as response:
                    assert response.status == 200, path
            # `wavematch status` in the container sends the worker's own token.
            web = f"http://127.0.0.1:{env['WAVEMATCH_WEB_PORT']}"
            status = [str(Path(sys.executable).parent / "wavematch"), "status", "--web", web]
            done = subprocess.run(status, env=env, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0 and done.stdout.startswith("queue "), done.stderr
            tokenless = {k: v for k, v in env.items() if k != "WAVEMATCH_WEB_TOKEN_FILE"}
            refused = subprocess.run(
                status, env=tokenless, capture_output=True, text=True, timeout=60
            )
            assert refused.returncode == 2, refused.stderr
            assert "asks for its web token: set WAVEMATCH_WEB_TOKEN" in refused.stderr
            process.send_signal(signal.SIGTERM)
            assert process.wait(60) == 0, log.read_text()[-2000:]
            assert not healthy(env)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)
