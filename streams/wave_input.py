"""Offline wave files (docs/wave-format.md): JSON in, matcher value types out, and back.

Two input formats: the 1v1 format of issue 2 (``"players"``) and the generic one
(``"tickets"`` and a ``"profile"``) for every strategy. Every problem is a
:class:`WaveInputError` whose message is one line naming the field, e.g.
``players[3].bw_mmr: must be >= 0``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matcher.core import (
    Player,
    QueueProfile,
    ServerRoute,
    TeamStep,
    Ticket,
    WaitingTicket,
    WaveResult,
    WaveSnapshot,
)
from schemas.models import MAX_RATING

DUEL_QUEUE = "1v1"
DUEL_REGION = "offline"


class WaveInputError(ValueError):
    """A bad wave file; the message is one line that names the field."""


def _get(
    obj: Mapping[str, Any],
    path: str,
    key: str,
    kind: type | tuple[type, ...],
    default: Any = ...,
    nullable: bool = False,
) -> Any:
    where = f"{path}.{key}" if path else key
    if key not in obj:
        if default is ...:
            raise WaveInputError(f"{where}: missing")
        return default
    value = obj[key]
    if value is None and nullable:
        return None
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
        names = " or ".join(k.__name__ for k in kinds) + (" or null" if nullable else "")
        raise WaveInputError(f"{where}: must be {_article(names)}, got {type(value).__name__}")
    return value


def _article(names: str) -> str:
    names = names.replace("str", "string").replace("int", "integer").replace("dict", "object")
    names = names.replace("list", "list")
    return ("an " if names[0] in "aeiou" else "a ") + names


#: The largest whole number a wave file may give where no tighter bound applies: the
#: strategies' arrays hold 64-bit integers.
MAX_INT = 2**62
#: The most waves a ticket may have waited: a wave a second for eleven days.
MAX_WAIT_CYCLES = 1_000_000


def _int(
    obj: Mapping[str, Any],
    path: str,
    key: str,
    minimum: int | None = 0,
    default: Any = ...,
    nullable: bool = False,
    maximum: int = MAX_INT,
) -> Any:
    value = _get(obj, path, key, int, default, nullable)
    if isinstance(value, int) and minimum is not None and value < minimum:
        raise WaveInputError(f"{path + '.' if path else ''}{key}: must be >= {minimum}")
    if isinstance(value, int) and not -MAX_INT <= value <= maximum:
        bound = f"<= {maximum}" if value > 0 else f">= {-MAX_INT}"
        raise WaveInputError(f"{path + '.' if path else ''}{key}: must be {bound}")
    return value


def _strings(obj: Mapping[str, Any], path: str, key: str, default: Any = ...) -> tuple[str, ...]:
    values = _get(obj, path, key, list, default)
    for i, value in enumerate(values):
        if not isinstance(value, str):
            raise WaveInputError(f"{path + '.' if path else ''}{key}[{i}]: must be a string")
    return tuple(values)


def _objects(obj: Mapping[str, Any], path: str, key: str) -> list[dict[str, Any]]:
    values = _get(obj, path, key, list)
    for i, value in enumerate(values):
        if not isinstance(value, dict):
            raise WaveInputError(f"{path + '.' if path else ''}{key}[{i}]: must be an object")
    return list(values)


def _known(obj: Mapping[str, Any], path: str, fields: frozenset[str]) -> None:
    """Refuse a field the format does not have: a misspelt one (``wait_cycle``) would
    otherwise be ignored and the offline answer differ silently from the worker's."""
    unknown = sorted(set(obj) - fields)
    if unknown:
        raise WaveInputError(f"{path + '.' if path else ''}{unknown[0]}: unknown field")


def _unique(ids: list[str], path: str, key: str) -> None:
    seen: set[str] = set()
    for i, value in enumerate(ids):
        if value in seen:
            raise WaveInputError(f"{path}[{i}].{key}: duplicate id {value!r}")
        seen.add(value)


def parse_wave(data: Any, strategy: str) -> tuple[WaveSnapshot, QueueProfile, bool]:
    """Return the snapshot, the profile and whether ``data`` is in the 1v1 format."""
    if not isinstance(data, dict):
        raise WaveInputError("wave: must be a JSON object")
    if "players" in data and "tickets" not in data:
        return (*parse_duel_wave(data, strategy), True)
    return (*parse_generic_wave(data, strategy), False)


