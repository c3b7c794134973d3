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

from streams.commands.common import UP_STATE_FILE, add_connection_arguments, settings_from
from streams.embedded.broker import EmbeddedBroker, free_port
from streams.processes import stop_process


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_connection_arguments(parser)
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--web-port", type=int, help="first worker's HTTP port (default: free)")
    parser.add_argument("--log-dir", type=Path, help="write broker and worker logs here")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    # Ctrl-C and a plain `kill` both stop everything cleanly (a shell starts background
    # jobs with SIGINT ignored, hence setting it explicitly).
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    settings = settings_from(args)
    log_dir = args.log_dir
    if log_dir:
        log_dir.mkdir(parents=True, exist_ok=True)
    broker = EmbeddedBroker(log_path=log_dir / "broker.log" if log_dir else None).start()
    workers: list[subprocess.Popen[bytes]] = []
    try:
        from streams.topics import ensure_topics

        settings = settings.model_copy(update={"broker_url": broker.url})
        asyncio.run(ensure_topics(settings))
        ports = [args.web_port or free_port()] + [free_port() for _ in range(args.workers - 1)]
        workers = [
            _start_worker(broker.url, port, args.config, log_dir, i) for i, port in enumerate(ports)
        ]
        _write_state(broker, ports)
        _print_banner(broker, ports)
        return _supervise(broker, workers)
    except KeyboardInterrupt:
        print("\nstopping ...", file=sys.stderr)
        return 0
    finally:
        for worker in workers:
            stop_process(worker, 15.0)
        broker.stop()
        UP_STATE_FILE.unlink(missing_ok=True)


def _start_worker(
    broker_url: str, port: int, config: Path | None, log_dir: Path | None, index: int
) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-m",
        "streams.cli",
        "worker",
        "--broker",
        broker_url,
        "--web-port",
        str(port),
    ]
    if config:
        command += ["--config", str(config)]
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


def _write_state(broker: EmbeddedBroker, ports: list[int]) -> None:
    UP_STATE_FILE.parent.mkdir(parents=True, exist_ok=True)
    UP_STATE_FILE.write_text(
        json.dumps(
            {
                "pid": os.getpid(),
                "broker_url": broker.url,
                "broker_pid": broker.pid,
                "web": [f"http://127.0.0.1:{port}" for port in ports],
            }
        )
    )


def _print_banner(broker: EmbeddedBroker, ports: list[int]) -> None:
    print(
        f"""wavematch is up.
  broker     {broker.url}  (Kafka protocol on {broker.bootstrap}, memory-only, pid {broker.pid})
  workers    {", ".join(f"http://127.0.0.1:{p}/queues" for p in ports)}  (/metrics, /health)
  send       topic wavematch.queue.v1, key "<queue>/<region>", Avro or JSON values
  try        wavematch join --queue 1v1 --region eu --player alice:bw=1500
             wavematch join --queue 1v1 --region eu --player bob:sc2=1520
             wavematch tail matches
Ctrl-C stops the workers and the broker.""",
        flush=True,
    )
