"""A join's opaque data comes back, unread, on its players' seats (docs/adr/0173): through
the worker's fold and writers, from the join's bytes to the match's, and a bad one is a
dead letter naming the field."""

from __future__ import annotations

import json

import pytest

from schemas.codec import CURRENT, KNOWN, decode, encode
from schemas.models import MatchCreated, MatchProposed, TicketJoined
from schemas.topics import MATCHES, queue_key
from streams.settings import QueueSettings, Settings
from streams.worker.folding import Folder
from tests.streams.test_golden_outputs import GOLDEN, T0, wave_outputs


def join(ticket: str, queue: str, players: list[dict], **extra: object) -> bytes:
    body = {"type": "TicketJoined", "ticket_id": ticket, "queue": queue, "region": "eu"}
    return json.dumps(body | {"players": players, "joined_at_ms": T0, **extra}).encode()


def seats(value: bytes) -> dict[str, dict[str, str]]:
    event = decode(value)
    return {seat.player_id: seat.data for team in event.teams for seat in team.players}


def matches(outputs) -> list[bytes]:  # type: ignore[no-untyped-def]
    return [value for topic, _, value in outputs if topic == MATCHES.name]


def test_a_duel_returns_each_players_data_and_the_tickets_on_the_seats() -> None:
    joins = [
        join(
            "t-1",
            "1v1",
            [{"player_id": "p-1", "ratings": {"bw": 1800}, "data": {"skin": "red", "é": "ü\n"}}],
            data={"build": "1.4.2", "skin": "ticket's"},
        ),
        join("t-2", "1v1", [{"player_id": "p-2", "ratings": {"sc2": 1810}}]),
    ]
    queue = QueueSettings(name="1v1", strategy="optimal", regions=("eu",))
    (match,) = matches(wave_outputs(queue, "eu", joins, T0 + 5_000, "cfg"))
    assert match[:10] == CURRENT[MatchCreated].header  # the revision with the seats' data
    # The player's entry wins over the ticket's on a shared name; opaque values kept as sent.
    assert seats(match) == {"p-1": {"build": "1.4.2", "skin": "red", "é": "ü\n"}, "p-2": {}}


def test_the_data_example_is_what_a_1v1_queue_publishes() -> None:
    """schemas/README.md's example: the golden join with data, the golden duel's rival."""
    rival = TicketJoined(
        ticket_id="t-5d1e",
        queue="1v1",
        region="eu",
        joined_at_ms=T0,
        players=[{"player_id": "p-77", "ratings": {"sc2": 1815}, "latency_ms": {"eu": 23}}],
    )
    joins = [(GOLDEN / "TicketJoined" / "data.json").read_bytes(), encode(rival)]
    queue = QueueSettings(name="1v1", strategy="optimal", regions=("eu",))
    (match,) = matches(wave_outputs(queue, "eu", joins, T0 + 5_000, "cfg-9a1f03c2"))
    assert match == (GOLDEN / "MatchCreated" / "data.avro").read_bytes(), decode(match)


def test_a_team_queue_gives_a_partys_data_to_each_of_its_players() -> None:
    def player(name: str, role: str, **data: str) -> dict:
        return {"player_id": name, "ratings": {role: 1500}, "roles": [role], "data": data}

    joins = [
        join(
            "t-7",
            "2v2",
            [player("p-70", "tank", hat="7"), player("p-71", "healer")],
            data={"party": "blue"},
            party_id="party-7",
        ),
        join("t-8", "2v2", [player("p-80", "tank"), player("p-81", "healer", hat="81")]),
    ]
    queue = QueueSettings(
        name="2v2", strategy="rebalance", team_size=2, regions=("eu",), roles=("tank", "healer")
    )
    (match,) = matches(wave_outputs(queue, "eu", joins, T0 + 5_000, "cfg"))
    assert seats(match) == {
        "p-70": {"hat": "7", "party": "blue"},
        "p-71": {"party": "blue"},
        "p-80": {},
        "p-81": {"hat": "81"},
    }


def test_a_proposed_match_carries_the_data() -> None:
    queue = QueueSettings(name="1v1", strategy="optimal", regions=("eu",), ready_check_ms=10_000)
    joins = [
        join("t-1", "1v1", [{"player_id": "p-1", "ratings": {"bw": 1800}}], data={"k": "v"}),
        join("t-2", "1v1", [{"player_id": "p-2", "ratings": {"sc2": 1810}}]),
    ]
    (proposed,) = matches(wave_outputs(queue, "eu", joins, T0 + 5_000, "cfg"))
    assert KNOWN[proposed[2:10]].model is MatchProposed
    assert proposed[:10] == CURRENT[MatchProposed].header
    assert seats(proposed) == {"p-1": {"k": "v"}, "p-2": {}}


