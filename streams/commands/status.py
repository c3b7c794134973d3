"""`wavematch status`: queue depth per queue and region, from the workers' /queues views."""

from __future__ import annotations

import argparse
import json
import os
import urllib.request

from streams.cli import UsageError
from streams.commands.common import add_instance_argument, running_up
from streams.healthcheck import token_from


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--web",
        action="append",
        help="a worker's base URL, e.g. http://127.0.0.1:6066 (repeatable; "
        "default: the workers of the running `wavematch up`)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_instance_argument(parser)


def run(args: argparse.Namespace) -> int:
    urls = args.web or (running_up(args.instance) or {}).get("web")
    if not urls:
        raise UsageError("--web: no worker URL given and no `wavematch up` is running")
    # One worker named twice would have its rows printed twice, as if two workers held them.
    first_of: dict[str, str] = {}
    for url in urls:
        first_of.setdefault(url.rstrip("/"), url)
    urls = list(first_of.values())
    rows = []
    # A worker bound beyond loopback asks for its web token (docs/adr/0172): the
    # worker's own variables, so `status` inside its container needs no flag.
    token = token_from(dict(os.environ))
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    for url in urls:
        try:
            request = urllib.request.Request(f"{url.rstrip('/')}/queues", headers=headers)
        except ValueError as error:  # not a URL at all ("notaurl", "http://[::1")
            raise UsageError(
                f"--web: {url!r} is not a worker URL such as http://host:port ({error})"
            ) from None
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                rows.extend(json.load(response)["queues"])
        except (OSError, ValueError) as error:
            if getattr(error, "code", None) == 401:
                wanted = "a different" if token else "its"
                raise UsageError(
                    f"--web: {url} asks for {wanted} web token: set WAVEMATCH_WEB_TOKEN "
                    "(or WAVEMATCH_WEB_TOKEN_FILE) as the worker has it"
                ) from None
            raise UsageError(f"--web: cannot read {url}/queues: {error}") from None
    rows.sort(key=lambda row: (row["queue"], row["region"]))
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"{'queue':<12} {'region':<10} {'tickets':>8} {'players':>8} {'waves':>7}")
    for row in rows:
        print(
            f"{row['queue']:<12} {row['region']:<10} {row['tickets']:>8} "
            f"{row['players']:>8} {row['waves_closed']:>7}"
        )
    return 0
