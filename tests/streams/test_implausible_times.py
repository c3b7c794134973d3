"""ADR 0074: a tick or join whose own time is too far from its record's broker timestamp is
one DeadLetter (implausible_time); one forged message cannot halt or empty a region."""

from __future__ import annotations

from dataclasses import replace

import pytest

from schemas.codec import decode, encode
from schemas.models import TicketJoined, TicketLeft, WaveTick
from schemas.topics import QUEUE
from streams.settings import Settings
from streams.wire.outbound import Writer
from streams.worker.folding import Folder
from streams.worker.outputs import records_of
from tests.streams.conftest import HOME, KEY

SKEW = 60_000
NOW = 1_767_225_600_000
DAY = 86_400_000


@pytest.fixture
def checked(folder: Folder) -> Folder:
    return replace(folder, max_clock_skew_ms=SKEW)


def join(ticket_id: str, at_ms: int) -> bytes:
    return encode(
        TicketJoined(
            ticket_id=ticket_id,
            queue="duo",
            region="eu",
            joined_at_ms=at_ms,
            players=[{"player_id": f"p-{ticket_id}", "ratings": {"any": 1500}}],
        )
    )


def tick(at_ms: int, sequence: int | None = None) -> bytes:
    return encode(
        WaveTick(
            queue="duo",
            region="eu",
            wave_id=str(at_ms),
            sequence=at_ms if sequence is None else sequence,
            tick_at_ms=at_ms,
            config_fingerprint="cfg",
            interval_ms=1000,
        )
    )


class Log:
    """Folds records stamped like a broker would, one offset after the other."""

    def __init__(self, folder: Folder) -> None:
        self.folder, self.state, self.offset = folder, folder.new_state(HOME), 0

    def fold(self, value: bytes, stamp: int | None):  # type: ignore[no-untyped-def]
        folded = self.folder.fold(self.state, KEY, value, self.offset, stamp)
        self.offset += 1
        return folded

    def queued(self) -> list[str]:
        return [tid for queue in self.state.book.regions.values() for tid in queue.tickets]


@pytest.mark.parametrize(
    ("forged", "field"),
    [
        (tick(NOW, sequence=2**63 - 1), "sequence"),  # would make every later tick stale
        (tick(7_258_118_399_999), "tick_at_ms"),  # 2199-12-31: would expire every ticket
        (tick(NOW - DAY), "tick_at_ms"),
    ],
)
def test_a_forged_tick_is_dead_lettered_and_the_region_goes_on(checked, forged, field):
    log = Log(checked)
    for index in range(3):
        log.fold(join(f"t{index}", NOW), NOW)
    folded = log.fold(forged, NOW)
    assert (folded.rejection.code, folded.rejection.field) == ("implausible_time", field)
    (letter,) = records_of(
        Writer(), folded, topic=QUEUE.name, partition=HOME, key=KEY, value=forged
    )
    assert decode(letter[2]).error_code == "implausible_time"
    assert log.queued() == ["t0", "t1", "t2"]  # nothing expired, nothing closed
    real = log.fold(tick(NOW + 1_000), NOW + 1_000)
    assert real.rejection is None and real.step.summary.matches == 1
    assert log.fold(tick(NOW + 2_000), NOW + 2_000).step.note == "wave_closed"


def test_a_tick_within_the_skew_is_applied(checked):
    log = Log(checked)
    assert log.fold(tick(NOW + SKEW), NOW).rejection is None
    assert log.fold(tick(NOW + 2 * SKEW), NOW + SKEW).rejection is None


def test_a_join_dated_ahead_of_its_record_never_becomes_an_immortal_ticket(checked):
    log = Log(checked)
    folded = log.fold(join("ahead", NOW + DAY), NOW)
    assert (folded.rejection.code, folded.rejection.field) == ("implausible_time", "joined_at_ms")
    assert "+86400000 ms" in folded.rejection.reason
    assert log.fold(join("skewed", NOW + SKEW), NOW).rejection is None
    assert log.fold(join("old", NOW - DAY), NOW).rejection is None  # expires by its TTL
    assert log.queued() == ["skewed", "old"]


def leave(ticket_id: str, at_ms: int) -> bytes:
    return encode(
        TicketLeft(
            ticket_id=ticket_id, queue="duo", region="eu", reason="REQUESTED", left_at_ms=at_ms
        )
    )


def test_a_leave_dated_ahead_of_its_record_is_refused_and_the_ticket_stays(checked):
    log = Log(checked)
    for ticket in ("ahead", "skewed", "old"):
        log.fold(join(ticket, NOW), NOW)
    folded = log.fold(leave("ahead", NOW + DAY), NOW)
    assert (folded.rejection.code, folded.rejection.field) == ("implausible_time", "left_at_ms")
    assert log.fold(leave("skewed", NOW + SKEW), NOW).rejection is None
    assert log.fold(leave("old", NOW - DAY), NOW).rejection is None  # a late leave is fine
    assert log.queued() == ["ahead"]


