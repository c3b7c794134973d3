"""Who may read the worker's web views: anyone on a loopback bind, token holders elsewhere.

The views (/health, /queues, /metrics, the console) are read-only but tell an outsider
what is queued and who matched; bound beyond loopback they answer 401 to any request
without ``Authorization: Bearer <web_token>`` (docs/adr/0172).
"""

from __future__ import annotations

import base64
import hmac
import ipaddress
from typing import Any

#: The shortest token accepted: long enough not to be guessed over the network.
MIN_WEB_TOKEN_CHARS = 16


def is_loopback(host: str) -> bool:
    """True for a bind only this machine can reach (``127.0.0.1``, ``::1``, ``localhost``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name may resolve to anything: treat it as reachable
        return False


def bearer_header(token: str) -> dict[str, str]:
    """The request header a client of the web views sends."""
    return {"Authorization": f"Bearer {token}"}


def token_middleware(token: str) -> Any:
    """An aiohttp middleware answering 401 unless the request carries ``token``.

    As ``Authorization: Bearer <token>`` (Prometheus, probes, curl), or as the password of
    HTTP Basic authentication (any user name), which a browser asks for by itself: the
    console needs no script to send a header.
    """
    # Imported here: the settings import this module, and every command reads settings.
    from aiohttp import web
    from multidict import CIMultiDict

    expected = token.encode()
    challenge = CIMultiDict(
        [("WWW-Authenticate", 'Basic realm="wavematch"'), ("WWW-Authenticate", "Bearer")]
    )

    def presented(header: str) -> bytes:
        # The scheme's name is case-insensitive (RFC 9110, 11.1): "bearer" is "Bearer".
        scheme, _, credentials = header.partition(" ")
        if scheme.lower() == "bearer":
            return credentials.encode()
        if scheme.lower() != "basic":
            return b""
        try:  # base64 of "user:password" (RFC 7617)
            return base64.b64decode(credentials, validate=True).partition(b":")[2]
        except ValueError:  # not base64
            return b""

    @web.middleware
    async def require_token(request: web.Request, handler: Any) -> web.StreamResponse:
        given = presented(request.headers.get("Authorization", ""))
        # Constant time: the comparison must not tell how much of a guess was right.
        if not hmac.compare_digest(given, expected):
            return web.json_response(
                {"error": "unauthorized: send Authorization: Bearer <web_token>"},
                status=401,
                headers=challenge,
            )
        response: web.StreamResponse = await handler(request)
        return response

    return require_token


def web_application_options(token: str | None, host: str) -> dict[str, Any]:
    """Faust's ``web_application_options``: the token check when the bind needs one."""
    if token is None or is_loopback(host):
        return {}
    return {"middlewares": [token_middleware(token)]}
