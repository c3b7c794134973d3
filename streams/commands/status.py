"""`wavematch status`: queue depth per queue and region, from the workers' /queues views."""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.request

from streams.cli import UsageError
from streams.commands.common import add_instance_argument, running_up
from streams.healthcheck import token_from
from streams.settings import SettingsError, check_variable_names


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "Exit status: 0 every worker answered; 1 a worker could not be read (one line each "
        "on stderr, the others' rows printed); 2 a usage error."
    )
    parser.add_argument(
        "--web",
        action="append",
        help="a worker's base URL, e.g. http://127.0.0.1:6066 (repeatable; "
        "default: the workers of the running `wavematch up`)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_instance_argument(parser)


def run(args: argparse.Namespace) -> int:
    try:  # status reads no settings, but a misspelt variable is refused as everywhere
        check_variable_names(os.environ)
    except SettingsError as error:
        raise UsageError(str(error)) from None
    urls = args.web or (running_up(args.instance) or {}).get("web")
    if not urls:
        raise UsageError("--web: no worker URL given and no `wavematch up` is running")
    # One worker named twice would have its rows printed twice, as if two workers held them.
    first_of: dict[str, str] = {}
    for url in urls:
        first_of.setdefault(url.rstrip("/"), url)
    urls = list(first_of.values())
    rows, unread = [], []
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
            # The others' rows still show: a dead worker is what status is run to find.
            unread.append(f"wavematch status: cannot read {url}/queues: {error}")
    rows.sort(key=lambda row: (row["queue"], row["region"]))
    for line in unread:
        print(line, file=sys.stderr)
    if args.json:
        print(json.dumps(rows))
        return 1 if unread else 0
    print(f"{'queue':<12} {'region':<10} {'tickets':>8} {'players':>8} {'waves':>7}")
    for row in rows:
        print(
            f"{row['queue']:<12} {row['region']:<10} {row['tickets']:>8} "
            f"{row['players']:>8} {row['waves_closed']:>7}"
        )
    return 1 if unread else 0