def parse_duel_wave(data: dict[str, Any], strategy: str) -> tuple[WaveSnapshot, QueueProfile]:
    """The 1v1 format: one ticket per player, ticket id = player id."""
    _known(data, "", DUEL_FIELDS)
    wave_id = _get(data, "", "wave_id", str)
    seed = _int(data, "", "seed", minimum=None)
    population = _int(data, "", "active_population")
    maps = _strings(data, "", "maps")
    players = _objects(data, "", "players")
    tickets = tuple(_duel_ticket(p, f"players[{i}]") for i, p in enumerate(players))
    _unique([w.ticket.ticket_id for w in tickets], "players", "id")
    snapshot = WaveSnapshot(DUEL_QUEUE, DUEL_REGION, wave_id, 0, seed, 0, tickets, population)
    profile = _profile(
        "",
        DUEL_QUEUE,
        strategy,
        maps,
        _routes(data, ""),
        _strings(data, "", "fallback_servers", ("default",)) or ("default",),
        options=_get(data, "", "options", dict, {}),
        rules=_get(data, "", "rules", dict, {}),
    )
    _admitted(tickets, profile, "players")
    return snapshot, profile


def _duel_ticket(obj: dict[str, Any], path: str) -> WaitingTicket:
    _known(obj, path, DUEL_PLAYER_FIELDS)
    player_id = _get(obj, path, "id", str)
    if not player_id:
        raise WaveInputError(f"{path}.id: must not be empty")
    # A race the player does not play: null, or left out.
    bw = _int(obj, path, "bw_mmr", nullable=True, default=None, maximum=MAX_RATING)
    sc2 = _int(obj, path, "sc2_mmr", nullable=True, default=None, maximum=MAX_RATING)
    if bw is None and sc2 is None:
        raise WaveInputError(f"{path}: needs bw_mmr or sc2_mmr (a player with neither race)")
    ratings = tuple((race, mmr) for race, mmr in (("bw", bw), ("sc2", sc2)) if mmr is not None)
    player = Player(player_id, ratings, vetoed_maps=_strings(obj, path, "vetoed_maps"))
    region = _get(obj, path, "region", str)
    ticket = Ticket(player_id, DUEL_QUEUE, region, (player,), 0)
    return WaitingTicket(ticket, _int(obj, path, "wait_cycles", maximum=MAX_WAIT_CYCLES))


def _routes(obj: dict[str, Any], path: str) -> tuple[ServerRoute, ...]:
    if "routes" not in obj:
        return ()
    where = f"{path}.routes" if path else "routes"
    routes = []
    for i, route in enumerate(_objects(obj, path, "routes")):
        here = f"{where}[{i}]"
        _known(route, here, frozenset({"region_a", "region_b", "servers"}))
        routes.append(
            ServerRoute(
                _get(route, here, "region_a", str),
                _get(route, here, "region_b", str),
                _strings(route, here, "servers"),
            )
        )
    return tuple(routes)


#: Each object's fields, in both formats: anything else is refused, never ignored (a rule
#: or a wait under a misspelt name would otherwise make the offline answer differ silently).
DUEL_FIELDS = frozenset(
    {
        "wave_id",
        "seed",
        "active_population",
        "maps",
        "players",
        "routes",
        "fallback_servers",
        "options",
        "rules",
    }
)
DUEL_PLAYER_FIELDS = frozenset({"id", "bw_mmr", "sc2_mmr", "wait_cycles", "region", "vetoed_maps"})
GENERIC_FIELDS = frozenset(
    {
        "wave_id",
        "wave_number",
        "seed",
        "queue",
        "region",
        "closed_at_ms",
        "active_population",
        "profile",
        "tickets",
    }
)
TICKET_FIELDS = frozenset(
    {"ticket_id", "party_id", "wait_cycles", "joined_at_ms", "region", "priority", "players"}
)
PLAYER_FIELDS = frozenset(
    {
        "player_id",
        "ratings",
        "roles",
        "vetoed_maps",
        "latency_ms",
        "can_host",
        "attributes",
        "numbers",
        "peer_latency_ms",
        "blocked_players",
        "deviation",
    }
)
PROFILE_FIELDS = frozenset(
    {
        "maps",
        "routes",
        "fallback_servers",
        "team_count",
        "team_size",
        "team_size_min",
        "roles",
        "options",
        "rules",
        "team_steps",
        "team_sizes",
        "team_roles",
    }
)