@pytest.mark.parametrize(
    ("extra", "player_data", "field", "said"),
    [
        ({}, {"": "x"}, "players[0].data['']", "at least 1 character"),
        ({}, {"a\u0085b": "x"}, r"players[0].data['a\x85b']", "pattern"),
        ({}, {"k": "v" * 1025}, "players[0].data.k", "at most 1024 characters"),
        ({}, {f"k{i}": "v" for i in range(17)}, "players[0].data", "at most 16 items"),
        ({"data": {"k": 7}}, {}, "data.k", "valid string"),
        ({"data": {"big": "x" * 1000}}, {"k": "y" * 100}, "data", "over the 2048-byte limit"),
        ({}, {f"k{i}": "x" * 1000 for i in range(3)}, "data", "over the 2048-byte limit"),
    ],
)
def test_bad_data_is_a_dead_letter_naming_the_field(extra, player_data, field, said) -> None:  # type: ignore[no-untyped-def]
    folder = Folder.from_settings(
        Settings(partitions=1, queues=(QueueSettings(name="1v1", regions=("eu",)),))
    )
    players = [
        {"player_id": "p-1", "ratings": {"sc2": 1}, "data": player_data},
        {"player_id": "p-2", "ratings": {"sc2": 1}},
    ]
    value = join("t-1", "1v1", players, **extra)
    folded = folder.fold(folder.new_state(0), queue_key("1v1", "eu"), value, 0)
    assert folded.step is None
    assert folded.rejection.field == field
    assert said in folded.rejection.reason and "\n" not in folded.rejection.reason


def _squads() -> QueueSettings:
    # examples/rules-br-squads.toml's shape: 25 squads of 4, one match of 100 players.
    return QueueSettings(
        name="br", strategy="rebalance", team_count=25, team_size=4, regions=("eu",)
    )


def _ids(index: int, id_chars: int) -> tuple[str, str]:
    """A ticket's and its player's ids of ``id_chars`` characters, most of two bytes."""
    return f"t{index:03d}".ljust(id_chars, "é"), f"p{index:03d}".ljust(id_chars, "é")


def _solo(index: int, data_bytes: int, id_chars: int = 36) -> bytes:
    """A solo join with ids of ``id_chars`` characters and ``data_bytes`` of data."""
    ticket, player = _ids(index, id_chars)
    data = {"loadout": "x" * data_bytes} if data_bytes else {}
    return join(ticket, "br", [{"player_id": player, "ratings": {"mmr": 1500}, "data": data}])


def test_a_join_whose_seats_would_outgrow_its_share_of_the_match_event_is_rejected() -> None:
    """A battle royale of 100 seats cannot carry 700 bytes of data each in one 64 KiB
    event: such a join is refused at join, never queued to break its wave (ADR 0208)."""
    folder = Folder.from_settings(Settings(partitions=1, queues=(_squads(),)))
    folded = folder.fold(folder.new_state(0), queue_key("br", "eu"), _solo(1, 700), 0)
    (dequeued,) = folded.step.dequeued
    assert dequeued.reason.name == "REJECTED"
    assert "a match of this queue is one event of at most 65536 bytes" in dequeued.detail
    assert "leaves 479 a player" in dequeued.detail


def test_a_full_match_of_joins_within_their_shares_is_one_event() -> None:
    """The bound holds at its edge: 100 players with the longest ids their share leaves
    room for and data up to it make one MatchCreated within the 64 KiB limit."""
    from matcher.event_size import seats_bytes

    id_chars, share = 60, 479
    ticket, player = _ids(0, id_chars)
    data_bytes = share - seats_bytes(ticket, (), [(player, (("loadout", ""),))])
    joins = [_solo(i, data_bytes, id_chars) for i in range(100)]
    (match,) = matches(wave_outputs(_squads(), "eu", joins, T0 + 5_000, "cfg"))
    assert 40_000 < len(match) <= 65_536
    assert len(seats(match)) == 100
    # One byte more of data and the join is refused.
    folder = Folder.from_settings(Settings(partitions=1, queues=(_squads(),)))
    value = _solo(100, data_bytes + 1, id_chars)
    folded = folder.fold(folder.new_state(0), queue_key("br", "eu"), value, 0)
    assert folded.step.dequeued[0].reason.name == "REJECTED"


def test_the_matchers_event_limit_is_the_contracts() -> None:
    from matcher.event_size import MATCH_EVENT_BYTES
    from schemas.codec import MAX_EVENT_BYTES

    assert MATCH_EVENT_BYTES == MAX_EVENT_BYTES


def test_a_queue_whose_matches_leave_too_little_of_the_event_a_player_stops_the_start() -> None:
    from streams.settings import SettingsError, load_settings

    queue = {"name": "huge", "strategy": "rebalance", "team_count": 64, "team_size": 5}
    with pytest.raises(SettingsError) as caught:
        load_settings(queues=[queue])
    assert str(caught.value) == (
        "queues.0: queue 'huge': team_size: a match of this queue leaves 98 bytes a player "
        "for ids and data in one 65536-byte event (at least 128); make its matches smaller"
    )
    load_settings(queues=[{**queue, "team_size": 4}])  # 256 players: 130 bytes a player