@pytest.mark.parametrize("stamp", [None, -1])
def test_without_a_record_timestamp_nothing_is_checked(checked, stamp):
    """Logs exported before timestamps were kept replay as they were decided."""
    log = Log(checked)
    assert log.fold(join("ahead", NOW + DAY), stamp).rejection is None
    assert log.fold(tick(NOW, sequence=2**63 - 1), stamp).rejection is None


def test_the_setting_reaches_the_fold_and_leaves_default_fingerprints_alone():
    assert Folder.from_settings(Settings()).max_clock_skew_ms == 60_000
    assert (
        Settings().config_fingerprint() == Settings(max_clock_skew_ms=60_000).config_fingerprint()
    )
    assert Settings().config_fingerprint() != Settings(max_clock_skew_ms=5_000).config_fingerprint()
    assert Folder.from_settings(Settings(max_clock_skew_ms=None)).max_clock_skew_ms is None


# -- a backdated join: its wait counts from max_clock_skew_ms before its record -----------


def ladder_log(skew_ms: int = 1_000) -> Log:
    """A 1v1 ladder whose distance limit grows with the seconds waited."""
    from streams.settings import QueueSettings

    rules = {"rating": "mmr", "max_distance": {"base": 100, "growth_per_s": 2, "cap": 400}}
    settings = Settings(
        partitions=4,
        max_clock_skew_ms=skew_ms,
        ticket_ttl_ms=7_200_000,
        queues=(QueueSettings(name="duo", regions=("eu",), maps=("m",), rules=rules),),
    )
    return Log(Folder.from_settings(settings))


def ladder_join(ticket_id: str, mmr: int, at_ms: int) -> bytes:
    return encode(
        TicketJoined(
            ticket_id=ticket_id,
            queue="duo",
            region="eu",
            joined_at_ms=at_ms,
            players=[{"player_id": f"p-{ticket_id}", "ratings": {"mmr": mmr}}],
        )
    )


def test_a_backdated_join_does_not_widen_the_limits():
    log = ladder_log()
    hour_ago = NOW - 3_600_000
    assert log.fold(ladder_join("a", 1500, hour_ago), NOW).rejection is None
    assert log.fold(ladder_join("b", 1628, hour_ago), NOW).rejection is None
    # 1.4 s counted (the record's time less the 1 s skew): a limit of 102.8, not 400.
    assert log.fold(tick(NOW + 400), NOW + 400).step.summary.matches == 0
    # 15 s later the limit has grown to 132: they are matched.
    assert log.fold(tick(NOW + 15_000), NOW + 15_000).step.summary.matches == 1


def test_a_join_dated_within_the_skew_keeps_its_date_and_one_past_its_ttl_expires():
    log = ladder_log()
    log.fold(ladder_join("a", 1500, NOW - 1_000), NOW)
    log.fold(ladder_join("b", 1628, NOW - 1_000), NOW)
    queued = log.state.book.regions["duo", "eu"].tickets.values()
    assert [q.ticket.joined_at_ms for q in queued] == [NOW - 1_000, NOW - 1_000]
    log.fold(tick(NOW + 1_000), NOW + 1_000)
    # Dated before its TTL (a retried join of a ticket whose id is forgotten): not
    # re-dated, so it expires at once instead of queueing a player again.
    retried = log.fold(ladder_join("c", 1500, NOW - 7_200_000), NOW + 1_000)
    assert [d.reason.name for d in retried.step.dequeued] == ["EXPIRED"]


# -- the contract's corners (schemas/README.md): stale ticks, leaves of unknown tickets ---


def test_a_stale_tick_is_a_no_op_whatever_its_times(checked):
    """A tick at or below the region's last sequence (a second timer's, a redelivery) is
    a valid queue event that changes nothing: never a dead letter, even stamped late."""
    log = Log(checked)
    for index in range(3):
        log.fold(join(f"t{index}", NOW), NOW)
    assert log.fold(tick(NOW + 1_000), NOW + 1_000).step.summary.matches == 1
    late = tick(NOW + 1_000)
    folded = log.fold(late, NOW + 5 * SKEW)
    assert folded.rejection is None and folded.step.note == "stale_tick"
    assert records_of(Writer(), folded, topic=QUEUE.name, partition=HOME, key=KEY, value=late) == []
    older = log.fold(tick(NOW), NOW + 5 * SKEW)
    assert older.rejection is None and older.step.note == "stale_tick"
    assert log.queued() == ["t2"]
    # A new tick dated far from its stamp is still refused: it would be applied.
    forged = log.fold(tick(NOW + 2_000), NOW + 5 * SKEW)
    assert forged.rejection.code == "implausible_time"


def test_a_leave_of_an_unknown_ticket_publishes_nothing_and_the_log_order_decides(checked):
    """schemas/README.md "Leaves": the leave changes nothing; a join after it in the log
    queues its ticket, which then ends exactly once like any other (docs/adr/0137)."""
    log = Log(checked)
    gone = log.fold(leave("t-late", NOW), NOW)
    assert gone.rejection is None and gone.step.note == "unknown_ticket"
    assert records_of(Writer(), gone, topic=QUEUE.name, partition=HOME, key=KEY, value=b"") == []
    joined_after = log.fold(join("t-late", NOW - 500), NOW + 100)
    assert joined_after.step.note == "joined"
    assert log.queued() == ["t-late"]
