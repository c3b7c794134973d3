"""Start and stop Apache Kafka (KRaft) from the jars tests/kafka/install.sh resolves: a
single node, or a replicated cluster of nodes, on free loopback ports, data and logs in a
directory the caller keeps.

``KafkaBroker(data_dir).start()`` formats the directory once (``kafka.tools.StorageTool
format --standalone``) and runs ``kafka.Kafka``; ``stop(signal.SIGKILL)`` then ``start()``
restarts it on the same directory and the same ports. ``KafkaCluster`` runs three such
nodes, each broker and controller, over a static quorum. Stopped by PID, never by name.
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
from typing import Any

from streams.embedded.broker import EmbeddedBroker, free_port, wait_for_port
from streams.processes import StopsOnExit, stop_process

HERE = Path(__file__).resolve().parent

#: How long a test waits for a broker restarted after SIGKILL: it recovers every log
#: before it listens, which takes over a minute on a 2-core machine busy with other tests.
RESTART_TIMEOUT_S = 180.0


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


def jars_ready() -> bool:
    """Whether install.sh completed its cache of the jars."""
    return (jars_dir() / ".complete").is_file()


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


def new_cluster_id() -> str:
    """A KRaft cluster id: 16 random bytes in URL-safe base64, as ``kafka-storage random-uuid``."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()


#: Single-node defaults: internal topics with one replica, no rebalance delay, and a log
#: cleaner that looks for dirty logs every second so compaction tests need not wait 15 s.
BASE_PROPERTIES: Mapping[str, str] = {
    "process.roles": "broker,controller",
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
class KafkaBroker(StopsOnExit):
    """One KRaft broker+controller process.

    ``listeners`` maps a listener name to its security protocol; the first one is the
    inter-broker listener and ``bootstrap``/``url`` name it. Each gets a free port, kept
    across restarts (``ports[name]``). ``extra_properties`` are written last, so they
    override the defaults (e.g. SSL keystores or ``listener.name.x.sasl.enabled.mechanisms``).
    ``scram_users`` are ``(mechanism, name, password)`` added when the directory is formatted.
    A node of a cluster has its ``node_id``, the cluster's ``cluster_id`` and the static
    ``quorum_voters`` (``id@host:port,...``); a lone node is its own quorum (``--standalone``).
    """

    data_dir: Path
    extra_properties: Mapping[str, str] = field(default_factory=dict)
    listeners: Mapping[str, str] = field(default_factory=lambda: {"PLAINTEXT": "PLAINTEXT"})
    scram_users: Sequence[tuple[str, str, str]] = ()
    host: str = "127.0.0.1"
    heap: str = "512m"
    node_id: int = 1
    cluster_id: str = field(default_factory=new_cluster_id)
    quorum_voters: str | None = None
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

    def reserve_ports(self) -> dict[str, int]:
        """The listeners' ports, picked once (a cluster needs its quorum's before it starts)."""
        if not self.ports:
            for name in (*self.listeners, "CONTROLLER"):
                self.ports[name] = free_port(self.host)
        return self.ports

    def properties(self) -> dict[str, str]:
        self.reserve_ports()
        quorum = (
            {"controller.quorum.voters": self.quorum_voters}
            if self.quorum_voters
            else {"controller.quorum.bootstrap.servers": f"{self.host}:{self.ports['CONTROLLER']}"}
        )
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
            **quorum,
            "node.id": str(self.node_id),
            "log.dirs": str(self.data_dir / "kraft"),
            **self.extra_properties,
        }

    def start(self, timeout_s: float = 60.0, wait: bool = True) -> KafkaBroker:
        """Format (once) and launch; unless ``wait`` is false (a cluster node, whose quorum
        needs the others), wait until it serves metadata.

        A lone node's first start that loses one of its free ports to another process (the
        port was free when picked) starts again on new ports, up to three times; a restart
        keeps its ports, and a cluster node's are in its peers' quorum, so neither retries.
        """
        fresh = not (self.data_dir / "kraft" / "meta.properties").is_file()
        for attempt in range(3):
            try:
                return self._start(timeout_s, wait)
            except KafkaBrokerError:
                if not (fresh and self.quorum_voters is None and attempt < 2 and self._lost_port()):
                    raise
                shutil.rmtree(self.data_dir / "kraft", ignore_errors=True)
                self.ports.clear()
        raise AssertionError("unreachable")

    def _lost_port(self) -> bool:
        logs = (self.log_path, self.log_dir / "stdout.log")
        return any(
            "Address already in use" in path.read_text(errors="replace")
            for path in logs
            if path.is_file()
        )

    def _start(self, timeout_s: float, wait: bool) -> KafkaBroker:
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
        return self.wait_ready(timeout_s) if wait else self

    def wait_ready(self, timeout_s: float = 60.0, brokers: int = 1) -> KafkaBroker:
        """Until it answers metadata listing ``brokers`` live brokers; SIGKILLed if not."""
        assert self.process is not None
        try:
            wait_for_port(self.host, self.port, timeout_s, self.process)
            self._wait_ready(timeout_s, brokers)
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
            f"--cluster-id={self.cluster_id}",
            "--config",
            str(config),
            *(() if self.quorum_voters else ("--standalone",)),
            *scram,
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        (self.log_dir / "format.log").write_text(done.stdout + done.stderr)
        if done.returncode != 0:
            last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise KafkaBrokerError(f"kafka-storage format failed: {last[0]}")

    def _wait_ready(self, timeout_s: float, brokers: int) -> None:
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
                if len(admin.list_topics(timeout=2).brokers) >= brokers:
                    return
                time.sleep(0.2)
            except Exception:  # not up yet: retried until the deadline
                time.sleep(0.2)
        raise KafkaBrokerError(f"broker not ready within {timeout_s:.0f} s (log: {self.log_path})")

    def __enter__(self) -> KafkaBroker:
        return self.start() if self.process is None else self


