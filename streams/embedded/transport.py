"""The ``tansu://`` scheme for Faust: the embedded broker, reached like Apache Kafka.

Faust picks its transport by the broker URL's scheme (entry point ``faust.transports``),
and wavematch names the embedded broker ``tansu://`` so that its own clients know its
limits (docs/adr/0004). Faust consumes nothing of ours (docs/adr/0120): it has no table
to recover and no agent to feed, so its own aiokafka transport serves unchanged.
"""

from __future__ import annotations

from faust.transport.drivers import aiokafka as faust_aiokafka


class Transport(faust_aiokafka.Transport):
    """Registered as the ``tansu`` scheme."""

    driver_version = f"tansu+{faust_aiokafka.Transport.driver_version}"
