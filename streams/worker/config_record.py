"""The configuration behind a config fingerprint, as a record of the log (docs/adr/0075).

Every worker publishes a ConfigPublished for its fingerprint when it starts; replay reads
them back, so an auditor needs the log and a release that decides alike, not the file.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from aiokafka import AIOKafkaProducer
from pydantic import ValidationError

from schemas.codec import decode, encode
from schemas.errors import InvalidEvent
from schemas.models import ConfigPublished
from schemas.topics import CONFIG
from streams import release
from streams.connection import client_kwargs, connection_of, start_client, stop_client
from streams.settings import Settings, settings_problem, unset_lifecycle

log = logging.getLogger(__name__)

#: The settings that decide waves (and the routing check): what a replay must rebuild.
DECISIVE_FIELDS = (
    "partitions",
    "queues",
    "routes",
    "fallback_servers",
    "ticket_ttl_ms",
    "finished_retention_ms",
    "max_clock_skew_ms",
    "verify_waves",
    "publish_status",
    "one_ticket_per_player",
)


def config_published(settings: Settings, now_ms: int) -> ConfigPublished:
    """The record of ``settings``' fingerprint."""
    decisive = settings.model_dump(mode="json", include=set(DECISIVE_FIELDS))
    # Unset lifecycle settings stay unset when a replay rebuilds the settings from the
    # record, or they would enter its fingerprint (streams.settings.decisive_queue).
    for dumped, queue in zip(decisive["queues"], settings.queues, strict=True):
        for name in unset_lifecycle(queue):
            del dumped[name]
        if queue.ticket_ttl_ms is None:  # the global one; a release before it reads the rest
            del dumped["ticket_ttl_ms"]
        for name in ("team_steps", "team_sizes", "team_roles", "auto_backfill"):
            if not getattr(queue, name):  # as above: a release before them reads the rest
                del dumped[name]
        if not queue.partial_backfill:  # as above
            del dumped["partial_backfill"]
        for name in ("size_trigger_tickets", "size_floor_ms"):
            if getattr(queue, name) == type(queue).model_fields[name].default:  # as above
                del dumped[name]
    if not settings.one_ticket_per_player:  # as in the fingerprint: only when it is on
        del decisive["one_ticket_per_player"]
    return ConfigPublished(
        config_fingerprint=settings.config_fingerprint(),
        settings_json=json.dumps(decisive, sort_keys=True, separators=(",", ":")),
        release=release(),
        published_at_ms=now_ms,
    )


def settings_of(record: ConfigPublished, base: Settings) -> Settings | None:
    """``base`` with ``record``'s decisive settings, if this release reproduces its
    fingerprint (same settings, same decision revisions); else None."""
    rebuilt = settings_in(record, base)
    if rebuilt is None:
        return None
    return rebuilt if rebuilt.config_fingerprint() == record.config_fingerprint else None


def settings_in(record: ConfigPublished, base: Settings) -> Settings | None:
    """``base`` with ``record``'s decisive settings, whichever release published them
    (a what-if runs them under this one); None if they are not valid settings here."""
    try:
        decisive: dict[str, Any] = json.loads(record.settings_json)
        # Written only when on (config_published): absent is off, whatever ``base`` says,
        # or a check against the running configuration would read the new file's value.
        decisive.setdefault("one_ticket_per_player", False)
        # A secret read from its file is in ``base`` already: the file's path again, as
        # given or read anew from the environment, would be refused as the secret set
        # twice (a keyword beats the environment).
        exclude = set(decisive) | _SECRET_FILES
        files: dict[str, Any] = dict.fromkeys(_SECRET_FILES)
        return Settings(**base.model_dump(exclude=exclude), **decisive, **files)
    except (ValueError, TypeError) as error:
        log.warning("config record %s unreadable: %s", record.config_fingerprint, _line(error))
        return None


def _line(error: ValueError | TypeError) -> str:
    """A validation error in one line: its first problem, where pydantic gives one."""
    if isinstance(error, ValidationError):
        return settings_problem(error)
    return str(error).splitlines()[0]


#: Settings read into another field at validation (``sasl_password_file`` into
#: ``sasl_password``).
_SECRET_FILES = frozenset({"sasl_password_file", "web_token_file"})


def configs_in(values: list[bytes | None]) -> dict[str, ConfigPublished]:
    """The ConfigPublished records among ``values`` (a config topic's), by fingerprint."""
    found: dict[str, ConfigPublished] = {}
    for value in values:
        try:
            record = decode(value or b"")
        except InvalidEvent:
            continue
        if isinstance(record, ConfigPublished):
            found.setdefault(record.config_fingerprint, record)
    return found


async def publish_config(settings: Settings) -> None:
    """Publish this worker's ConfigPublished (a failure is logged: waves do not need it)."""
    record = config_published(settings, int(time.time() * 1000))
    producer = AIOKafkaProducer(**client_kwargs(connection_of(settings)), acks="all")
    try:
        await start_client(producer)
        await producer.send_and_wait(
            CONFIG.name, encode(record), key=record.config_fingerprint.encode()
        )
    except Exception as error:
        log.warning("configuration record not published: %s", error)
    finally:
        await stop_client(producer)
