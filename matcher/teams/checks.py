"""The checker beside every team strategy: a wave result a team queue may publish.

:func:`team_result_problems` first applies the rules common to all strategies
(:func:`matcher.checks.wave_result_problems`: each ticket at most once, parties intact
and on one team, unmatched exact, derived ids, maps), then the team rules: the match
has the queue's team count with names team1..teamN, each team's size is legal, the
teams of a match are disjoint, each seat's role is a slot of the queue filled by a
player who offered it (and at most as many seats per role as slots), each seat carries
the player's rating for that role, and the published quality figures agree with the seats.
Last, a strict wave's result must be maximal: its unmatched tickets can make no match
under the queue's rules (:mod:`matcher.teams.maximal`). A queue with ``team_steps``
(:mod:`matcher.teams.steps`) also accepts a match of a step's shape when its least waited
ticket has reached that step, and its unmatched tickets that have reached a step can make
no match of that step's shape either.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from matcher.checks import wave_result_problems
from matcher.core import Match, Player, QueueProfile, Seat, WaveResult, WaveSnapshot
from matcher.rules.check import waited_s
from matcher.teams.imbalance import rating_spread, team_rating_diff
from matcher.teams.maximal import left_match_problem
from matcher.teams.model import TeamShape, parties_of, seat_rating, team_shape
from matcher.teams.options import GameQueueConfig, game_queue_config
from matcher.teams.role_parties import interval_order_problem
from matcher.teams.skill import skilled_snapshot
from matcher.teams.skill_checks import skill_problems
from matcher.teams.steps import step_shapes, waited_at_least

#: Quality figures a team match must carry; the first two are re-derived from the seats.
REQUIRED_QUALITY = ("team_rating_diff", "rating_spread", "imbalance")
_TOLERANCE = 1e-6


def team_result_problems(
    snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult
) -> list[str]:
    """Return every way ``result`` breaks the common or the team rules (empty if none).

    >>> from matcher.core import WaveResult, WaveSnapshot
    >>> snap = WaveSnapshot("q", "eu", "1", 1, 0, 0, ())
    >>> team_result_problems(snap, QueueProfile("q", "rebalance", ("m",)), WaveResult("x", (), ()))
    []

    Notes: O(players) time.
    """
    problems = wave_result_problems(snapshot, profile, result)
    try:
        shape = team_shape(profile)
        skill = _skill_options(profile)
    except ValueError as error:
        return [*problems, f"profile: {error}"]
    if skill is not None:
        # Seats carry the composite rating; tickets lacking a dimension could not play.
        snapshot, vectors = skilled_snapshot(snapshot, skill.skill_dimensions)
        problems.extend(
            skill_problems(
                snapshot, profile, result, skill.skill_dimensions, skill.imbalance, vectors
            )
        )
    players = {
        (waiting.ticket.ticket_id, player.player_id): player
        for waiting in snapshot.tickets
        for player in waiting.ticket.players
    }
    steps = step_shapes(profile)
    joined = {waiting.ticket.ticket_id: waiting.ticket.joined_at_ms for waiting in snapshot.tickets}
    for match in result.matches:
        found = match_problems(match, shape, players)
        if found and steps:
            found = _stepped_problems(match, found, steps, players, snapshot, joined)
        problems.extend(found)
    if not problems and _interval_ordered(profile, result, shape):
        parties, _ = parties_of(snapshot, shape)
        games = [match.ticket_ids() for match in result.matches]
        order = interval_order_problem(parties, games)
        problems.extend([f"{order} (role_parties)"] if order else [])
    if not problems:
        left = left_match_problem(snapshot, profile, result, shape)
        problems.extend([left] if left else [])
    unmatched = frozenset(result.unmatched)
    for after_s, stepped, step_shape in steps if not problems else ():
        waited = waited_at_least(snapshot, after_s, unmatched)
        left = left_match_problem(waited, stepped, result, step_shape)
        problems.extend([f"{left} after {after_s:g} s (team_steps)"] if left else [])
    return problems


def _interval_ordered(profile: QueueProfile, result: WaveResult, shape: TeamShape) -> bool:
    """Whether the wave's games must be role intervals, shortest first: role_parties =
    "interval" with nothing else deciding which games are played (rules drop and complete
    games, team steps close the wave again, max_imbalance drops games)."""
    if profile.strategy != "game-queue" or profile.options.get("role_parties") != "interval":
        return False
    if not shape.roles or profile.rules or profile.team_steps:
        return False
    if "max_imbalance" in profile.options:
        return False
    return not any(name == "role_interval_truncated" for name, _ in result.stats)


def _skill_options(profile: QueueProfile) -> GameQueueConfig | None:
    if profile.strategy != "game-queue" or "skill_dimensions" not in profile.options:
        return None
    return game_queue_config(profile.options)


def _stepped_problems(
    match: Match,
    found: list[str],
    steps: Sequence[tuple[float, QueueProfile, TeamShape]],
    players: dict[tuple[str, str], Player],
    snapshot: WaveSnapshot,
    joined: dict[str, int],
) -> list[str]:
    """Nothing when ``match`` fits a step its least waited ticket has reached, else ``found``."""
    waits = [joined[ticket_id] for ticket_id in match.ticket_ids() if ticket_id in joined]
    waited = waited_s(snapshot.closed_at_ms, waits) if waits else 0.0
    for after_s, _, step_shape in steps:
        if after_s <= waited and not match_problems(match, step_shape, players):
            return []
    return found


def is_valid_team_result(snapshot: WaveSnapshot, profile: QueueProfile, result: WaveResult) -> bool:
    """True when :func:`team_result_problems` finds nothing."""
    return not team_result_problems(snapshot, profile, result)


def match_problems(
    match: Match, shape: TeamShape, players: dict[tuple[str, str], Player]
) -> list[str]:
    """The team rules for one match; ``players`` maps (ticket id, player id) to the player."""
    where = f"match {match.match_id}"
    problems: list[str] = []
    names = tuple(team.name for team in match.teams)
    expected = tuple(f"team{number}" for number in range(1, shape.team_count + 1))
    if names != expected:
        problems.append(f"{where}: teams are {names}, expected {expected}")
    seen: Counter[tuple[str, str]] = Counter()
    for number, team in enumerate(match.teams):
        # A team beyond the queue's count (reported above) is held to the first team's rules.
        number = number if number < shape.team_count else 0
        least, most = shape.team_size_range(number)
        if not least <= len(team.seats) <= most:
            problems.append(
                f"{where}: {team.name} has {len(team.seats)} players, outside {least}..{most}"
            )
        seen.update({(seat.ticket_id, seat.player_id) for seat in team.seats})
        roles = shape.roles_of(number)
        problems.extend(_seat_problems(where, team.name, team.seats, roles, players))
    problems.extend(
        f"{where}: player {pid} of ticket {tid} is on {n} teams"
        for (tid, pid), n in sorted(seen.items())
        if n > 1
    )
    problems.extend(_quality_problems(where, match))
    return problems


def _seat_problems(
    where: str,
    team_name: str,
    seats: tuple[Seat, ...],
    roles: tuple[str, ...],
    players: dict[tuple[str, str], Player],
) -> list[str]:
    problems: list[str] = []
    slots = Counter(roles)
    used: Counter[str] = Counter()
    for seat in seats:
        ticket_id, player_id, role, rating = seat.ticket_id, seat.player_id, seat.role, seat.rating
        player = players.get((ticket_id, player_id))
        if player is None:
            continue  # the common rules already report a seat outside the wave
        if not roles:
            if role != "":
                problems.append(f"{where}: {player_id} has role {role!r} in a queue without roles")
                continue
        elif role not in slots:
            problems.append(f"{where}: {player_id} plays {role!r}, not a role of the queue")
            continue
        elif role not in player.offered_roles() or player.rating(role) is None:
            problems.append(f"{where}: {player_id} plays {role!r} without offering it")
            continue
        used[role] += 1
        if rating != seat_rating(player, role):
            problems.append(f"{where}: {player_id}'s seat rating {rating} is not their rating")
    problems.extend(
        f"{where}: {team_name} has {n} seats of role {role!r} for {slots[role]} slots"
        for role, n in sorted(used.items())
        if roles and n > slots[role]
    )
    return problems


def _quality_problems(where: str, match: Match) -> list[str]:
    problems = [
        f"{where}: quality lacks {name!r}"
        for name in REQUIRED_QUALITY
        if match.quality_of(name) is None
    ]
    teams = [[seat.rating for seat in team.seats] for team in match.teams]
    if not all(teams):
        return [*problems, f"{where}: a team has no players"]
    for name, derived in (
        ("team_rating_diff", team_rating_diff(teams)),
        ("rating_spread", rating_spread(teams)),
    ):
        published = match.quality_of(name)
        if published is not None and abs(published - derived) > _TOLERANCE:
            problems.append(f"{where}: {name} {published} but the seats give {derived}")
    return problems
