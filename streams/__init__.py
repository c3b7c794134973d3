"""wavematch's streaming edge: thin wiring between Kafka and the pure core.

Topology (see docs/architecture.md)::

    platforms ──TicketJoined/TicketLeft──▶ wavematch.queue.v1 ◀──WaveTick── timer
                                               │   (key = "queue/region", murmur2)
                                               ▼
                           queue consumer: decode → fold (matcher.queue) ──▶ snapshot topic
                                               │   on WaveTick: run_wave(snapshot)
                       ┌───────────────┬───────┴──────────┬──────────────────┐
                       ▼               ▼                  ▼                  ▼
          wavematch.matches.v1  wavematch.cleanup.v1  wavematch.status.v1  wavematch.deadletter.v1

Each worker also publishes, as it starts, the configuration its fingerprint stands for
(ConfigPublished) to wavematch.config.v1 (docs/adr/0075).
"""

from importlib.metadata import PackageNotFoundError, version


def release() -> str:
    """The installed release of wavematch ("unknown" from a checkout never installed):
    what `wavematch --version` says and every configuration record names."""
    try:
        return version("wavematch")
    except PackageNotFoundError:
        return "unknown"
