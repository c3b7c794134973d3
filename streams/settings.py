"""The worker's settings: one frozen model, from ``WAVEMATCH_*`` variables and/or a TOML file.

Precedence: explicit arguments > environment variables > the TOML file named by
``WAVEMATCH_CONFIG_FILE`` (or ``--config``) > defaults. Durations carry their unit in
the name. The matcher never sees this model, only the :class:`QueueProfile` built from it.
"""

from __future__ import annotations

import difflib
import hashlib
import ipaddress
import json
import os
import re
import tomllib
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict, TomlConfigSettingsSource
from pydantic_settings import SettingsError as SourceError

from matcher.core import QueueProfile, ServerRoute
from matcher.strategies import (
    UnknownStrategy,
    check_profile,
    check_rules,
    check_team_steps_honoured,
    decision_revision,
    strategy_entry,
)
from matcher.teams.step_config import parse_team_steps
from schemas.models import KeyPart
from streams.web_access import MIN_WEB_TOKEN_CHARS, is_loopback

if TYPE_CHECKING:
    # Imported where used: the queue fold would import numpy into every command that only
    # reads the settings (join, leave, tail...).
    from matcher.queue import QueueRules
    from matcher.queue.cadence import CadencePolicy
    from matcher.queue.lifecycle import LifecyclePolicy

_config_file: ContextVar[Path | None] = ContextVar("wavematch_config_file", default=None)

DEFAULT_MAPS = (
    "Fighting Spirit",
    "Circuit Breaker",
    "Polypoid",
    "Eclipse",
    "Vermeer",
    "Heartbreak Ridge",
)


#: The default of ``Settings.max_clock_skew_ms`` (docs/adr/0074).
DEFAULT_MAX_CLOCK_SKEW_MS = 60_000