def parse_generic_wave(data: dict[str, Any], strategy: str) -> tuple[WaveSnapshot, QueueProfile]:
    """The generic format: tickets of one or more players and a queue profile."""
    _known(data, "", GENERIC_FIELDS)
    queue, region = _get(data, "", "queue", str), _get(data, "", "region", str)
    profile_data = _get(data, "", "profile", dict)
    _known(profile_data, "profile", PROFILE_FIELDS)
    team_count = _int(profile_data, "profile", "team_count", minimum=1, default=2)
    team_size = _int(profile_data, "profile", "team_size", minimum=1, default=1)
    profile = _profile(
        "profile.",
        queue,
        strategy,
        _strings(profile_data, "profile", "maps"),
        _routes(profile_data, "profile"),
        _strings(profile_data, "profile", "fallback_servers", ("default",)) or ("default",),
        team_count,
        team_size,
        _int(profile_data, "profile", "team_size_min", minimum=1, default=None, nullable=True),
        _strings(profile_data, "profile", "roles", ()),
        _get(profile_data, "profile", "options", dict, {}),
        rules=_get(profile_data, "profile", "rules", dict, {}),
        team_steps=_team_steps(profile_data, strategy, team_count, team_size),
        team_sizes=tuple(_ints(profile_data, "team_sizes")),
        team_roles=_team_roles(profile_data),
    )
    tickets = tuple(
        _ticket(t, f"tickets[{i}]", queue, region)
        for i, t in enumerate(_objects(data, "", "tickets"))
    )
    _unique([w.ticket.ticket_id for w in tickets], "tickets", "ticket_id")
    seen: set[str] = set()  # a player seated twice, named where the file has it
    for i, waiting in enumerate(tickets):
        for j, player in enumerate(waiting.ticket.players):
            if player.player_id in seen:
                raise WaveInputError(
                    f"tickets[{i}].players[{j}].player_id: duplicate id {player.player_id!r}"
                )
            seen.add(player.player_id)
    _admitted(tickets, profile, "tickets")
    snapshot = WaveSnapshot(
        queue,
        region,
        _get(data, "", "wave_id", str),
        _int(data, "", "wave_number", default=0),
        _int(data, "", "seed", minimum=None),
        _int(data, "", "closed_at_ms", default=0),
        tickets,
        _int(data, "", "active_population"),
    )
    return snapshot, profile


def _ints(profile: Mapping[str, Any], key: str) -> list[int]:
    values: list[int] = _get(profile, "profile", key, list, [])
    for i, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise WaveInputError(f"profile.{key}[{i}]: must be an integer >= 1")
    return values


def _team_roles(profile: Mapping[str, Any]) -> tuple[tuple[str, ...], ...]:
    """Each team's role slots, as ``profile.team_roles[i]`` names a bad one."""
    teams = _get(profile, "profile", "team_roles", list, [])
    by_team = {f"team_roles[{i}]": roles for i, roles in enumerate(teams)}
    return tuple(_strings(by_team, "profile", key) for key in by_team)


def _team_steps(
    profile: Mapping[str, Any], strategy: str, team_count: int, team_size: int
) -> tuple[TeamStep, ...]:
    """The profile's ``team_steps``, each a table as in a queue's settings."""
    from matcher.strategies import check_team_steps_honoured
    from matcher.teams.step_config import parse_team_steps

    if "team_steps" not in profile:
        return ()
    steps = _objects(profile, "profile", "team_steps")
    try:
        if steps:
            check_team_steps_honoured(strategy)
        return parse_team_steps(steps, team_count, team_size)
    except ValueError as error:
        raise WaveInputError(f"profile.{str(error).splitlines()[0]}") from None


