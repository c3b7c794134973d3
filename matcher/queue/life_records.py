"""The held tickets of a region (matcher.queue.tickets) as JSON-able snapshot values."""

from __future__ import annotations

from typing import Any

from matcher.core import Match, Seat, Team, Ticket
from matcher.queue.events import Search
from matcher.queue.lifecycle import BackfillRequested, BackfillTeam, MatchProposal
from matcher.queue.tickets import Held, Lifecycle, QueuedTicket


def match_to_record(match: Match) -> list[Any]:
    teams = [
        [t.name, [[s.ticket_id, s.player_id, s.role, s.rating, *_data(s)] for s in t.seats]]
        for t in match.teams
    ]
    return [
        match.match_id,
        teams,
        match.map_name,
        match.server,
        match.channel,
        [list(q) for q in match.quality],
    ]


def match_from_record(record: list[Any]) -> Match:
    match_id, teams, map_name, server, channel, quality = record
    return Match(
        match_id,
        tuple(Team(name, tuple(_seat(*seat) for seat in seats)) for name, seats in teams),
        map_name,
        server,
        channel,
        tuple((name, value) for name, value in quality),
    )


def _data(seat: Seat) -> list[Any]:
    """A seat's data as an optional fifth item: a seat without keeps its earlier record."""
    return [[list(d) for d in seat.data]] if seat.data else []


def _seat(ticket_id: str, player_id: str, role: str, rating: int, *data: Any) -> Seat:
    return Seat(
        ticket_id, player_id, role, rating, tuple((k, v) for k, v in data[0]) if data else ()
    )


def life_to_record(life: Lifecycle, ticket_to_record: Any) -> dict[str, Any]:
    def held(h: Held) -> list[Any]:
        p = h.proposal
        proposal = (
            None
            if p is None
            else [
                match_to_record(p.match),
                p.queue,
                p.region,
                p.wave_id,
                p.strategy,
                p.config_fingerprint,
                p.at_ms,
                p.deadline_at_ms,
            ]
        )
        tickets = [[ticket_to_record(q.ticket), q.joined_wave] for q in h.tickets.values()]
        return [tickets, h.deadline_ms, proposal, sorted(h.accepted)]

    record = {
        "proposals": [[m, held(h)] for m, h in life.proposals.items()],
        "placing": [[m, held(h)] for m, h in life.placing.items()],
        "pending": [[ticket_to_record(t), sorted(g)] for t, g in life.pending.values()],
        "claimed": [[t, list(p)] for t, p in life.claimed.items()],
        "placement_failures": [[t, n] for t, n in life.placement_failures.items()],
        "closed": [[m, at] for m, at in life.closed.items()],
        "backfills": [
            _backfill_record(b, life.backfill_seated.get(b.session_id, ()), ticket_to_record)
            for b in life.backfills.values()
        ],
    }
    if life.places:  # only with tickets searching several places (docs/adr/0145)
        record["places"] = [
            [t, [[s.queue, s.region, s.open_after_ms] for s in p]] for t, p in life.places.items()
        ]
        record["unopened"] = [[ticket_to_record(t), at] for t, at in life.unopened.values()]
        record["tentative"] = [[m, held(h)] for m, h in life.tentative.items()]
        if life.paused:  # only while another place holds one of them (docs/adr/0204)
            record["paused"] = [[t, m] for t, m in life.paused.items()]
    if life.early_leaves:  # only after a leave of a ticket not held here (docs/adr/0211)
        record["early_leaves"] = [[t, r, at] for t, (r, at) in life.early_leaves.items()]
    if life.unfit:  # only after a configuration switch refused held tickets (docs/adr/0213)
        record["unfit"] = [[t, problem] for t, problem in life.unfit.items()]
    if life.refused:  # only after a copy was refused here (docs/adr/0207)
        record["refused"] = [
            [ticket_to_record(t), [[s.queue, s.region, s.open_after_ms] for s in p]]
            for t, p in life.refused.values()
        ]
    return record


def _backfill_record(
    event: BackfillRequested, seated: tuple[Ticket, ...], ticket_to_record: Any
) -> list[Any]:
    teams = [[t.name, [list(p) for p in t.players], t.open_slots] for t in event.teams]
    record = [event.session_id, event.queue, event.region, teams, event.at_ms]
    record.append(event.deadline_at_ms)
    # Trailing and only after a partial fill: a request without keeps its earlier record.
    return [*record, [ticket_to_record(t) for t in seated]] if seated else record


def _backfill_from_record(record: list[Any]) -> BackfillRequested:
    session_id, queue, region, teams, at_ms, deadline = record[:6]
    return BackfillRequested(
        session_id,
        queue,
        region,
        tuple(BackfillTeam(n, tuple((p, r) for p, r in players), o) for n, players, o in teams),
        at_ms,
        deadline,
    )


def life_from_record(record: dict[str, Any], ticket_from_record: Any) -> Lifecycle:
    players: dict[str, str] = {}

    def held(item: list[Any]) -> Held:
        tickets, deadline, proposal, accepted = item
        queued = {}
        for ticket_record, joined_wave in tickets:
            ticket = ticket_from_record(ticket_record)
            queued[ticket.ticket_id] = QueuedTicket(ticket, joined_wave)
            for player in ticket.players:
                players[player.player_id] = ticket.ticket_id
        made = None
        if proposal is not None:
            match, *rest = proposal
            made = MatchProposal(match_from_record(match), *rest)
        return Held(queued, deadline, made, set(accepted))

    proposals = {m: held(h) for m, h in record["proposals"]}
    placing = {m: held(h) for m, h in record["placing"]}
    pending = {}
    for ticket_record, granted in record["pending"]:
        ticket = ticket_from_record(ticket_record)
        pending[ticket.ticket_id] = (ticket, set(granted))
        for player in ticket.players:
            players[player.player_id] = ticket.ticket_id
    unopened = {}
    for ticket_record, at in record.get("unopened", ()):
        ticket = ticket_from_record(ticket_record)
        unopened[ticket.ticket_id] = (ticket, at)
        for player in ticket.players:
            players[player.player_id] = ticket.ticket_id
    tentative = {m: held(h) for m, h in record.get("tentative", ())}
    places = {t: tuple(Search(q, r, at) for q, r, at in p) for t, p in record.get("places", ())}
    refused = {}
    for ticket_record, searched in record.get("refused", ()):
        ticket = ticket_from_record(ticket_record)
        refused[ticket.ticket_id] = (ticket, tuple(Search(q, r, at) for q, r, at in searched))
    backfills, seated = {}, {}
    for item in record.get("backfills", ()):
        event = _backfill_from_record(item)
        backfills[event.session_id] = event
        if len(item) > 6:
            seated[event.session_id] = tuple(ticket_from_record(t) for t in item[6])
    return Lifecycle(
        proposals=proposals,
        placing=placing,
        pending=pending,
        players=players,
        claimed={t: tuple(p) for t, p in record["claimed"]},
        placement_failures={t: n for t, n in record["placement_failures"]},
        closed={m: at for m, at in record["closed"]},
        backfills=backfills,
        backfill_seated=seated,
        places=places,
        unopened=unopened,
        tentative=tentative,
        paused={t: m for t, m in record.get("paused", ())},
        refused=refused,
        early_leaves={t: (r, at) for t, r, at in record.get("early_leaves", ())},
        unfit={t: problem for t, problem in record.get("unfit", ())},
    )
