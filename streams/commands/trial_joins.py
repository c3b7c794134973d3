"""The joins `wavematch up`'s banner offers to try: one match's worth of players for a
queue, each fitting its shape and rules, proven to match by the queue's own strategy.

The players are built from the queue's settings (team shape, roles, the rules' rating
key, the attributes, numbers and latencies its rules read); then the strategy runs on
them as on a wave that has just closed. A queue whose rules the builder cannot satisfy
gets no joins (None), never joins that would not match.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from streams.settings import QueueSettings, Settings

#: The rating every built player has (a duel's second side is a little higher).
RATING = 1500
#: A latency within every documented limit, to the queue's region.
LATENCY_MS = 20
#: The trial wave's instant (any valid one: the players join as it closes).
AT_MS = 1_767_225_600_000


def trial_players(settings: Settings, queue: QueueSettings) -> list[dict[str, Any]] | None:
    """One player per ticket, as TicketJoined spells them, that the queue's strategy
    matches together in a wave of their own; None when these players would not match."""
    rules = dict(queue.rules)
    rating = rules.get("rating")
    players = []
    for number, (team, role) in enumerate(_seats(queue)):
        value = RATING + 20 * (number % 2)
        if queue.strategy in ("optimal", "ladder-v2.1") and not rating:
            # The default duel pairs a BW player against an SC2 player, never two of a kind.
            ratings = {("bw", "sc2")[number % 2]: value}
        else:
            ratings = {
                role or rating or "mmr": value,
                **({rating: value} if rating and role else {}),
            }
        players.append((team, {"player_id": _name(number), "ratings": ratings}))
    plain = [dict(player) for _, player in players]  # ratings alone: the shortest joins
    if _matched(settings, queue, plain):
        return plain
    _fit_rules(rules, players, queue.regions[0])
    fitted = [player for _, player in players]
    return fitted if _matched(settings, queue, fitted) else None


_NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy")


def _name(number: int) -> str:
    return _NAMES[number] if number < len(_NAMES) else f"player-{number + 1}"


def join_command(head: str, player: Mapping[str, Any]) -> str:
    """``head`` (``wavematch join ... --region R``) with ``player`` as --player when its
    ratings say it all, else as --player-json."""
    if set(player) == {"player_id", "ratings"}:
        ratings = ",".join(f"{key}={value}" for key, value in player["ratings"].items())
        return f"{head} --player {player['player_id']}:{ratings}"
    return f"{head} --player-json '{json.dumps(player, separators=(',', ':'))}'"


def _seats(queue: QueueSettings) -> Iterator[tuple[int, str | None]]:
    """(team number, the role its seat asks for or None), seat by seat."""
    sizes = queue.team_sizes or (queue.team_size,) * queue.team_count
    for team, size in enumerate(sizes):
        roles: tuple[str, ...] = queue.team_roles[team] if queue.team_roles else queue.roles
        for seat in range(size):
            yield team, roles[seat % len(roles)] if roles else None


def _fit_rules(
    rules: Mapping[str, Any], players: list[tuple[int, dict[str, Any]]], region: str
) -> None:
    """Give ``players`` what the rules read: one latency, shared attribute values, the
    counts of the ``count`` checks, numbers within the ``number`` checks."""
    for _, player in players:
        player["latency_ms"] = {region: LATENCY_MS}
    for rule in rules.get("attributes", ()):
        _set_all(players, "attributes", rule["name"], "x")
    checks = list(_flattened(rules.get("checks", ())))
    for check in checks:
        kind, attribute = check.get("kind"), check.get("attribute")
        if kind in ("equal", "intersect") and attribute:
            _set_all(players, "attributes", attribute, "x")
        elif kind == "number" and attribute:
            value = check.get("min", check.get("max", 10))
            _set_all(players, "numbers", attribute, value)
    for sort in rules.get("sort", ()):
        if "number" in sort:
            _set_all(players, "numbers", sort["number"], 10, keep=True)
    counted: set[tuple[int, str]] = set()  # (player, attribute) a count check has set
    for check in checks:  # the counts last: they overwrite what the others shared
        if check.get("kind") == "count" and check.get("attribute") and check.get("min"):
            _count(players, check, counted)
    for check in checks:
        if check.get("kind") in ("unique", "disjoint") and check.get("attribute"):
            for number, (_, player) in enumerate(players):
                player.setdefault("attributes", {})[check["attribute"]] = f"v{number}"


def _flattened(checks: Any) -> Iterator[Mapping[str, Any]]:
    """Every check, the branches of ``all`` and ``any`` included (``not`` is left out:
    what it forbids the players are not given)."""
    for check in checks:
        if check.get("kind") in ("all", "any"):
            yield from _flattened(check.get("rules", ()))
        elif check.get("kind") != "not":
            yield check


def _set_all(
    players: list[tuple[int, dict[str, Any]]], field: str, name: str, value: Any, keep: bool = False
) -> None:
    for _, player in players:
        values = player.setdefault(field, {})
        if not keep or name not in values:
            values[name] = value


def _count(
    players: list[tuple[int, dict[str, Any]]],
    check: Mapping[str, Any],
    counted: set[tuple[int, str]],
) -> None:
    """``check['min']`` players of each team (``per = "team"``) or of the match take its
    value, from players no earlier count check (``counted``) gave a value of that
    attribute."""
    attribute, value, wanted = check["attribute"], check["value"], check["min"]
    teams = sorted({team for team, _ in players}) if check.get("per") == "team" else [None]
    for team in teams:
        free = [
            (number, player)
            for number, (seat_team, player) in enumerate(players)
            if (team is None or seat_team == team) and (number, attribute) not in counted
        ]
        for number, player in free[:wanted]:
            player.setdefault("attributes", {})[attribute] = value
            counted.add((number, attribute))


def _matched(settings: Settings, queue: QueueSettings, players: list[dict[str, Any]]) -> bool:
    """Whether the queue's strategy, on a wave of just these players (one ticket each,
    joined at the wave's close), makes one match seating them all."""
    from matcher.core import WaitingTicket, WaveSnapshot
    from matcher.queue.admission import admission_problem
    from matcher.strategies import run_wave
    from schemas.models import TicketJoined
    from streams.wire.inbound import ticket_from_wire

    profile = settings.profiles()[queue.name]
    tickets = []
    for number, player in enumerate(players):
        try:
            event = TicketJoined.model_validate(
                {
                    "ticket_id": f"try-{number + 1}",
                    "queue": queue.name,
                    "region": queue.regions[0],
                    "players": [player],
                    "joined_at_ms": AT_MS,
                }
            )
        except ValueError:
            return False
        ticket = ticket_from_wire(event)
        if admission_problem(ticket, profile):  # the worker's own check at join, rules too
            return False
        tickets.append(WaitingTicket(ticket, 0))
    snapshot = WaveSnapshot(queue.name, queue.regions[0], "try", 1, 1, AT_MS, tuple(tickets))
    result = run_wave(snapshot, profile)
    return len(result.matches) == 1 and not result.unmatched