def _profile(where: str, *fields: Any, **named: Any) -> QueueProfile:
    """The wave's profile with its options and rules parsed and checked as the worker
    checks them at start (docs/rules.md); ``where`` prefixes the field named by an error."""
    from matcher.strategies import check_profile, check_rules

    try:
        profile = QueueProfile(*fields, **named)
        check_profile(profile)
        check_rules(profile)
    except ValueError as error:
        message = str(error).splitlines()[0]
        if where and message.startswith(where.rstrip(".") + ":"):  # it names its field
            where = ""
        raise WaveInputError(f"{where}{message}") from None
    if not profile.maps:
        raise WaveInputError(f"{where}maps: must name at least one map (a match is played on one)")
    return profile


def _ticket(obj: dict[str, Any], path: str, queue: str, region: str) -> WaitingTicket:
    _known(obj, path, TICKET_FIELDS)
    players = tuple(
        _player(p, f"{path}.players[{i}]") for i, p in enumerate(_objects(obj, path, "players"))
    )
    if not players:
        raise WaveInputError(f"{path}.players: must not be empty")
    ticket = Ticket(
        _get(obj, path, "ticket_id", str),
        queue,
        _get(obj, path, "region", str, region),
        players,
        _int(obj, path, "joined_at_ms", default=0),
        _get(obj, path, "party_id", str, None, nullable=True),
        priority=_priority(obj, path),
    )
    return WaitingTicket(ticket, _int(obj, path, "wait_cycles", maximum=MAX_WAIT_CYCLES))


def _priority(obj: dict[str, Any], path: str) -> int:
    from schemas.models import MAX_PRIORITY

    priority = _int(obj, path, "priority", minimum=-MAX_PRIORITY, default=0)
    if priority > MAX_PRIORITY:
        raise WaveInputError(f"{path}.priority: must be <= {MAX_PRIORITY}")
    return int(priority)


def _player(obj: dict[str, Any], path: str) -> Player:
    """The player as a join carries it: the wire's own limits (finite numbers, at most 16
    attributes, 100 blocked players...), so a wave file holds nothing a worker refuses."""
    from schemas.codec import validate_as
    from schemas.errors import InvalidEvent
    from schemas.models import Player as WirePlayer
    from streams.wire.inbound import player_from_wire

    _known(obj, path, PLAYER_FIELDS)
    try:
        return player_from_wire(validate_as(WirePlayer, obj))
    except InvalidEvent as error:
        raise WaveInputError(f"{path}.{str(error).removeprefix('Player ')}") from None


def _admitted(tickets: tuple[WaitingTicket, ...], profile: QueueProfile, path: str) -> None:
    """Refuse a ticket the worker would reject at join (a player without the rules' rating,
    a party that breaks a rule for good...): a wave never holds one."""
    from matcher.queue.admission import admission_problem

    for i, waiting in enumerate(tickets):
        problem = admission_problem(waiting.ticket, profile)
        if problem is not None:
            raise WaveInputError(f"{path}[{i}]: rejected at join: {problem}")


def duel_output(result: WaveResult) -> dict[str, Any]:
    """The 1v1 output format of issue 2."""
    matches = []
    for match in result.matches:
        bw, sc2 = match.teams[0].seats[0], match.teams[1].seats[0]
        matches.append(
            {
                "match_id": match.match_id,
                "bw_player": bw.player_id,
                "sc2_player": sc2.player_id,
                "bw_mmr": bw.rating,
                "sc2_mmr": sc2.rating,
                "mmr_diff": abs(bw.rating - sc2.rating),
                "map": match.map_name,
                "server": match.server,
                "channel": match.channel,
            }
        )
    return {"matches": matches, "unmatched": list(result.unmatched), "stats": dict(result.stats)}


def generic_output(result: WaveResult) -> dict[str, Any]:
    """The generic output format: teams of seats, placement, quality, unmatched, stats."""
    matches = [
        {
            "match_id": match.match_id,
            "teams": [
                {
                    "name": team.name,
                    "seats": [
                        {
                            "ticket_id": s.ticket_id,
                            "player_id": s.player_id,
                            "role": s.role,
                            "rating": s.rating,
                        }
                        for s in team.seats
                    ],
                }
                for team in match.teams
            ],
            "map": match.map_name,
            "server": match.server,
            "channel": match.channel,
            "quality": dict(match.quality),
        }
        for match in result.matches
    ]
    return {"matches": matches, "unmatched": list(result.unmatched), "stats": dict(result.stats)}
