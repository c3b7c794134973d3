"""`wavematch up`: the embedded broker, the topics and worker(s), in one command.

The broker is memory-only: if it exits, every topic and queue is gone and a running
worker would write into topics that no longer exist, so its exit stops everything.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from streams.cli import UsageError
from streams.commands.common import (
    DEFAULT_INSTANCE,
    add_connection_arguments,
    built_in_queue_notice,
    check_output_dir,
    check_port_free,
    check_registry,
    running_ups,
    settings_from,
    state_dir,
    up_state_file,
)
from streams.embedded.broker import EmbeddedBroker, free_port
from streams.processes import stop_process
from streams.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_connection_arguments(parser, instance=False, broker=False)
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--web-port", type=int, help="first worker's HTTP port (default: free)")
    parser.add_argument(
        "--log-dir",
        type=Path,
        help="write broker and worker logs here (default: the terminal, warnings and "
        "errors only, unless log_level is set)",
    )
    parser.add_argument(
        "--name",
        default=DEFAULT_INSTANCE,
        help="this instance's name, for running several on one machine; other commands "
        f"choose one with --instance NAME (default {DEFAULT_INSTANCE!r})",
    )


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    # Ctrl-C and a plain `kill` both stop everything cleanly (a shell starts background
    # jobs with SIGINT ignored, hence setting it explicitly).
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    if args.workers < 1:
        raise UsageError(f"--workers: {args.workers}: give 1 or more")
    if args.web_port is not None and not 1 <= args.web_port <= 65535:
        raise UsageError(f"--web-port: {args.web_port} is not a port (1-65535)")
    settings = settings_from(args, find_up=False)
    notice = built_in_queue_notice(args, settings)
    if notice:
        print(f"wavematch up: {notice}", file=sys.stderr, flush=True)
    if args.broker:
        raise UsageError(
            "--broker: `up` runs its own embedded broker on a free port; "
            "on a broker of yours run `wavematch worker --broker URL`"
        )
    if "broker_url" in settings.model_fields_set:
        print(
            f"wavematch up: broker_url {settings.broker_url} of the settings is not used: up "
            "runs its own embedded broker (`wavematch worker` uses it)",
            file=sys.stderr,
        )
    _refuse_taken_name(args.name)
    # What each worker would refuse, refused here: before the broker, the banner and a
    # worker that exits at once (a non-loopback web_host without a token).
    problem = settings.web_access_problem()
    if problem is not None:
        raise UsageError(problem)
    if args.web_port:
        check_port_free(settings.web_host, args.web_port, "--web-port")
    log_dir = args.log_dir
    if log_dir:
        check_output_dir("--log-dir", log_dir)
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:  # e.g. under /proc: looks writable, is not
            raise UsageError(f"--log-dir: cannot create {log_dir}: {error.strerror}") from None
    check_registry(settings)
    quiet = log_dir is None and "log_level" not in settings.model_fields_set
    broker = EmbeddedBroker(log_path=log_dir / "broker.log" if log_dir else None).start()
    workers: list[subprocess.Popen[bytes]] = []
    try:
        from streams.topics import ensure_topics

        settings = settings.model_copy(update={"broker_url": broker.url})
        asyncio.run(ensure_topics(settings))
        ports = [args.web_port or free_port()] + [free_port() for _ in range(args.workers - 1)]
        data_dir = state_dir() / f"up-{args.name}"
        workers = [
            _start_worker(broker.url, port, args.config, log_dir, i, data_dir, quiet)
            for i, port in enumerate(ports)
        ]
        _write_state(args.name, broker, ports, args.config)
        _print_banner(args.name, settings, broker, ports)
        return _supervise(broker, workers)
    except KeyboardInterrupt:
        print("\nstopping ...", file=sys.stderr)
        return 0
    finally:
        for worker in workers:
            stop_process(worker, 15.0)
        broker.stop()
        _remove_state(args.name)


def _start_worker(
    broker_url: str,
    port: int,
    config: Path | None,
    log_dir: Path | None,
    index: int,
    data: Path,
    quiet: bool,
) -> subprocess.Popen[bytes]:
    """``quiet``: the worker logs warnings and errors only (its info lines would scroll
    the banner away in the terminal they share)."""
    command = [
        sys.executable,
        "-m",
        "streams.cli",
        "worker",
        "--broker",
        broker_url,
        "--web-port",
        str(port),
        "--data-dir",
        str(data),
    ]
    if config:
        command += ["--config", str(config)]
    if quiet:
        command += ["--loglevel", "warn"]
    out = open(log_dir / f"worker-{index}.log", "ab") if log_dir else None  # noqa: SIM115
    return subprocess.Popen(
        command, stdout=out, stderr=subprocess.STDOUT if out else None, start_new_session=True
    )


def _supervise(broker: EmbeddedBroker, workers: list[subprocess.Popen[bytes]]) -> int:
    while True:
        time.sleep(0.5)
        if not broker.alive():
            print(
                "wavematch up: the embedded broker exited; it is memory-only, so every topic "
                "and queue is gone. Stopping the workers.",
                file=sys.stderr,
            )
            return 1
        for worker in workers:
            if worker.poll() is not None:
                print(
                    f"wavematch up: worker {worker.pid} exited with code {worker.returncode}; "
                    "stopping.",
                    file=sys.stderr,
                )
                return worker.returncode or 1


def _refuse_taken_name(name: str) -> None:
    if not name.replace("-", "").replace("_", "").isalnum():
        raise UsageError(f"--name: {name!r} is not letters, digits, - and _")
    other = running_ups().get(name)
    if other is not None:
        raise UsageError(
            f"--name: a `wavematch up` named {name!r} is already running (pid {other['pid']}, "
            f"{other['broker_url']}); start this one with another --name"
        )


def _write_state(name: str, broker: EmbeddedBroker, ports: list[int], config: Path | None) -> None:
    path = up_state_file(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "name": name,
                "pid": os.getpid(),
                "broker_url": broker.url,
                "broker_pid": broker.pid,
                "web": [f"http://127.0.0.1:{port}" for port in ports],
                "config": str(config.resolve()) if config else None,
            }
        )
    )


def _remove_state(name: str) -> None:
    """Remove this instance's file only: another process may have taken the name since."""
    path = up_state_file(name)
    try:
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError):
        pass


