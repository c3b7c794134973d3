"""A broker outage in a few log lines and one gauge, instead of the Kafka clients' flood.

While the broker is unreachable, aiokafka logs every failed connect, metadata refresh,
fetch and heartbeat (over a hundred lines a second). :class:`BrokerWatch` owns what the
operator sees instead: one line when a probe first fails, a reminder every
``reminder_s``, one line when the broker answers again, and ``wavematch_broker_up``.
:class:`ClientNoise` is the logging filter that holds the clients' lines back (at most
one gets through per ``reminder_s`` while the probe still reaches the broker, so errors
of one node of a healthy cluster are not hidden entirely). The clients keep retrying on
their own; nothing here changes how they reconnect.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge

log = logging.getLogger(__name__)

#: What aiokafka says, in its own words, when it cannot reach a broker, and while a
#: restarted broker takes its partitions and groups back (leaders move, sessions expire).
CLIENT_NOISE = re.compile(
    r"NodeNotReadyError|KafkaConnectionError|Unable connect to node|Unable to update metadata"
    r"|Connect call failed|Marking the coordinator dead|Connection refused|Connection reset"
    r"|RequestTimedOutError|Unable to request metadata"
    r"|NotLeaderForPartitionError|LeaderNotAvailableError|NotCoordinatorForGroupError"
    r"|CoordinatorNotAvailableError|Heartbeat session expired|Heartbeat failed"
)
#: Long enough to keep a long outage to a few lines, short enough to show it goes on.
REMINDER_S = 60.0
#: How often the probe connects: how soon the outage and the recovery are reported.
PROBE_INTERVAL_S = 2.0


class BrokerWatch:
    """The broker's reachability as probes see it, and the lines it is worth."""

    def __init__(
        self,
        where: str,
        registry: CollectorRegistry | None = None,
        clock: Callable[[], float] = time.monotonic,
        reminder_s: float = REMINDER_S,
    ) -> None:
        kwargs: dict[str, Any] = {"registry": registry} if registry is not None else {}
        self.up_gauge = Gauge(
            "wavematch_broker_up", "1 while the last probe reached a broker, else 0", **kwargs
        )
        self.suppressed = Counter(
            "wavematch_broker_client_errors_suppressed",
            "Kafka client log lines held back as part of a broker outage",
            **kwargs,
        )
        self.up_gauge.set(1)
        self.where, self.clock, self.reminder_s = where, clock, reminder_s
        self.down_since: float | None = None
        self._reminded_at = 0.0
        self._held = 0
        self._passed_at: float | None = None

    @property
    def up(self) -> bool:
        return self.down_since is None

    def probed(self, reached: bool, why: str = "") -> None:
        """Record one probe's result; log the change, or a reminder when one is due."""
        now = self.clock()
        if reached and self.down_since is not None:
            took = now - self.down_since
            log.warning(
                "broker %s reachable again after %.0f s (%d Kafka client errors held back); "
                "the worker resumes",
                self.where,
                took,
                self._held,
            )
            self.down_since, self._held = None, 0
            self.up_gauge.set(1)
        elif not reached and self.down_since is None:
            self.down_since = self._reminded_at = now
            self.up_gauge.set(0)
            log.warning(
                "broker %s unreachable (%s); retrying, Kafka client errors held back, "
                "a reminder every %.0f s",
                self.where,
                why or "no answer",
                self.reminder_s,
            )
        elif not reached and now - self._reminded_at >= self.reminder_s:
            self._reminded_at = now
            log.warning(
                "broker %s still unreachable after %.0f s (%d Kafka client errors held back)",
                self.where,
                now - (self.down_since or now),
                self._held,
            )

    def lets_through(self) -> bool:
        """Whether one more client error line may be logged (counted as held if not)."""
        now = self.clock()
        if self.up and (self._passed_at is None or now - self._passed_at >= self.reminder_s):
            self._passed_at = now
            return True
        self._held += 1
        self.suppressed.inc()
        return False


class ClientNoise(logging.Filter):
    """Holds back the Kafka clients' connection errors; every other record passes."""

    def __init__(self, watch: BrokerWatch) -> None:
        super().__init__()
        self.watch = watch

    def filter(self, record: logging.LogRecord) -> bool:
        # asyncio's "Future exception was never retrieved" carries the clients' failed
        # requests of the outage, logged when the futures are collected.
        if record.levelno < logging.WARNING or not record.name.startswith(("aiokafka", "asyncio")):
            return True
        if not CLIENT_NOISE.search(record.getMessage()):
            return True
        return self.watch.lets_through()


def hold_back_client_noise(watch: BrokerWatch, logger: logging.Logger | None = None) -> None:
    """Filter every handler of ``logger`` (the root's: where Faust's worker writes)."""
    for handler in (logger or logging.getLogger()).handlers:
        if not any(isinstance(f, ClientNoise) for f in handler.filters):
            handler.addFilter(ClientNoise(watch))


async def reachable(servers: Sequence[tuple[str, int]], timeout_s: float) -> tuple[bool, str]:
    """Whether a TCP connection to any of ``servers`` opens; else why the last one failed."""
    why = "no bootstrap server"
    for host, port in servers:
        try:
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for returns a connection
            # that opens as its caller is cancelled and drops the cancellation
            # (python/cpython#86296), and this probe's loop would outlive the worker's stop.
            async with asyncio.timeout(timeout_s):
                _, writer = await asyncio.open_connection(host, port)
        except (OSError, TimeoutError) as error:
            why = f"{host}:{port}: {getattr(error, 'strerror', None) or error or 'timed out'}"
            continue
        writer.close()
        return True, ""
    return False, why


def bootstrap_servers(bootstrap: str) -> list[tuple[str, int]]:
    """``"a:9092,b:9092"`` -> ``[("a", 9092), ("b", 9092)]``."""
    servers = []
    for part in bootstrap.replace(";", ",").split(","):
        host, _, port = part.strip().rpartition(":")
        if host and port.isdigit():
            servers.append((host.strip("[]"), int(port)))
    return servers


async def watch_broker(watch: BrokerWatch, bootstrap: str) -> None:
    """Probe the bootstrap servers every PROBE_INTERVAL_S, for the life of the worker."""
    servers = bootstrap_servers(bootstrap)
    while True:
        reached, why = await reachable(servers, PROBE_INTERVAL_S)
        watch.probed(reached, why)
        await asyncio.sleep(PROBE_INTERVAL_S)
