"""`wavematch replay`'s logic: re-derive waves from the queue log and judge the published ones."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from schemas.codec import decode, decode_queue_event
from schemas.errors import InvalidEvent
from schemas.models import TicketJoined, WaveClosed
from schemas.topics import CLEANUP, CONFIG, MATCHES, QUEUE, WAVES
from streams.audit.compare import Verdict, comparable, compare, undecodable
from streams.audit.rederive import LogRecord, rederive
from streams.settings import Settings
from streams.worker.config_log import ConfigCatalog
from streams.worker.folding import Folder
from streams.worker.publisher import Record

#: What a replay judges: the decisions. Status and dead letters are not decisions.
JUDGED = (MATCHES.name, CLEANUP.name, WAVES.name)
#: The service's own records on the queue topic, judged like outputs (docs/adr/0110).
CLAIM_EVENTS = frozenset({"ClaimRequested", "ClaimDecided", "ClaimReleased", "SearchClaim"})


@dataclass(frozen=True)
class Scope:
    """The decisions a replay judges. The whole queue log is folded whatever the scope:
    a region's decisions depend on other places' records (a search's copies and claims,
    docs/adr/0145, keyed by other regions or by ``search/TICKET``)."""

    queue: str | None = None
    region: str | None = None
    from_wave: int | None = None

    def keeps_event(self, body: dict[str, Any]) -> bool:
        if self.queue is not None and body.get("queue") != self.queue:
            return False
        if self.region is not None and body.get("region") != self.region:
            return False
        if self.from_wave is not None:
            wave = body.get("wave_id")
            if wave is not None:
                return wave_number(wave) >= self.from_wave
            # An output of no wave (a leave, a decline, a timed-out ready check, a claim)
            # counts from its own time: a wave's number is its tick's time.
            at = next((body[name] for name in _OWN_TIMES if body.get(name) is not None), None)
            return at is None or at >= self.from_wave
        return True


#: The time fields of the judged outputs that may carry no wave id.
_OWN_TIMES = ("at_ms", "requested_at_ms", "decided_at_ms", "released_at_ms")


def wave_number(wave_id: str) -> int:
    """A wave id's number (its tick time); -1 for an id that is not one."""
    return int(wave_id) if wave_id.isdigit() else -1


@dataclass
class ReplayReport:
    fingerprint: str
    waves_checked: int = 0
    other_config: dict[str, int] = field(default_factory=dict)
    #: "queue/region" of each region with a wave under another configuration: it
    #: diverges from there, so none of its waves is judged.
    skipped_regions: list[str] = field(default_factory=list)
    #: The log's other configurations a tick switched a region to, re-derived under
    #: them (docs/adr/0160), by fingerprint: waves checked under each.
    switched: dict[str, int] = field(default_factory=dict)
    verdict: Verdict = field(default_factory=Verdict)
    differences: list[str] = field(default_factory=list)
    #: Joins shaped as a place's copy (their searches name another place first) that no
    #: home's fold wrote: a platform's records against the contract, folded as input
    #: like any join, so every effect of theirs is compared; not a difference.
    foreign_copies: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.verdict.ok


def replay(
    settings: Settings,
    records: Iterable[LogRecord],
    scope: Scope = Scope(),
    progress: Callable[[LogRecord], None] | None = None,
    processed: dict[int, int] | None = None,
    log_configs: bool = True,
) -> ReplayReport:
    """Fold the queue topic in ``records`` and compare the decisions with the published ones.

    ``processed``: per queue partition, the workers' committed offset. Outputs of input at
    or beyond it are pending: expected only if they were published. None: all processed.
    ``log_configs``: a region switches to the configuration its tick carries when the
    log's config records hold it (docs/adr/0160); False: ``settings`` only, as when an
    auditor names the configuration to judge under.
    """
    records = list(records)
    report = ReplayReport(settings.config_fingerprint())
    folder = Folder.from_settings(settings)
    # The configurations of the log's records, which its ticks switch regions to.
    if log_configs:
        ConfigCatalog(settings, folder.layouts).offer_all(
            (r.key, r.value) for r in records if r.topic == CONFIG.name
        )
    known = {report.fingerprint, *folder.layouts}
    queue_log = [r for r in records if r.topic == QUEUE.name]
    # A region with a wave closed under another configuration, re-derived or published,
    # diverges from there on: none of its records can be judged (not a difference).
    other_waves = _published_under_other_config(records, known)
    derived: list[Record] = []
    pending: list[Record] = []
    closed: list[tuple[str, str, str]] = []  # (fingerprint, queue, region) of each wave
    for item in rederive(folder, queue_log, progress):
        summary = item.folded.step.summary if item.folded.step else None
        if summary is not None:
            fingerprint = summary.config_fingerprint
            if fingerprint not in known:
                other_waves.add((fingerprint, summary.queue, summary.region, summary.wave_id))
                continue
            if scope.keeps_event(
                {"queue": summary.queue, "region": summary.region, "wave_id": summary.wave_id}
            ):
                closed.append((fingerprint, summary.queue, summary.region))
        source = item.source
        done = processed is None or source.offset < processed.get(source.partition, 0)
        (derived if done else pending).extend(
            out for out in item.outputs if out[0] in JUDGED or out[0] == QUEUE.name
        )
    skipped_regions = {(queue, region) for _, queue, region, _ in other_waves}
    for fingerprint, *_ in other_waves:
        report.other_config[fingerprint] = report.other_config.get(fingerprint, 0) + 1
    report.skipped_regions = sorted(f"{queue}/{region}" for queue, region in skipped_regions)
    for fingerprint, queue, region in closed:  # a skipped region's waves are not judged
        if (queue, region) in skipped_regions:
            continue
        report.waves_checked += 1
        if fingerprint != report.fingerprint:
            report.switched[fingerprint] = report.switched.get(fingerprint, 0) + 1
    judged = _in_scope(derived, scope, skipped_regions)
    published = _in_scope(
        [
            (r.topic, r.key or b"", r.value or b"")
            for r in records
            if r.topic in JUDGED or (r.topic == QUEUE.name and _is_claim(r.value))
        ],
        scope,
        skipped_regions,
    )
    report.verdict = compare(judged, published, _in_scope(pending, scope, skipped_regions))
    report.foreign_copies = _take_foreign_copies(report.verdict)
    report.differences = first_differences(judged, published, report.verdict)
    return report