class SettingsError(ValueError):
    """Invalid settings; the message is one line naming the field."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _numbers_are_not_strings(cls, value: Any, info: ValidationInfo) -> Any:
        """A number written as a string (``team_size = "2"``) is refused, as the wire and
        the wave files refuse one: in a TOML file it is a mistake, not a number."""
        name = info.field_name
        if isinstance(value, str) and name and cls.model_fields[name].annotation in _NUMBERS:
            raise ValueError(f"must be a number, not the string {value!r}")
        return value


_NUMBERS = (int, float, int | None, float | None)


class QueueSettings(_Frozen):
    """One game mode: its strategy, regions, maps and wave timing."""

    # As the wire spells them (the partition key "<queue>/<region>"): a name no event can
    # carry would be a queue or region nobody can join.
    name: KeyPart
    strategy: str = "optimal"
    regions: tuple[KeyPart, ...] = Field(default=("eu", "na", "asia"), min_length=1)
    maps: tuple[str, ...] = Field(default=DEFAULT_MAPS, min_length=1)
    # Shorter waves cut waits but give the strategy fewer players to choose from.
    wave_interval_ms: int = Field(default=10_000, ge=100, le=3_600_000)
    # At most the teams a MatchCreated carries (schemas/avro/v1/MatchCreated.avsc).
    team_count: int = Field(default=2, ge=2, le=64)
    team_size: int = Field(default=1, ge=1, le=64)
    team_size_min: int | None = Field(default=None, ge=1)
    roles: tuple[str, ...] = ()
    options: dict[str, Any] = Field(default_factory=dict)
    # Declarative limits every match must respect (docs/rules.md); parsed and checked
    # once, when the settings load.
    rules: dict[str, Any] = Field(default_factory=dict)
    # "pop": the next wave is due when about pop_target_matches matches' worth of players
    # have arrived (moving average), within [pop_floor_ms, pop_cap_ms] (docs/adr/0050).
    cadence: Literal["fixed", "pop", "size"] = "fixed"
    pop_target_matches: float = Field(default=2.5, gt=0)
    pop_floor_ms: int = Field(default=5_000, ge=100)
    pop_cap_ms: int = Field(default=90_000, ge=100, le=3_600_000)
    pop_smoothing: float = Field(default=0.3, gt=0, le=1)
    # "size": a wave as soon as size_trigger_tickets tickets wait (2: re-check on every
    # join), at least size_floor_ms after the last one (a burst closes one wave, not one
    # per join), and wave_interval_ms after it at the latest (docs/adr/0183). A lower
    # trigger or floor: shorter waits, fewer players for the strategy to choose from.
    size_trigger_tickets: int = Field(default=2, ge=2, le=100_000)
    size_floor_ms: int = Field(default=250, ge=20, le=3_600_000)
    # A match's life after the wave (docs/adr/0111). 0: a wave creates its matches at
    # once; else it proposes them and every player must accept within this long (a
    # ready check costs its players this much more waiting when one declines).
    ready_check_ms: int = Field(default=0, ge=0, le=600_000)
    # 0: a created match is final; else its tickets wait (PLACING) this long for the
    # platform's PlacementReported, silence counting as started.
    placement_timeout_ms: int = Field(default=0, ge=0, le=3_600_000)
    # After a FAILED placement a ticket is requeued with its wait at most this often,
    # then dequeued (PLACEMENT_FAILED): more retries, fewer players lost to bad servers.
    placement_requeues: int = Field(default=2, ge=0, le=100)
    # This queue's ticket timeout; None: the global ticket_ttl_ms. A quick 1v1 ladder
    # gives up sooner than a 40-player mode that needs time to fill.
    ticket_ttl_ms: int | None = Field(default=None, ge=1_000)
    # Smaller shapes a ticket accepts after a wait (docs/rules.md, "Team steps"); parsed
    # and checked against the strategy when the settings load.
    team_steps: tuple[dict[str, Any], ...] = ()
    # Asymmetric teams (docs/rules.md, "Asymmetric teams"): each team's exact size, and
    # each team's role slots; checked against team_count and team_size when loaded.
    team_sizes: tuple[int, ...] = ()
    team_roles: tuple[tuple[str, ...], ...] = ()
    # A match created below the full shape (team steps, team_size_min) opens a backfill
    # of its empty seats itself; only for matches created at once (no ready check, no
    # placement wait: a held match is not yet a session).
    auto_backfill: bool = False
    # A backfill request no whole fill meets takes the legal fill of the most open slots
    # at a tick and stays open for the rest (docs/rules.md, "Partial fills").
    partial_backfill: bool = False

    @model_validator(mode="after")
    def _known_strategy(self) -> QueueSettings:
        if self.pop_cap_ms < self.pop_floor_ms:
            raise ValueError("pop_cap_ms must be >= pop_floor_ms")
        if self.cadence == "size" and self.size_floor_ms > self.wave_interval_ms:
            raise ValueError("size_floor_ms must be <= wave_interval_ms (the fallback)")
        try:
            strategy_entry(self.strategy)
        except UnknownStrategy as error:
            raise ValueError(error.args[0]) from None
        if len(set(self.regions)) != len(self.regions):
            raise ValueError("regions must be distinct")
        if self.auto_backfill and (self.ready_check_ms or self.placement_timeout_ms):
            raise ValueError(
                "auto_backfill: not with ready_check_ms or placement_timeout_ms"
                " (a held match is not yet a session)"
            )
        return self


# --- Queue options and rules, checked at load (issue 26) ------------------------------
# Kept in one block: a queue whose strategy options are wrong must stop the start with
# one line, never load and then dead-letter every wave of that queue.


def _checked_profile(
    index: int, queue: QueueSettings, routes: tuple[ServerRoute, ...], fallback: tuple[str, ...]
) -> QueueProfile:
    """``queue``'s profile, its rules parsed and its options checked; ValueError
    ``queues.<index>: queue '<name>': <field>: <reason>``."""
    try:
        if queue.team_steps:  # before the steps are read against the queue's shape
            check_team_steps_honoured(queue.strategy)
        profile = QueueProfile(
            queue=queue.name,
            strategy=queue.strategy,
            maps=queue.maps,
            routes=routes,
            fallback_servers=fallback,
            team_count=queue.team_count,
            team_size=queue.team_size,
            team_size_min=queue.team_size_min,
            roles=queue.roles,
            options=dict(queue.options),
            rules=dict(queue.rules),
            team_steps=parse_team_steps(queue.team_steps, queue.team_count, queue.team_size),
            team_sizes=queue.team_sizes,
            team_roles=queue.team_roles,
            auto_backfill=queue.auto_backfill,
            partial_backfill=queue.partial_backfill,
        )
        check_profile(profile)
        check_rules(profile)
    except ValueError as error:
        raise ValueError(f"queues.{index}: queue {queue.name!r}: {error}") from None
    return profile


#: The least time a dequeued ticket id is remembered unless ``finished_retention_ms`` is set.
DEFAULT_FINISHED_RETENTION_MS = 600_000

# --- The config fingerprint (docs/adr/0141) ----------------------------------------
#: Decisive settings added after the first fingerprint, and the version that added each:
#: one enters the fingerprint only while it differs from what every configuration before
#: it implicitly had (WHILE_UNSET for a queue's lifecycle settings, which count once
#: written in the file even at their default), so a log written before it keeps its
#: fingerprint and still replays as "this configuration".
WHILE_UNSET = "unset"
FINGERPRINT_ADDITIONS: dict[str, tuple[int, object]] = {
    "queues.rules": (2, {}),
    "queues.ready_check_ms": (3, WHILE_UNSET),
    "queues.placement_timeout_ms": (3, WHILE_UNSET),
    "queues.placement_requeues": (3, WHILE_UNSET),
    "one_ticket_per_player": (4, False),
    "max_clock_skew_ms": (5, DEFAULT_MAX_CLOCK_SKEW_MS),
    "queues.team_steps": (6, ()),
    "queues.team_sizes": (6, ()),
    "queues.team_roles": (6, ()),
    "queues.auto_backfill": (6, False),
    "queues.size_trigger_tickets": (7, 2),
    "queues.size_floor_ms": (7, 250),
    "queues.partial_backfill": (8, False),
}
_QUEUE_ADDITIONS = {
    name.removeprefix("queues."): added
    for name, added in FINGERPRINT_ADDITIONS.items()
    if name.startswith("queues.")
}
#: The newest version of the fingerprint's document; version 1 held these settings.
FINGERPRINT_VERSION = max(version for version, _ in FINGERPRINT_ADDITIONS.values())
FINGERPRINT_BASE = (
    "queues",
    "routes",
    "fallback_servers",
    "ticket_ttl_ms",
    "finished_retention_ms",
)
#: Settings that never enter the fingerprint: how to connect, observe and pace, not what
#: is decided (the ticks' instants are in the log; a replay reads them).
NOT_FINGERPRINTED = frozenset(
    {"broker_url", "app_id", "partitions", "replication_factor", "publish_status"}
    | {"verify_waves", "web_host", "web_port", "web_enabled", "session_timeout_ms"}
    | {"heartbeat_interval_ms", "stagger_ticks", "snapshot_min_events", "consumer"}
    | {"snapshot_max_refold_ms"}
    | {"processing_guarantee", "log_level", "security_protocol", "sasl_mechanism"}
    | {"sasl_username", "sasl_password", "sasl_password_file", "ssl_cafile", "ssl_certfile"}
    | {"ssl_keyfile", "ssl_key_password", "data_dir"}
    # The registry changes the framing of the outputs, never a decision (docs/adr/0165).
    | {"schema_registry_url", "schema_registry_username", "schema_registry_password"}
    | {"schema_registry_cafile", "schema_registry_certfile", "schema_registry_keyfile"}
    | {"web_token", "web_token_file"}
)


def decisive_queue(queue: QueueSettings) -> dict[str, Any]:
    """What of ``queue`` enters the config fingerprint (see FINGERPRINT_ADDITIONS)."""
    dumped = queue.model_dump(mode="json")
    for name in _left_out(queue):
        del dumped[name]
    if queue.ticket_ttl_ms is None:  # the global one: as before the setting existed
        del dumped["ticket_ttl_ms"]
    return dumped


def unset_lifecycle(queue: QueueSettings) -> frozenset[str]:
    """The lifecycle settings ``queue`` leaves unset: out of its fingerprint and its record."""
    return frozenset(
        name
        for name, (_, before) in _QUEUE_ADDITIONS.items()
        if before == WHILE_UNSET and name not in queue.model_fields_set
    )


def _left_out(queue: QueueSettings) -> list[str]:
    left_out = list(unset_lifecycle(queue))
    for name, (_, before) in _QUEUE_ADDITIONS.items():
        if before != WHILE_UNSET and getattr(queue, name) == before:
            left_out.append(name)
    return left_out


class RouteSettings(_Frozen):
    region_a: str
    region_b: str
    servers: tuple[str, ...] = Field(min_length=1)


#: Values a setting no longer takes, and why: the setting stays so that existing files load.
REMOVED_VALUES: dict[tuple[str, object], str] = {
    ("consumer", "faust"): 'the queue topic has one consumer, "direct" (docs/adr/0120); '
    "remove the setting",
    ("processing_guarantee", "exactly_once"): "outputs are published at least once, "
    "byte-identical, and consumers de-duplicate by key (docs/adr/0090)",
}


#: A host name as RFC 1123 spells one: dot-separated labels of letters, digits and "-".
_LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST_NAME = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*$")
#: One bootstrap server of ``broker_url``: a host name, an IPv4 or a bracketed IPv6
#: address, and a port.
_HOST_PORT = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[^\s:/,\[\]]+):[0-9]{1,5}$")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WAVEMATCH_", frozen=True, extra="forbid")

    # kafka://host:port for Apache Kafka; tansu://host:port for the embedded broker
    # (same protocol; its clients use a shorter fetch wait and no idempotence, docs/adr/0004).
    broker_url: str = "kafka://localhost:9092"
    app_id: str = "wavematch"
    # One input partition holds whole (queue, region) queues; more partitions than
    # regions lets more workers share the load. Changing it re-homes every region.
    partitions: int = Field(default=8, ge=1, le=1024)
    replication_factor: int = Field(default=1, ge=1, le=16)
    # A worker with no queue would reject every join: at least one.
    queues: tuple[QueueSettings, ...] = Field(default=(QueueSettings(name="1v1"),), min_length=1)
    routes: tuple[RouteSettings, ...] = ()
    fallback_servers: tuple[str, ...] = ("default",)
    # A ticket waiting longer than this is dequeued as expired at the next wave.
    ticket_ttl_ms: int = Field(default=600_000, ge=1_000)
    # Dequeued ticket ids are remembered this long so retried joins stay no-ops (>= TTL).
    # None: the TTL, and at least DEFAULT_FINISHED_RETENTION_MS, which outlasts the
    # producers' own retries (Java's delivery.timeout.ms, librdkafka's message.timeout.ms):
    # a join retried after its ticket was forgotten would expire, a second ending.
    finished_retention_ms: int | None = None
    publish_status: bool = True
    # One active ticket per player across queues and regions (docs/adr/0110): a join
    # waits for its players' claims (about three more queue records per ticket and one
    # round trip before SEARCHING); a second ticket of a held player is rejected.
    one_ticket_per_player: bool = False
    # How far a WaveTick's instant, a ReadyCheckAnswered's or PlacementReported's time
    # (either way), or a TicketJoined's joined_at_ms (ahead), may be from its record's
    # broker timestamp before it is dead-lettered as implausible_time (docs/adr/0074,
    # 0115). Larger forgives slower clocks and late ticks; a forged tick can then stall its
    # region, and a forged answer beat its deadline, by up to this long. None: not checked.
    max_clock_skew_ms: int | None = Field(default=DEFAULT_MAX_CLOCK_SKEW_MS, ge=1_000)
    # Check every wave result with its strategy's checker before publishing (~O(players)).
    verify_waves: bool = True
    web_host: str = "127.0.0.1"
    web_port: int = Field(default=6066, ge=1, le=65535)  # Faust serves on a fixed port
    web_enabled: bool = True
    # The web views' bearer token (docs/adr/0172): required when web_host is not loopback,
    # where every request without it is answered 401. From WAVEMATCH_WEB_TOKEN or a file
    # (a mounted Secret) read once at start; never logged (SecretStr), not fingerprinted.
    web_token: SecretStr | None = None
    web_token_file: Path | None = None
    # Failover: a dead worker's partitions move after the session timeout (docs/scaling.md).
    # 6 s (Kafka's group.min.session.timeout.ms) keeps waves pausing under 15 s after a
    # SIGKILL; the production manifests choose 10 s for margin against stalls.
    session_timeout_ms: int = Field(default=6_000, ge=1_000)
    heartbeat_interval_ms: int = Field(default=1_000, ge=100)
    # Fixed-interval regions tick at evenly spread offsets inside the interval, so one
    # worker's regions do not close their waves at the same instant and the last one in
    # line wait for all the others (docs/adr/0063). False: every region on the grid.
    # Not in the fingerprint: the ticks are in the log, a replay reads their instants.
    stagger_ticks: bool = True
    # A partition's state is snapshotted after this many events (or its ticket count, if
    # larger), bounding how much of the log a takeover re-reads.
    snapshot_min_events: int = Field(default=5_000, ge=1)
    # ... and once the waves folded since its last snapshot took this long to close, so a
    # takeover re-runs at most about this much CPU of waves (a queue whose waves are dear,
    # such as a role queue, reaches it long before snapshot_min_events).
    snapshot_max_refold_ms: int = Field(default=2_000, ge=1)
    # The queue topic is consumed by a plain aiokafka consumer in the group <app_id>-queue
    # (docs/adr/0061); Faust's agent was the earlier way and went (docs/adr/0120). Kept so
    # existing files stay valid.
    consumer: Literal["direct"] = "direct"
    # At-least-once delivery of exactly-once decisions on every broker (docs/adr/0005);
    # "exactly_once" was removed (docs/adr/0090). Kept so existing files stay valid.
    processing_guarantee: Literal["at_least_once"] = "at_least_once"
    log_level: Literal["debug", "info", "warn", "error"] = "info"
    # Where the worker keeps Faust's local data (``<data_dir>/<app_id>-data``). Never the
    # directory it happens to start in: a shared or read-only cwd must not matter.
    # Default ~/.wavematch; the state lives in Kafka, so losing this directory costs nothing.
    data_dir: Path | None = None

    @field_validator("consumer", "processing_guarantee", mode="before")
    @classmethod
    def _not_removed(cls, value: Any, info: ValidationInfo) -> Any:
        why = REMOVED_VALUES.get((info.field_name or "", value))
        if why is not None:
            raise ValueError(f'"{value}" was removed: {why}')
        return value

    # How every Kafka client connects (streams/connection.py, docs/adr/0095). Managed
    # clusters usually want SASL_SSL with SCRAM or PLAIN; PLAINTEXT suits a local broker only.
    security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    sasl_mechanism: Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] | None = None
    sasl_username: str | None = None
    # Secrets: WAVEMATCH_SASL_PASSWORD, or a file (a mounted Secret) read once at start.
    # Neither is logged (SecretStr) nor in the config fingerprint (not a decision).
    sasl_password: SecretStr | None = None
    sasl_password_file: Path | None = None
    # TLS: the CA that signed the brokers' certificates (default: the system's CAs), and a
    # client certificate and key for listeners that ask for one (PEM files).
    ssl_cafile: Path | None = None
    ssl_certfile: Path | None = None
    ssl_keyfile: Path | None = None
    ssl_key_password: SecretStr | None = None

    # A schema registry speaking Confluent's API (Confluent, Apicurio's /apis/ccompat/v7,
    # Karapace). Set: the output topics are written in its framing (00 + schema id), their
    # schemas registered under <topic>-value as the worker starts, so Java serdes, Connect
    # and ksqlDB read them and the registry's compatibility check guards every change; the
    # worker then depends on the registry to start. None: single-object Avro, no registry.
    # Registry-framed input is read either way when a registry is set (docs/adr/0165).
    schema_registry_url: str | None = None
    # Basic auth (both or neither), and TLS files for an https:// registry, as the broker's.
    schema_registry_username: str | None = None
    schema_registry_password: SecretStr | None = None
    schema_registry_cafile: Path | None = None
    schema_registry_certfile: Path | None = None
    schema_registry_keyfile: Path | None = None

    @model_validator(mode="before")
    @classmethod
    def _password_from_file(cls, data: Any) -> Any:
        """Read ``sasl_password_file`` into ``sasl_password``: one value from then on."""
        if not isinstance(data, dict) or not data.get("sasl_password_file"):
            return data
        if data.get("sasl_password"):
            raise ValueError("sasl_password_file: set it or sasl_password, not both")
        path = Path(data["sasl_password_file"])
        try:
            password = path.read_text().rstrip("\r\n")
        except OSError as error:
            raise ValueError(f"sasl_password_file: cannot read {path}: {error.strerror}") from None
        if not password:
            raise ValueError(f"sasl_password_file: {path} is empty")
        return {**data, "sasl_password": password}

    @model_validator(mode="before")
    @classmethod
    def _web_token_from_file(cls, data: Any) -> Any:
        """Read ``web_token_file`` into ``web_token``, as ``sasl_password_file`` is read."""
        if not isinstance(data, dict) or not data.get("web_token_file"):
            return data
        if data.get("web_token"):
            raise ValueError("web_token_file: set it or web_token, not both")
        path = Path(data["web_token_file"])
        try:
            token = path.read_text().strip()
        except OSError as error:
            raise ValueError(f"web_token_file: cannot read {path}: {error.strerror}") from None
        return {**data, "web_token": token}

    @field_validator("broker_url")
    @classmethod
    def _broker_url_form(cls, url: str) -> str:
        scheme, _, servers = url.partition("://")
        if scheme not in ("kafka", "tansu") or not all(
            _HOST_PORT.match(server.strip()) for server in servers.split(",")
        ):
            raise ValueError(
                f"{url!r} is not like kafka://host:port[,host:port...] or tansu://host:port"
            )
        return url

    @field_validator("web_host")
    @classmethod
    def _bindable_host(cls, host: str) -> str:
        # The web server binds the text as given: a bracketed IPv6 literal or a word with
        # spaces fails only once Faust starts, under a message about something else.
        if host.startswith("[") and host.endswith("]"):
            raise ValueError(f"give an IPv6 address without brackets ({host[1:-1]!r})")
        try:
            ipaddress.ip_address(host)
        except ValueError:
            if not _HOST_NAME.match(host):
                raise ValueError(f"{host!r} is not an IP address or a host name") from None
        return host

    @field_validator("web_token")
    @classmethod
    def _strong_token(cls, value: SecretStr | None) -> SecretStr | None:
        # A short token is guessable over the network; 16 characters is a floor, not advice.
        if value is not None and len(value.get_secret_value()) < MIN_WEB_TOKEN_CHARS:
            raise ValueError(f"at least {MIN_WEB_TOKEN_CHARS} characters, without spaces")
        if value is not None and any(c.isspace() for c in value.get_secret_value()):
            raise ValueError(f"at least {MIN_WEB_TOKEN_CHARS} characters, without spaces")
        return value

    #: Each queue's profile, built once when the settings load (see profiles()).
    _profiles: dict[str, QueueProfile] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        routes = tuple(ServerRoute(r.region_a, r.region_b, r.servers) for r in self.routes)
        self._profiles = {
            q.name: _checked_profile(index, q, routes, self.fallback_servers)
            for index, q in enumerate(self.queues)
        }
        names = [queue.name for queue in self.queues]
        if len(set(names)) != len(names):
            twice = next(name for name in names if names.count(name) > 1)
            raise ValueError(f"queues: queue names must be distinct; {twice!r} is named twice")
        if (
            self.finished_retention_ms is not None
            and self.finished_retention_ms < self.ticket_ttl_ms
        ):
            raise ValueError("finished_retention_ms must be >= ticket_ttl_ms")
        if self.heartbeat_interval_ms * 3 > self.session_timeout_ms:
            raise ValueError("heartbeat_interval_ms must be at most a third of session_timeout_ms")
        self._secured_consistently()
        self._registry_consistently()
        return self

    def _registry_consistently(self) -> None:
        url = self.schema_registry_url
        names = ("username", "password", "cafile", "certfile", "keyfile")
        if url is None:
            for name in names:
                if getattr(self, f"schema_registry_{name}") is not None:
                    raise ValueError(f"schema_registry_{name}: set, but schema_registry_url is not")
            return
        scheme, _, rest = url.partition("://")
        if scheme not in ("http", "https") or not rest.split("/", 1)[0]:
            raise ValueError(
                f"schema_registry_url: {url!r} is not an http:// or https:// URL with a host"
            )
        if (self.schema_registry_username is None) != (self.schema_registry_password is None):
            raise ValueError(
                "schema_registry_username: set it and schema_registry_password, or neither"
            )
        for name in ("cafile", "certfile", "keyfile"):
            value = getattr(self, f"schema_registry_{name}")
            if value is not None and scheme != "https":
                raise ValueError(f"schema_registry_{name}: set, but {url} is not https://")
            if value is not None and not value.is_file():
                raise ValueError(f"schema_registry_{name}: {value} not found")
        if (self.schema_registry_keyfile is None) != (self.schema_registry_certfile is None):
            raise ValueError(
                "schema_registry_keyfile: a client certificate needs both certfile and keyfile"
            )

    def web_access_problem(self) -> str | None:
        """Why this worker must not serve its web views, in one line, or None.

        Checked where a web server starts (the worker), not on every load: the topic
        job and the CLI read the same settings and serve nothing.
        """
        if self.web_enabled and self.web_token is None and not is_loopback(self.web_host):
            return (
                f"web_token: required with the non-loopback web_host {self.web_host} "
                "(set WAVEMATCH_WEB_TOKEN or WAVEMATCH_WEB_TOKEN_FILE)"
            )
        return None

    def _secured_consistently(self) -> None:
        protocol = self.security_protocol
        sasl = protocol.startswith("SASL_")
        tls = protocol in ("SSL", "SASL_SSL")
        if protocol != "PLAINTEXT" and self.is_embedded_broker:
            raise ValueError("security_protocol: the embedded broker (tansu://) is PLAINTEXT only")
        for name in ("sasl_mechanism", "sasl_username", "sasl_password"):
            given = getattr(self, name) is not None
            if sasl and not given:
                raise ValueError(f"{name}: required with security_protocol {protocol}")
            if given and not sasl:
                raise ValueError(f"{name}: set, but security_protocol {protocol} uses no SASL")
        for name in ("ssl_cafile", "ssl_certfile", "ssl_keyfile", "ssl_key_password"):
            value = getattr(self, name)
            if value is not None and not tls:
                raise ValueError(f"{name}: set, but security_protocol {protocol} uses no TLS")
            if isinstance(value, Path) and not value.is_file():
                raise ValueError(f"{name}: {value} not found")
        if self.ssl_keyfile is not None and self.ssl_certfile is None:
            raise ValueError("ssl_keyfile: set without ssl_certfile (the client certificate)")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: Any,
        env_settings: Any,
        dotenv_settings: Any,
        file_secret_settings: Any,
    ) -> tuple[Any, ...]:
        path = _config_file.get() or os.environ.get("WAVEMATCH_CONFIG_FILE")
        sources = [init_settings, env_settings]
        if path:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=Path(path)))
        return tuple(sources)

    @property
    def faust_data_dir(self) -> Path:
        """The directory Faust writes: ``<data_dir>/<app_id>-data``."""
        return (self.data_dir or Path.home() / ".wavematch") / f"{self.app_id}-data"

    @property
    def broker_host_port(self) -> str:
        return self.broker_url.split("://", 1)[-1]

    @property
    def queue_group(self) -> str:
        """The consumer group whose committed offsets say how far the queue topic is done."""
        return f"{self.app_id}-queue"

    @property
    def is_embedded_broker(self) -> bool:
        return self.broker_url.startswith("tansu://")

    def rules(self) -> QueueRules:
        from matcher.queue import QueueRules

        return QueueRules(
            ticket_ttl_ms=self.ticket_ttl_ms,
            finished_retention_ms=self.finished_retention_ms
            or max(self.ticket_ttl_ms, DEFAULT_FINISHED_RETENTION_MS),
            verify_waves=self.verify_waves,
            publish_status=self.publish_status,
            claims=self.one_ticket_per_player,
        )

    def queue_rules(self) -> dict[str, QueueRules]:
        """The fold's rules of the queues with their own ``ticket_ttl_ms`` (the others
        have :meth:`rules`); their ids are remembered at least as long as they wait."""
        base = self.rules()
        return {
            q.name: replace(
                base,
                ticket_ttl_ms=q.ticket_ttl_ms,
                finished_retention_ms=max(base.finished_retention_ms, q.ticket_ttl_ms),
            )
            for q in self.queues
            if q.ticket_ttl_ms is not None
        }

    def rules_of(self, queue: str) -> QueueRules:
        """The fold's rules of ``queue``."""
        return self.queue_rules().get(queue) or self.rules()

    def lifecycles(self) -> dict[str, LifecyclePolicy]:
        """The policies of the queues with a ready check or placement reports."""
        from matcher.queue.lifecycle import LifecyclePolicy

        return {
            q.name: LifecyclePolicy(q.ready_check_ms, q.placement_timeout_ms, q.placement_requeues)
            for q in self.queues
            if q.ready_check_ms or q.placement_timeout_ms
        }

    def profiles(self) -> dict[str, QueueProfile]:
        """Each queue's profile (the same objects on every call: built at load)."""
        return dict(self._profiles)

    def cadences(self) -> dict[str, CadencePolicy]:
        """The pop-timer and size-trigger policies of the queues that use one."""
        from matcher.queue.cadence import CadencePolicy

        pops = {
            q.name: CadencePolicy(
                mode="pop",
                interval_ms=q.wave_interval_ms,
                target_matches=q.pop_target_matches,
                floor_ms=q.pop_floor_ms,
                cap_ms=q.pop_cap_ms,
                smoothing=q.pop_smoothing,
            )
            for q in self.queues
            if q.cadence == "pop"
        }
        return pops | self._size_cadences()

    def _size_cadences(self) -> dict[str, CadencePolicy]:
        from matcher.queue.cadence import CadencePolicy

        return {
            q.name: CadencePolicy(
                mode="size",
                interval_ms=q.wave_interval_ms,
                floor_ms=q.size_floor_ms,
                cap_ms=q.wave_interval_ms,
                smoothing=q.pop_smoothing,
                trigger_tickets=q.size_trigger_tickets,
            )
            for q in self.queues
            if q.cadence == "size"
        }

    def regions_by_queue(self) -> dict[str, tuple[str, ...]]:
        return {q.name: q.regions for q in self.queues}

    def queue(self, name: str) -> QueueSettings:
        return next(q for q in self.queues if q.name == name)

    def config_fingerprint(self) -> str:
        """Fingerprint of everything that changes a wave's decisions (16 hex digits).

        It travels in every WaveTick and MatchCreated, so a replay under another
        configuration, or under a release whose strategy decides differently (its
        decision revision, ``matcher.strategies``), reports that instead of a false
        mismatch.
        """
        decisive: dict[str, Any] = {
            "queues": [decisive_queue(q) for q in self.queues],
            "routes": [r.model_dump(mode="json") for r in self.routes],
            "fallback_servers": list(self.fallback_servers),
            # As configured, an unset retention counting as the TTL: its default is the
            # code's, and it decides no wave, only whether a join retried that late is
            # a no-op.
            "rules": [self.ticket_ttl_ms, self.finished_retention_ms or self.ticket_ttl_ms],
            # The code's decisions too: another release may pair the same queue differently.
            "revisions": {q.strategy: decision_revision(q.strategy) for q in self.queues},
        }
        for name, (_, before) in FINGERPRINT_ADDITIONS.items():
            if not name.startswith("queues.") and getattr(self, name) != before:
                decisive[name] = getattr(self, name)
        canonical = json.dumps(decisive, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def load_settings(config_file: Path | str | None = None, **overrides: Any) -> Settings:
    """Read the settings once, at an entry point; raise SettingsError naming the field."""
    token = _config_file.set(Path(config_file) if config_file else None)
    # The file read, as the settings' sources pick it: the argument, else the variable.
    path = config_file or os.environ.get("WAVEMATCH_CONFIG_FILE")
    try:
        given = Path(path) if path else None
        if given is not None and not given.is_file():  # never the defaults in its place
            named_by = "" if config_file else "WAVEMATCH_CONFIG_FILE: "
            why = (
                "a directory, not a TOML file"
                if given.is_dir()
                else "not a regular file"
                if given.exists()
                else "not found"
            )
            raise SettingsError(f"{named_by}config file {path}: {why}")
        check_variable_names(os.environ)
        return Settings(**overrides)
    except ValidationError as error:
        problem = settings_problem(error, lambda loc: _queue_name(loc, path, overrides))
        raise SettingsError(problem) from None
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(f"config file {path}: not valid TOML: {error}") from None
    except SourceError as error:
        raise SettingsError(_source_error_line(error)) from None
    finally:
        _config_file.reset(token)


def settings_problem(
    error: ValidationError,
    queue_name: Callable[[tuple[Any, ...]], str | None] = lambda loc: None,
) -> str:
    """``error``'s first problem in one line, naming the field (and, through
    ``queue_name``, the queue whose field it is)."""
    first = error.errors()[0]
    # Checks across fields (no location) start their message with the field to fix.
    loc = first["loc"]
    message = _plain(first["type"], loc, first["msg"].removeprefix("Value error, "))
    name = queue_name(loc) if len(loc) > 1 else None
    if name is not None and not message.startswith("queue "):  # a queue's: named
        field = ".".join(str(part) for part in loc[2:])
        where = f"{field}: " if field else ""
        return f"queues.{loc[1]}: queue {name!r}: {where}{message}"
    where = ".".join(str(part) for part in loc)
    return f"{where}: {message}" if where else message


def _queue_name(loc: tuple[Any, ...], path: Path | str | None, overrides: Any) -> str | None:
    """The name the queue at ``loc`` ("queues", index, ...) was given, read from where
    the queues came from (the arguments, the variable, the file); None if it has none."""
    if loc[0] != "queues" or not isinstance(loc[1], int):
        return None
    queues: Any = overrides.get("queues")
    try:
        if queues is None and os.environ.get("WAVEMATCH_QUEUES"):
            queues = json.loads(os.environ["WAVEMATCH_QUEUES"])
        if queues is None and path:
            queues = tomllib.loads(Path(path).read_text()).get("queues")
        queue = queues[loc[1]]
        name = queue.get("name") if isinstance(queue, dict) else getattr(queue, "name", None)
    except (OSError, ValueError, TypeError, LookupError, AttributeError):
        return None
    return name if isinstance(name, str) and name else None


def _plain(kind: str, where: tuple[Any, ...], message: str) -> str:
    """pydantic's ``message`` in the words of a TOML file: a list is an array, a field
    not in the model may be a misspelt one."""
    if kind in ("tuple_type", "list_type"):
        if where[-1] in ("queues", "routes"):
            return f"must be an array of tables: [[{where[-1]}]] before each one"
        return 'must be an array, as in ["eu", "na"]'
    if kind == "extra_forbidden":
        model: type[BaseModel] = (
            QueueSettings if len(where) == 3 and where[0] == "queues" else Settings
        )
        close = difflib.get_close_matches(str(where[-1]), list(model.model_fields), n=1)
        return "not a setting" + (f" (did you mean {close[0]}?)" if close else "")
    return message


#: ``WAVEMATCH_*`` variables read outside this model: the settings file, where ``up``
#: keeps its state, the test tiers' jars, registry and opt-outs (tests/tiers.py).
OTHER_VARIABLES = frozenset(
    {
        "WAVEMATCH_CONFIG_FILE",
        "WAVEMATCH_STATE_DIR",
        "WAVEMATCH_KAFKA_JARS",
        "WAVEMATCH_REGISTRY_DIR",
        "WAVEMATCH_SKIP_TIERS",
    }
)


def known_variables() -> frozenset[str]:
    """Every ``WAVEMATCH_*`` variable wavematch reads."""
    return OTHER_VARIABLES | {f"WAVEMATCH_{name.upper()}" for name in Settings.model_fields}


def check_variable_names(environ: Any) -> None:
    """A misspelt variable would be ignored silently: refuse it, naming the closest."""
    known = known_variables()
    for name in sorted(environ):
        upper = name.upper()
        if not upper.startswith("WAVEMATCH_") or upper in known:
            continue
        close = difflib.get_close_matches(upper, sorted(known), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise SettingsError(f"{name}: not a wavematch setting{hint}")


def _source_error_line(error: SourceError) -> str:
    """pydantic-settings' 'error parsing value for field "queues" from source ...' as one
    line naming the variable and what the JSON parser said."""
    text = str(error)
    field = text.split('field "', 1)[-1].split('"', 1)[0] if 'field "' in text else ""
    cause = f": {error.__cause__}" if error.__cause__ else ""
    return f"WAVEMATCH_{field.upper()}: not valid JSON{cause}" if field else f"{text}{cause}"
