"""Per-dimension team quality of game-queue with and without ``skill_dimensions``.

The simulator's quality figures are read off the seats, which carry one rating: the
queue's ``rating`` key by default, the composite with the option. What the option is
for, teams balanced on *each* dimension, is measured here on waves drawn from the
``skill`` scenario's players (docs/sim/ideas-teams.toml): ``--waves`` waves of
``--tickets`` tickets each, both variants on the same waves, every result checked.

    .venv/bin/python scripts/skill_dimensions_quality.py --waves 40 --tickets 60
"""

from __future__ import annotations

import argparse
import random
import statistics
import tomllib
from pathlib import Path

from matcher.core import QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.rules.check import rated_snapshot
from matcher.sim.config import config_from_mapping
from matcher.sim.population import draw_sessions
from matcher.strategies import result_problems, run_wave
from matcher.teams.imbalance import Imbalance
from matcher.teams.skill import parse_dimensions, skill_imbalance

CONFIG = Path(__file__).resolve().parent.parent / "docs" / "sim" / "ideas-teams.toml"
WEIGHTS = {"aim": 1.0, "tactics": 0.5}
VARIANTS = (
    ("offline (default, rating = any)", {}, {"rating": "any"}),
    ("skill_dimensions", {"skill_dimensions": WEIGHTS}, {}),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waves", type=int, default=40)
    parser.add_argument("--tickets", type=int, default=60)
    args = parser.parse_args()
    config = config_from_mapping(tomllib.loads(CONFIG.read_text()))
    scenario = next(s for s in config.scenarios if s.name == "skill")
    sessions = draw_sessions(scenario, config.seed)
    dims = parse_dimensions(WEIGHTS)
    rng = random.Random(config.seed)
    figures: dict[str, dict[str, list[float]]] = {name: {} for name, _, _ in VARIANTS}
    for number in range(args.waves):
        chosen = rng.sample(sessions, args.tickets)
        tickets = tuple(
            WaitingTicket(Ticket(s.session_id, "3v3", "eu", s.players, 0), 0) for s in chosen
        )
        snapshot = WaveSnapshot("3v3", "eu", f"w{number}", number, number, 60_000, tickets)
        players = {(s.session_id, p.player_id): p for s in chosen for p in s.players}
        for name, options, rules in VARIANTS:
            profile = QueueProfile(
                "3v3", "game-queue", ("m",), team_size=3, options=options, rules=rules
            )
            result = run_wave(snapshot, profile)
            # The checker reads the wave as the worker hands it over: rated on the rating key.
            rated = rated_snapshot(snapshot, profile.ruleset) if rules else snapshot
            assert not result_problems(rated, profile, result), name
            for match in result.matches:
                seats = [
                    [players[(s.ticket_id, s.player_id)] for s in t.seats] for t in match.teams
                ]
                vectors = [[tuple(p.rating(d) or 0 for d, _ in dims) for p in t] for t in seats]
                row = figures[name]
                row.setdefault("F", []).append(skill_imbalance(vectors, dims, Imbalance()))
                for index, (dim, _) in enumerate(dims):
                    totals = [sum(v[index] for v in team) for team in vectors]
                    row.setdefault(f"{dim} team gap", []).append(abs(totals[0] - totals[1]))
                row.setdefault("matches", []).append(1.0)
    print(
        f"{args.waves} waves of {args.tickets} tickets from scenario 'skill' (seed {config.seed})"
    )
    print("| variant | matches | mean F | mean aim team gap | mean tactics team gap |")
    print("|---|---:|---:|---:|---:|")
    for name, row in figures.items():
        print(
            f"| {name} | {len(row['matches'])} | {statistics.fmean(row['F']):.1f} |"
            f" {statistics.fmean(row['aim team gap']):.1f} |"
            f" {statistics.fmean(row['tactics team gap']):.1f} |"
        )


if __name__ == "__main__":
    main()
