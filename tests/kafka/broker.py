"""Start and stop a single-node Apache Kafka broker (KRaft) from the jars tests/kafka/install.sh
resolves: on free loopback ports, its data and log in a directory the caller keeps.

``KafkaBroker(data_dir).start()`` formats the directory once (``kafka.tools.StorageTool
format --standalone``) and runs ``kafka.Kafka``; ``stop(signal.SIGKILL)`` then ``start()``
restarts it on the same directory and the same ports. Stopped by its PID, never by name.
"""

from __future__ import annotations

import base64
import contextlib
import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from streams.embedded.broker import EmbeddedBroker, free_port, wait_for_port
from streams.processes import stop_process

HERE = Path(__file__).resolve().parent


class KafkaUnavailable(RuntimeError):
    """Java or the Kafka jars are missing: the message says which and how to install them."""


class KafkaBrokerError(RuntimeError):
    pass


def kafka_version() -> str:
    pom = (HERE / "pom.xml").read_text()
    return pom.split("<kafka.version>", 1)[1].split("</kafka.version>", 1)[0]


def jars_dir() -> Path:
    """Where install.sh puts the jars (WAVEMATCH_KAFKA_JARS overrides, as there)."""
    if os.environ.get("WAVEMATCH_KAFKA_JARS"):
        return Path(os.environ["WAVEMATCH_KAFKA_JARS"])
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "wavematch" / f"kafka-{kafka_version()}" / "jars"


def java_and_jars() -> tuple[str, Path]:
    """The java binary and the jars directory, or KafkaUnavailable saying what is missing."""
    java = shutil.which("java")
    if java is None:
        raise KafkaUnavailable("Apache Kafka tier: java is not installed (Java 17+ is needed)")
    jars = jars_dir()
    if not (jars / ".complete").is_file():
        raise KafkaUnavailable(
            f"Apache Kafka tier: no Kafka jars in {jars} (run tests/kafka/install.sh)"
        )
    return java, jars