#: A replicated cluster as production runs one: every topic (Kafka's own and wavematch's)
#: on three replicas, and a write acknowledged once two of them have it, so one node can
#: die without losing an acknowledged record or refusing writes.
REPLICATED_PROPERTIES: Mapping[str, str] = {
    "default.replication.factor": "3",
    "min.insync.replicas": "2",
    "offsets.topic.replication.factor": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
    "share.coordinator.state.topic.replication.factor": "3",
    "share.coordinator.state.topic.min.isr": "2",
}


@dataclass
class KafkaCluster(StopsOnExit):
    """Three KafkaBroker nodes (``node-1``... under ``data_dir``), each broker and controller,
    with ids 1-3, one cluster id and a static quorum of the three controllers.

    ``bootstrap`` lists every node, so clients find the cluster while any node is alive;
    ``nodes[i].stop(signal.SIGKILL)`` then ``nodes[i].start()`` kills and restarts one node.
    """

    data_dir: Path
    heap: str = "384m"
    nodes: list[KafkaBroker] = field(default_factory=list)

    def __post_init__(self) -> None:
        cluster_id = new_cluster_id()
        self.nodes = [
            KafkaBroker(
                self.data_dir / f"node-{node_id}",
                REPLICATED_PROPERTIES,
                heap=self.heap,
                node_id=node_id,
                cluster_id=cluster_id,
            )
            for node_id in (1, 2, 3)
        ]
        voters = ",".join(
            f"{node.node_id}@{node.host}:{node.reserve_ports()['CONTROLLER']}"
            for node in self.nodes
        )
        for node in self.nodes:
            node.quorum_voters = voters

    @property
    def bootstrap(self) -> str:
        return ",".join(node.bootstrap for node in self.nodes)

    @property
    def url(self) -> str:
        return f"kafka://{self.bootstrap}"

    def node(self, node_id: int) -> KafkaBroker:
        return next(node for node in self.nodes if node.node_id == node_id)

    def start(self, timeout_s: float = 90.0) -> KafkaCluster:
        """Launch all three, then wait until each sees the three brokers."""
        try:
            for node in self.nodes:
                node.start(timeout_s, wait=False)
            for node in self.nodes:
                node.wait_ready(timeout_s, brokers=len(self.nodes))
        except BaseException:
            self.stop(signal.SIGKILL)
            raise
        return self

    def stop(self, sig: int = signal.SIGTERM, timeout_s: float = 15.0) -> None:
        """The last node cannot shut down cleanly without a quorum: killed after ``timeout_s``."""
        for node in self.nodes:
            node.stop(sig, timeout_s)

    def __enter__(self) -> KafkaCluster:
        return self.start() if all(node.process is None for node in self.nodes) else self


def empty_broker(bootstrap: str, timeout_s: float = 30.0) -> None:
    """Delete every topic but Kafka's own and every consumer group, and wait until they are
    gone: the next test on a shared broker starts from an empty cluster."""
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": bootstrap})
    _delete_groups(admin, timeout_s)
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


#: A member of a stopped test's group lingers until its session times out (the
#: consumers' default is 45 s): deleting such a group is retried this long.
GROUP_SESSION_S = 60.0


def _delete_groups(admin: Any, timeout_s: float) -> None:
    """Delete every consumer group, waiting out members whose process has just stopped."""
    from confluent_kafka import KafkaError, KafkaException

    deadline = time.monotonic() + GROUP_SESSION_S
    while groups := [g.group_id for g in admin.list_consumer_groups().result(timeout_s).valid]:
        busy = []
        for group, future in admin.delete_consumer_groups(groups).items():
            try:
                future.result(timeout_s)
            except KafkaException as error:
                code = error.args[0].code()
                if code == KafkaError.NON_EMPTY_GROUP:
                    busy.append(group)
                elif code != KafkaError.GROUP_ID_NOT_FOUND:  # gone meanwhile: as wanted
                    raise
        if busy and time.monotonic() > deadline:
            raise KafkaBrokerError(f"consumer groups still have members: {busy}")
        if not busy:
            return
        time.sleep(0.5)


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
