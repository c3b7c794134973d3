"""`wavematch replay`'s logic: re-derive waves from the queue log and judge the published ones."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from schemas.codec import decode
from schemas.errors import InvalidEvent
from schemas.topics import CLEANUP, MATCHES, QUEUE, WAVES
from streams.audit.compare import UNCOMPARED, Verdict, compare
from streams.audit.rederive import LogRecord, rederive
from streams.settings import Settings
from streams.worker.folding import Folder
from streams.worker.publisher import Record

#: What a replay judges: the decisions. Status and dead letters are not decisions.
JUDGED = (MATCHES.name, CLEANUP.name, WAVES.name)


@dataclass(frozen=True)
class Scope:
    queue: str | None = None
    region: str | None = None
    from_wave: int | None = None

    def keeps_key(self, key: bytes | None) -> bool:
        if self.queue is None and self.region is None:
            return True
        if key is None:
            return False
        queue, _, region = key.decode("utf-8", "replace").partition("/")
        return (self.queue in (None, queue)) and (self.region in (None, region))

    def keeps_event(self, body: dict[str, Any]) -> bool:
        if self.queue is not None and body.get("queue") != self.queue:
            return False
        if self.region is not None and body.get("region") != self.region:
            return False
        if self.from_wave is not None:
            wave = body.get("wave_id")
            return wave is not None and _wave_number(wave) >= self.from_wave
        return True


def _wave_number(wave_id: str) -> int:
    return int(wave_id) if wave_id.isdigit() else -1


@dataclass
class ReplayReport:
    fingerprint: str
    waves_checked: int = 0
    other_config: dict[str, int] = field(default_factory=dict)
    verdict: Verdict = field(default_factory=Verdict)
    differences: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.verdict.ok


def replay(
    settings: Settings,
    records: Iterable[LogRecord],
    scope: Scope = Scope(),
    progress: Callable[[LogRecord], None] | None = None,
    processed: dict[int, int] | None = None,
) -> ReplayReport:
    """Fold the queue topic in ``records`` and compare the decisions with the published ones.

    ``processed``: per queue partition, the workers' committed offset. Outputs of input at
    or beyond it are pending: expected only if they were published. None: all processed.
    """
    records = list(records)
    report = ReplayReport(settings.config_fingerprint())
    folder = Folder.from_settings(settings)
    queue_log = [r for r in records if r.topic == QUEUE.name and scope.keeps_key(r.key)]
    skipped_regions: set[tuple[str, str]] = set()
    derived: list[Record] = []
    pending: list[Record] = []
    for item in rederive(folder, queue_log, progress):
        summary = item.folded.step.summary if item.folded.step else None
        if summary is not None:
            if summary.config_fingerprint != report.fingerprint:
                # Its state diverges from here on: nothing more of it can be judged.
                skipped_regions.add((summary.queue, summary.region))
                fingerprint = summary.config_fingerprint
                report.other_config[fingerprint] = report.other_config.get(fingerprint, 0) + 1
                continue
            if scope.keeps_event(
                {"queue": summary.queue, "region": summary.region, "wave_id": summary.wave_id}
            ):
                report.waves_checked += 1
        source = item.source
        done = processed is None or source.offset < processed.get(source.partition, 0)
        (derived if done else pending).extend(out for out in item.outputs if out[0] in JUDGED)
    judged = _in_scope(derived, scope, skipped_regions)
    published = _in_scope(
        [(r.topic, r.key or b"", r.value or b"") for r in records if r.topic in JUDGED],
        scope,
        skipped_regions,
    )
    report.verdict = compare(judged, published, _in_scope(pending, scope, skipped_regions))
    report.differences = first_differences(judged, published, report.verdict)
    return report


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
    """For each missing record, the first field in which the published one of its key differs."""
    by_key: dict[tuple[str, bytes], list[dict[str, Any]]] = {}
    for topic, key, value in published:
        by_key.setdefault((topic, key), []).append(_body(topic, value))
    lines = []
    for topic, key, _ in verdict.missing[:limit]:
        expected = next(_body(t, v) for t, k, v in derived if t == topic and k == key)
        candidates = by_key.get((topic, key), [])
        if not candidates:
            lines.append(f"{topic} key {key.decode(errors='replace')}: not published")
            continue
        actual = candidates[0]
        field_name = next((name for name in expected if expected[name] != actual.get(name)), "?")
        lines.append(
            f"{topic} key {key.decode(errors='replace')}: first differing field {field_name!r}: "
            f"re-derived {expected.get(field_name)!r}, published {actual.get(field_name)!r}"
        )
    for topic, key, _ in verdict.unexpected[:limit]:
        if (topic, key) not in {(t, k) for t, k, _ in verdict.missing}:
            lines.append(f"{topic} key {key.decode(errors='replace')}: published, not re-derived")
    return lines


def _body(topic: str, value: bytes) -> dict[str, Any]:
    try:
        body = decode(value).model_dump(mode="json")
    except InvalidEvent:
        return {"undecodable": value.hex()[:40]}
    for name in UNCOMPARED.get(topic, ()):
        body.pop(name, None)
    return body