def _take_foreign_copies(verdict: Verdict) -> list[str]:
    """Move out of ``verdict.unexpected`` the copy-shaped joins nothing re-derived; their
    ticket ids. Provenance is not in the log: a join its platform keyed to one place and
    began with another looks like wavematch's copy."""
    foreign: list[str] = []
    kept = []
    for item in verdict.unexpected:
        topic, _, _, body = item
        fields = dict(body) if topic == QUEUE.name and not undecodable(body) else {}
        if fields.get("searches"):  # only a join copied to another place has them here
            foreign.append(str(fields.get("ticket_id")))
        else:
            kept.append(item)
    verdict.unexpected[:] = kept
    return foreign


def _is_claim(value: bytes | None) -> bool:
    """Whether a queue-topic value is one of the service's own events: a claim (Avro:
    its header names the schema), or the copy of a join searching several places, in
    JSON, not keyed by its first place (docs/adr/0145)."""
    if not value:
        return False
    copy = value[:1] == b"{" and b'"searches"' in value
    if value[:2] != b"\xc3\x01" and not copy:
        return False
    try:
        event = decode(value) if not copy else decode_queue_event(value)
    except InvalidEvent:
        return False
    if isinstance(event, TicketJoined):
        first = event.searches[0] if event.searches else None
        return first is not None and (first.queue or event.queue, first.region) != (
            event.queue,
            event.region,
        )
    return type(event).__name__ in CLAIM_EVENTS


def _published_under_other_config(
    records: list[LogRecord], known: set[str]
) -> set[tuple[str, str, str, str]]:
    """(fingerprint, queue, region, wave id) of every published wave of a configuration
    not ``known``."""
    waves = set()
    for record in records:
        if record.topic != WAVES.name:
            continue
        try:
            wave = decode(record.value or b"")
        except InvalidEvent:
            continue
        if isinstance(wave, WaveClosed) and wave.config_fingerprint not in known:
            waves.add((wave.config_fingerprint, wave.queue, wave.region, wave.wave_id))
    return waves


def _in_scope(
    outputs: Iterable[Record], scope: Scope, skipped_regions: set[tuple[str, str]]
) -> list[Record]:
    kept = []
    for topic, key, value in outputs:
        try:
            body = decode(value).model_dump(mode="json")
        except InvalidEvent:
            kept.append((topic, key, value))
            continue
        if (body.get("queue"), body.get("region")) in skipped_regions:
            continue
        if scope.keeps_event(body):
            kept.append((topic, key, value))
    return kept


#: The field that names one record among the many a key carries, per judged topic.
IDENTITY = {MATCHES.name: "match_id", CLEANUP.name: "ticket_id", WAVES.name: "wave_id"}


def first_differences(
    derived: list[Record], published: list[Record], verdict: Verdict, limit: int = 20
) -> list[str]:
    """For each missing record, the first field in which its published namesake differs.

    The namesake is the published record of the same topic, key and identity (match id,
    ticket id or wave id); a missing record without one was not published at all.
    """
    by_identity: dict[tuple[str, bytes | None, Any], list[dict[str, Any]]] = {}
    for topic, key, value in published:
        form = comparable(topic, value)
        if undecodable(form):  # listed as published, not re-derived
            continue
        fields = dict(form)
        by_identity.setdefault((topic, key, fields.get(IDENTITY.get(topic, ""))), []).append(fields)
    lines = []
    for topic, key, _, form in verdict.missing[:limit]:
        expected = dict(form)
        identity = IDENTITY.get(topic, "")
        shown = (key or b"").decode(errors="replace")
        named = f"{topic} key {shown} {identity}={expected.get(identity)!r}"
        candidates = by_identity.get((topic, key, expected.get(identity)), [])
        different = [c for c in candidates if c != expected]
        if not candidates:
            lines.append(f"{named}: not published")
        elif not different:
            lines.append(f"{named}: re-derived more times than published")
        else:
            actual = different[0]
            field_name = next(
                n
                for n in sorted(expected.keys() | actual.keys())
                if expected.get(n) != actual.get(n)
            )
            lines.append(
                f"{named}: first differing field {field_name!r}: "
                f"re-derived {expected.get(field_name)!r}, published {actual.get(field_name)!r}"
            )
    missing_keys = {(t, k) for t, k, _, _ in verdict.missing}
    for topic, key, description, _ in verdict.unexpected[:limit]:
        if (topic, key) not in missing_keys:
            lines.append(
                f"{topic} key {(key or b'').decode(errors='replace')}: published, not re-derived "
                f"({description[:120]})"
            )
    return lines
