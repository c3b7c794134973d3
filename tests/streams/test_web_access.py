"""The web views' token (docs/adr/0172): loopback binds need none; any other bind needs
one at start (one line naming the field) and answers 401 to requests without it."""

from __future__ import annotations

import base64
import os
import re
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from streams.cli import main
from streams.settings import SettingsError, load_settings
from streams.web_access import bearer_header, is_loopback, web_application_options

TOKEN = "k36b-token-0123456789abcdef"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.upper().startswith("WAVEMATCH_"):
            monkeypatch.delenv(name)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.53", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("10.0.0.7", False),
        ("worker.example", False),
    ],
)
def test_which_binds_are_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_loopback_needs_no_token() -> None:
    assert load_settings().web_access_problem() is None
    assert web_application_options(None, "127.0.0.1") == {}


def test_a_non_loopback_bind_without_a_token_is_refused_in_one_line() -> None:
    settings = load_settings(web_host="0.0.0.0")
    problem = settings.web_access_problem()
    assert problem is not None and problem.startswith("web_token: required")
    assert "\n" not in problem
    # A worker without its web views serves nothing, so it needs no token either.
    assert load_settings(web_host="0.0.0.0", web_enabled=False).web_access_problem() is None


def test_the_worker_command_refuses_to_start(capsys: pytest.CaptureFixture[str]) -> None:
    os.environ["WAVEMATCH_WEB_HOST"] = "0.0.0.0"
    try:
        code = main(["worker", "--broker", "kafka://127.0.0.1:9"])
    finally:
        del os.environ["WAVEMATCH_WEB_HOST"]
    err = capsys.readouterr().err.strip()
    assert code != 0
    assert err.splitlines() == [err]
    assert err.startswith("wavematch worker: error: web_token: required with the non-loopback")


@pytest.mark.parametrize(
    ("token", "message"),
    [("short", "at least 16 characters"), ("with a space in it!", "without spaces")],
)
def test_weak_tokens_are_refused(token: str, message: str) -> None:
    with pytest.raises(SettingsError, match=rf"^web_token: .*{message}"):
        load_settings(web_host="0.0.0.0", web_token=token)


def test_the_token_comes_from_a_file_once(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    settings = load_settings(web_host="0.0.0.0", web_token_file=path)
    assert settings.web_token is not None
    assert settings.web_token.get_secret_value() == TOKEN
    assert TOKEN not in repr(settings)  # a SecretStr
    assert settings.web_access_problem() is None
    with pytest.raises(SettingsError, match=r"^web_token_file: cannot read"):
        load_settings(web_token_file=tmp_path / "missing")
    with pytest.raises(SettingsError, match=r"^web_token_file: set it or web_token, not both"):
        load_settings(web_token_file=path, web_token=TOKEN)


def test_the_token_is_not_in_the_fingerprint() -> None:
    with_token = load_settings(web_host="0.0.0.0", web_token=TOKEN)
    assert with_token.config_fingerprint() == load_settings().config_fingerprint()


def basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


async def status_of(options: dict[str, object], headers: dict[str, str]) -> int:
    async def ok(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    app = web.Application(**options)  # type: ignore[arg-type]
    app.router.add_get("/health", ok)
    async with TestClient(TestServer(app)) as client:
        response = await client.get("/health", headers=headers)
        return response.status


async def test_only_the_token_opens_a_non_loopback_bind() -> None:
    options = web_application_options(TOKEN, "0.0.0.0")
    assert await status_of(options, {}) == 401
    assert await status_of(options, bearer_header("0123456789abcdef-wrong")) == 401
    assert await status_of(options, {"Authorization": TOKEN}) == 401  # not a Bearer header
    assert await status_of(options, bearer_header(TOKEN)) == 200
    # The scheme's name is case-insensitive (RFC 9110): clients that send "bearer" pass.
    assert await status_of(options, {"Authorization": f"bearer {TOKEN}"}) == 200
    assert await status_of(options, {"Authorization": f"bearer {TOKEN}x"}) == 401
    # A browser's Basic authentication, the token as the password (any user name).
    assert await status_of(options, basic("ops", TOKEN)) == 200
    assert await status_of(options, basic(TOKEN, "x")) == 401
    assert await status_of(options, {"Authorization": "Basic %%%"}) == 401
    # On loopback the same token setting adds no check.
    assert await status_of(web_application_options(TOKEN, "127.0.0.1"), {}) == 200


@pytest.mark.parametrize(
    ("host", "reason"),
    [
        ("[::1]", "give an IPv6 address without brackets ('::1')"),
        ("my host", "'my host' is not an IP address or a host name"),
        ("-worker", "'-worker' is not an IP address or a host name"),
    ],
)
def test_a_web_host_the_server_cannot_bind_is_named_at_load(host: str, reason: str) -> None:
    # Refused before the token check, which would otherwise blame a missing token.
    with pytest.raises(SettingsError, match=rf"^web_host: {re.escape(reason)}$"):
        load_settings(web_host=host)
    assert load_settings(web_host="wm-0.wm.svc.cluster.local", web_token=TOKEN).web_host
    assert load_settings(web_host="::1").web_access_problem() is None
