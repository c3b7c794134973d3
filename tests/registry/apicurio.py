"""Start and stop Apicurio Registry (in-memory) from the zip tests/registry/install.sh
unpacks: one process on a free loopback port, its global compatibility rule BACKWARD (its
default is NONE), the Confluent-compatible API at ``/apis/ccompat/v7``. Stopped by PID.

The same cache holds Apicurio's Avro serde and its Kafka client: :func:`serde_classpath`
is what a JVM reader of the tests compiles and runs against.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from streams.embedded.broker import free_port
from streams.processes import StopsOnExit, stop_process

HERE = Path(__file__).resolve().parent


class RegistryUnavailable(RuntimeError):
    """Java or the registry's files are missing: the message says which and how to fix it."""


def registry_version() -> str:
    pom = (HERE / "pom.xml").read_text()
    return pom.split("<registry.version>", 1)[1].split("</registry.version>", 1)[0]


def cache_dir() -> Path:
    """Where install.sh puts the registry and the serde (WAVEMATCH_REGISTRY_DIR overrides)."""
    if os.environ.get("WAVEMATCH_REGISTRY_DIR"):
        return Path(os.environ["WAVEMATCH_REGISTRY_DIR"])
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "wavematch" / f"apicurio-{registry_version()}"


def registry_ready() -> bool:
    """Whether install.sh completed its cache."""
    return (cache_dir() / ".complete").is_file()


def runner_jar() -> Path:
    """The registry's runner jar, or RegistryUnavailable saying what to run."""
    if shutil.which("java") is None:
        raise RegistryUnavailable("schema registry tier: java is not installed (Java 17+)")
    jar = cache_dir() / "app" / f"apicurio-registry-app-{registry_version()}-runner.jar"
    if not registry_ready() or not jar.is_file():
        raise RegistryUnavailable(
            f"schema registry tier: no Apicurio Registry in {cache_dir()} "
            "(run tests/registry/install.sh)"
        )
    return jar


def serde_classpath() -> str:
    """Apicurio's Avro serde, Avro and the Kafka client: a JVM reader's class path."""
    return f"{cache_dir() / 'serde'}/*"


@dataclass
class Apicurio(StopsOnExit):
    """One Apicurio Registry process, in-memory: a restart forgets every schema."""

    log_path: Path
    host: str = "127.0.0.1"
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """The Confluent-compatible API: what wavematch and confluent-kafka are given."""
        return f"http://{self.host}:{self.port}/apis/ccompat/v7"

    @property
    def v2_url(self) -> str:
        """Apicurio's own v2 API: what Apicurio's 2.x serde is given."""
        return f"http://{self.host}:{self.port}/apis/registry/v2"

    def start(self, timeout_s: float = 90.0, wait: bool = True) -> Apicurio:
        """Launch the registry; unless ``wait`` is false (the caller starts something else
        meanwhile and calls :meth:`wait_ready`), wait until it answers."""
        jar = runner_jar()
        with self.log_path.open("ab") as out:
            self.process = subprocess.Popen(
                [
                    "java",
                    "-Xmx384m",
                    f"-Dquarkus.http.host={self.host}",
                    f"-Dquarkus.http.port={self.port}",
                    "-Dapicurio.rules.global.compatibility=BACKWARD",
                    # Vert.x's file cache beside the log, not /tmp/vertx-cache.
                    f"-Dvertx.cacheDirBase={self.log_path.parent / 'vertx-cache'}",
                    "-jar",
                    str(jar),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        return self.wait_ready(timeout_s) if wait else self

    def wait_ready(self, timeout_s: float = 90.0) -> Apicurio:
        """Until the Confluent-compatible API answers; stopped if it does not in time."""
        assert self.process is not None, "wait_ready before start"
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RegistryUnavailable(
                    f"Apicurio Registry exited with {self.process.returncode} ({self.log_path})"
                )
            try:
                with urllib.request.urlopen(f"{self.url}/subjects", timeout=2):
                    return self
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RegistryUnavailable(f"Apicurio Registry not ready in {timeout_s:.0f} s")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            stop_process(process, 20)

    def __enter__(self) -> Apicurio:
        return self.start() if self.process is None else self