def try_commands(settings: Settings, name: str) -> list[str]:
    """The joins of one match in the first configured queue, for the banner and the docs
    (streams/commands/trial_joins.py); empty when none could be built."""
    from streams.commands.trial_joins import join_command, trial_players

    queue = settings.queues[0]
    instance = "" if name == DEFAULT_INSTANCE else f" --instance {name}"
    head = f"wavematch join{instance} --queue {queue.name} --region {queue.regions[0]}"
    players = trial_players(settings, queue) or []
    return [join_command(head, player) for player in players]


#: More joins than this go to a script the banner names.
BANNER_JOINS = 10


def _try_lines(name: str, settings: Settings) -> list[str]:
    """The banner's ``try`` lines: one match's joins (or the script holding them), then
    the tail that shows its MatchCreated."""
    instance = "" if name == DEFAULT_INSTANCE else f" --instance {name}"
    joins = try_commands(settings, name)
    queue = settings.queues[0]
    if not joins:
        lines = [f"(no joins built for {queue.name}'s rules: docs/rules.md, join --player-json)"]
    elif len(joins) <= BANNER_JOINS:
        lines = joins
    else:
        script = state_dir() / f"up-{name}-try.sh"
        wavematch = Path(sys.executable).with_name("wavematch")  # this install's
        script.write_text("".join(f"{wavematch}{j.removeprefix('wavematch')}\n" for j in joins))
        lines = [f"bash {script}   # the {len(joins)} joins of one {queue.name} match"]
    return [*lines, f"wavematch tail{instance} matches --from-beginning --count 1 --timeout 60"]


def _print_banner(name: str, settings: Settings, broker: EmbeddedBroker, ports: list[int]) -> None:
    queues = ", ".join(f"{q.name} ({q.strategy}; {', '.join(q.regions)})" for q in settings.queues)
    first_queue = settings.queues[0]
    # Without a rules rating a duel pairs races; with one it is a mirror ladder.
    races = first_queue.strategy in ("optimal", "ladder-v2.1") and not first_queue.rules.get(
        "rating"
    )
    note = "  (a 1v1 duel pairs a bw player against an sc2 player)" if races else ""
    tries = _try_lines(name, settings)
    tries[-2] += note
    shown = "\n             ".join(tries)
    print(
        f"""wavematch is up ({name}).
  broker     {broker.url}  (Kafka protocol on {broker.bootstrap}, memory-only, pid {broker.pid})
  workers    {", ".join(f"http://127.0.0.1:{p}/queues" for p in ports)}  (/metrics, /health)
  queues     {queues}
  send       topic wavematch.queue.v1, key "<queue>/<region>", Avro or JSON values
  try        {shown}
Ctrl-C stops the workers and the broker.""",
        flush=True,
    )