def cluster_id() -> str:
    """A KRaft cluster id: 16 random bytes in URL-safe base64, as ``kafka-storage random-uuid``."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()


#: Single-node defaults: internal topics with one replica, no rebalance delay, and a log
#: cleaner that looks for dirty logs every second so compaction tests need not wait 15 s.
BASE_PROPERTIES: Mapping[str, str] = {
    "process.roles": "broker,controller",
    "node.id": "1",
    "controller.listener.names": "CONTROLLER",
    "offsets.topic.replication.factor": "1",
    "offsets.topic.num.partitions": "4",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "transaction.state.log.num.partitions": "4",
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
    "group.initial.rebalance.delay.ms": "0",
    # wavematch creates every topic itself (streams/topics.py); many clusters forbid this.
    "auto.create.topics.enable": "false",
    "log.cleaner.backoff.ms": "1000",
    "num.partitions": "1",
}


@dataclass
class KafkaBroker:
    """One KRaft broker+controller process.

    ``listeners`` maps a listener name to its security protocol; the first one is the
    inter-broker listener and ``bootstrap``/``url`` name it. Each gets a free port, kept
    across restarts (``ports[name]``). ``extra_properties`` are written last, so they
    override the defaults (e.g. SSL keystores or ``listener.name.x.sasl.enabled.mechanisms``).
    ``scram_users`` are ``(mechanism, name, password)`` added when the directory is formatted.
    """

    data_dir: Path
    extra_properties: Mapping[str, str] = field(default_factory=dict)
    listeners: Mapping[str, str] = field(default_factory=lambda: {"PLAINTEXT": "PLAINTEXT"})
    scram_users: Sequence[tuple[str, str, str]] = ()
    host: str = "127.0.0.1"
    heap: str = "512m"
    ports: dict[str, int] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def listener(self) -> str:
        return next(iter(self.listeners))

    @property
    def port(self) -> int:
        return self.ports[self.listener]

    @property
    def bootstrap(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def url(self) -> str:
        """The broker URL for wavematch: ``kafka://`` runs none of the embedded workarounds."""
        return f"kafka://{self.bootstrap}"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def log_dir(self) -> Path:
        return self.data_dir / "logs"

    @property
    def log_path(self) -> Path:
        return self.log_dir / "server.log"

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def properties(self) -> dict[str, str]:
        if not self.ports:
            for name in (*self.listeners, "CONTROLLER"):
                self.ports[name] = free_port(self.host)
        names = (*self.listeners, "CONTROLLER")
        protocols = {**self.listeners, "CONTROLLER": "PLAINTEXT"}
        return {
            **BASE_PROPERTIES,
            "listeners": ",".join(f"{n}://{self.host}:{self.ports[n]}" for n in names),
            "advertised.listeners": ",".join(
                f"{n}://{self.host}:{self.ports[n]}" for n in self.listeners
            ),
            "listener.security.protocol.map": ",".join(f"{n}:{p}" for n, p in protocols.items()),
            "inter.broker.listener.name": self.listener,
            "controller.quorum.bootstrap.servers": f"{self.host}:{self.ports['CONTROLLER']}",
            "log.dirs": str(self.data_dir / "kraft"),
            **self.extra_properties,
        }

    def start(self, timeout_s: float = 60.0) -> KafkaBroker:
        java, jars = java_and_jars()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir.mkdir(exist_ok=True)
        config = self.data_dir / "server.properties"
        config.write_text("".join(f"{k}={v}\n" for k, v in self.properties().items()))
        if not (self.data_dir / "kraft" / "meta.properties").is_file():
            self._format(java, jars, config)
        out = (self.log_dir / "stdout.log").open("ab")
        try:
            self.process = subprocess.Popen(
                [*self._jvm(java, jars), "kafka.Kafka", str(config)],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        finally:
            out.close()
        try:
            wait_for_port(self.host, self.port, timeout_s, self.process)
            self._wait_ready(timeout_s)
        except KafkaBrokerError:
            self.stop(signal.SIGKILL)
            raise
        except Exception as error:
            self.stop(signal.SIGKILL)
            raise KafkaBrokerError(f"{error} (log: {self.log_path})") from None
        return self

    def stop(self, sig: int = signal.SIGTERM, timeout_s: float = 30.0) -> None:
        """Stop the broker (SIGTERM shuts down cleanly, SIGKILL as a crash); ports are kept."""
        process, self.process = self.process, None
        if process is not None:
            stop_process(process, timeout_s, sig)

    def _jvm(self, java: str, jars: Path) -> list[str]:
        return [
            java,
            f"-Xmx{self.heap}",
            "-Xms64m",
            "-XX:+UseG1GC",
            "-Djava.awt.headless=true",
            f"-Dkafka.logs.dir={self.log_dir}",
            f"-Dlog4j2.configurationFile={HERE / 'log4j2.properties'}",
            "-cp",
            f"{jars}/*",
        ]

    def _format(self, java: str, jars: Path, config: Path) -> None:
        scram = [
            arg
            for mechanism, name, password in self.scram_users
            for arg in ("--add-scram", f"{mechanism}=[name={name},password={password}]")
        ]
        command = [
            *self._jvm(java, jars),
            "kafka.tools.StorageTool",
            "format",
            # One argument: an id may start with "-", which argparse would take for an option.
            f"--cluster-id={cluster_id()}",
            "--config",
            str(config),
            "--standalone",
            *scram,
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        (self.log_dir / "format.log").write_text(done.stdout + done.stderr)
        if done.returncode != 0:
            last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise KafkaBrokerError(f"kafka-storage format failed: {last[0]}")

    def _wait_ready(self, timeout_s: float) -> None:
        """Until the broker answers metadata with itself as a live broker."""
        from confluent_kafka.admin import AdminClient

        assert self.process is not None
        admin = AdminClient({"bootstrap.servers": self.bootstrap, "log_level": 0})
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise KafkaBrokerError(
                    f"broker exited with code {self.process.returncode} while starting "
                    f"(log: {self.log_path})"
                )
            try:
                if admin.list_topics(timeout=2).brokers:
                    return
            except Exception:  # not up yet: retried until the deadline
                time.sleep(0.2)
        raise KafkaBrokerError(f"broker not ready within {timeout_s:.0f} s (log: {self.log_path})")

    def __enter__(self) -> KafkaBroker:
        return self.start() if self.process is None else self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def empty_broker(bootstrap: str, timeout_s: float = 30.0) -> None:
    """Delete every topic but Kafka's own and every consumer group, and wait until they are
    gone: the next test on a shared broker starts from an empty cluster."""
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": bootstrap})
    groups = [g.group_id for g in admin.list_consumer_groups().result(timeout_s).valid]
    for future in (admin.delete_consumer_groups(groups) if groups else {}).values():
        future.result(timeout_s)
    deadline = time.monotonic() + timeout_s
    while topics := [
        t for t in admin.list_topics(timeout=timeout_s).topics if not t.startswith("__")
    ]:
        if time.monotonic() > deadline:
            raise KafkaBrokerError(f"topics still there after {timeout_s:.0f} s: {topics}")
        for future in admin.delete_topics(topics).values():
            # One already being deleted fails here; the next listing tells.
            with contextlib.suppress(Exception):
                future.result(timeout_s)
        time.sleep(0.2)


@contextlib.contextmanager
def running_broker(kind: str, work: Path) -> Iterator[EmbeddedBroker | KafkaBroker]:
    """``kind`` "tansu" (the embedded broker) or "kafka" (Apache Kafka in ``work``/kafka),
    for scripts that compare the two; stopped on exit."""
    if kind == "tansu":
        with EmbeddedBroker(log_path=work / "broker.log") as embedded:
            yield embedded
    elif kind == "kafka":
        with KafkaBroker(work / "kafka") as kafka:
            yield kafka
    else:
        raise ValueError(f"broker kind {kind!r}: expected 'tansu' or 'kafka'")
