"""`wavematch replay`'s logic: re-derive waves from the queue log and judge the published ones."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from schemas.codec import decode, decode_queue_event
from schemas.errors import InvalidEvent
from schemas.models import TicketJoined, WaveClosed
from schemas.topics import CLEANUP, CONFIG, MATCHES, QUEUE, WAVES
from streams.audit.compare import Verdict, comparable, compare, undecodable
from streams.audit.labels import details, identity, label
from streams.audit.rederive import LogRecord, rederive
from streams.settings import Settings
from streams.worker.config_log import ConfigCatalog
from streams.worker.config_record import configs_in
from streams.worker.folding import Folder
from streams.worker.publisher import Record

#: What a replay judges: the decisions. Status and dead letters are not decisions.
JUDGED = (MATCHES.name, CLEANUP.name, WAVES.name)
#: The service's own records on the queue topic, judged like outputs (docs/adr/0110).
CLAIM_EVENTS = frozenset(
    {"ClaimRequested", "ClaimDecided", "ClaimReleased", "SearchClaim", "SearchHeld"}
)


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
    #: Published records carrying a fingerprint no configuration in the log (nor the
    #: one replayed under) has, by fingerprint: corrupted, or of a configuration whose
    #: record is not in the log. Told, whatever else is said of their waves.
    unknown_fingerprints: dict[str, int] = field(default_factory=dict)

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
    folder = Folder.from_settings(settings, follows_configs=log_configs)
    # The configurations of the log's records, which its ticks switch regions to.
    if log_configs:
        ConfigCatalog(settings, folder.layouts).offer_all(
            (r.key, r.value) for r in records if r.topic == CONFIG.name
        )
    known = {report.fingerprint, *folder.layouts}
    in_log = set(configs_in([r.value for r in records if r.topic == CONFIG.name]))
    fingerprinted = _fingerprinted(records)
    report.unknown_fingerprints = _fingerprints_of_no_configuration(fingerprinted, known | in_log)
    queue_log = [r for r in records if r.topic == QUEUE.name]
    # A region with a wave closed under another configuration, re-derived or published,
    # diverges from there on: none of its records can be judged (not a difference).
    other_waves = _published_under_other_config(fingerprinted, known)
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
    # Only the places judged: a region outside --queue/--region is neither skipped nor
    # counted, whatever its waves were closed under.
    places = Scope(scope.queue, scope.region)
    other_waves = {w for w in other_waves if places.keeps_event({"queue": w[1], "region": w[2]})}
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


#: The judged topics whose records carry the configuration's fingerprint.
_FINGERPRINTED = (MATCHES.name, WAVES.name)
#: A configuration's fingerprint: 16 hex digits (Settings.config_fingerprint).
_FINGERPRINT = re.compile(r"[0-9a-f]{16}")


def is_fingerprint(value: str) -> bool:
    """Whether ``value`` has the form of a configuration's fingerprint."""
    return _FINGERPRINT.fullmatch(value) is not None


def _fingerprinted(records: list[LogRecord]) -> list[Any]:
    """The published records that name a configuration's fingerprint (waves, matches),
    decoded once for the checks below; an undecodable one is judged elsewhere."""
    events = []
    for record in records:
        if record.topic not in _FINGERPRINTED:
            continue
        try:
            event = decode(record.value or b"")
        except InvalidEvent:
            continue
        if isinstance(getattr(event, "config_fingerprint", None), str):
            events.append(event)
    return events


def _published_under_other_config(
    fingerprinted: list[Any], known: set[str]
) -> set[tuple[str, str, str, str]]:
    """(fingerprint, queue, region, wave id) of every published wave of a configuration
    not ``known``."""
    return {
        (wave.config_fingerprint, wave.queue, wave.region, wave.wave_id)
        for wave in fingerprinted
        if isinstance(wave, WaveClosed)
        and wave.config_fingerprint not in known
        # What is not a fingerprint names no configuration: a corrupted record, judged
        # (and found different) rather than its region set aside as another config's.
        and is_fingerprint(wave.config_fingerprint)
    }


def _fingerprints_of_no_configuration(fingerprinted: list[Any], found: set[str]) -> dict[str, int]:
    """Per fingerprint not in ``found``, how many published records carry it: the whole
    log's, whatever the scope."""
    counts: dict[str, int] = {}
    for event in fingerprinted:
        if event.config_fingerprint not in found:
            counts[event.config_fingerprint] = counts.get(event.config_fingerprint, 0) + 1
    return counts


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


def first_differences(
    derived: list[Record], published: list[Record], verdict: Verdict, limit: int = 20
) -> list[str]:
    """One line per finding: for each missing record, the first field in which its
    published namesake differs; then each published record not re-derived that is no
    missing record's namesake (that pair is one change, told once).

    The namesake is the published record of the same topic, key, type and identifying
    fields (:data:`streams.audit.labels.IDENTITY`); a missing record without one was not
    published at all. Every line names the record's type and identifying fields.
    """
    namesakes = _namesakes(published)
    lines = [
        _missing_line(topic, key, form, namesakes)
        for topic, key, _, form in verdict.missing[:limit]
    ]
    told = {(topic, key, identity(form)) for topic, key, _, form in verdict.missing}
    for topic, key, description, form in verdict.unexpected[:limit]:
        if (topic, key, identity(form)) not in told:
            lines.append(
                f"{label(topic, key, form)}: published, not re-derived "
                f"({details(form, description)})"
            )
    return lines


Namesakes = dict[tuple[str, bytes | None, tuple[Any, ...]], list[dict[str, Any]]]


def _namesakes(published: list[Record]) -> Namesakes:
    """The published records' fields by topic, key and identity (type and identifying
    fields); the undecodable ones are listed as published, not re-derived, instead."""
    found: Namesakes = {}
    for topic, key, value in published:
        form = comparable(topic, value)
        if not undecodable(form):
            found.setdefault((topic, key, identity(form)), []).append(dict(form))
    return found


def _missing_line(
    topic: str, key: bytes | None, form: tuple[Any, ...], namesakes: Namesakes
) -> str:
    """A missing record's line: not published, or its namesake's first differing field."""
    named = label(topic, key, form)
    expected = dict(form)
    candidates = namesakes.get((topic, key, identity(form)), [])
    different = [c for c in candidates if c != expected]
    if not candidates:
        return f"{named}: not published"
    if not different:
        return f"{named}: re-derived more times than published"
    actual = different[0]
    name = next(
        n for n in sorted(expected.keys() | actual.keys()) if expected.get(n) != actual.get(n)
    )
    return (
        f"{named}: first differing field {name!r}: "
        f"re-derived {expected.get(name)!r}, published {actual.get(name)!r}"
    )
