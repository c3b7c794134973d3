"""How often two players who queue together get each other (queue sniping), under
``optimal``'s default and ``optimal_choice = "weighted"`` (docs/adr/0181).

    .venv/bin/python scripts/choice_sniping.py [--waves 300] [--queued 12 26]
        [--scales 25 50 100 200] [--gap 25]

Per wave: ``--queued`` other players drawn like docs/sim/ideas-choice.toml's (races
0.45 / 0.45 / 0.10, ratings N(1500, 300), a few waves waited), and two colluders, a BW
player at N(1500, 300) and an SC2 player within ``--gap`` points of it, who joined
together (no wait). The wave closes with the real strategy (its seed derived from the
wave's name, as the fold derives it); a snipe succeeds when the two are paired. Prints,
per queue size and variant, the snipe success, the mean |rating difference| of the
wave's other matches, and their matches per wave. The rematch rule is not a variant:
it decides like the default on two players' first meeting. Seeded: same arguments,
same output.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from matcher.core import (
    Player,
    QueueProfile,
    Ticket,
    WaitingTicket,
    WaveSnapshot,
    derive_seed,
)
from matcher.strategies import result_problems, run_wave

MAPS = ("Fighting Spirit", "Circuit Breaker", "Polypoid", "Eclipse")
COLLUDERS = ("snipe-bw", "snipe-sc2")


def other(rng: random.Random, i: int) -> tuple[Player, int]:
    race = rng.choices(("bw", "sc2", "both"), (0.45, 0.45, 0.10))[0]
    rating = max(0, round(rng.gauss(1500, 300)))
    ratings = (("bw", rating), ("sc2", rating)) if race == "both" else ((race, rating),)
    return Player(f"p{i}", ratings), min(rng.randrange(6), rng.randrange(6))


def wave(number: int, queued: int, gap: int) -> WaveSnapshot:
    rng = random.Random(number * 1_000_003 + queued)
    players = [other(rng, i) for i in range(queued)]
    rating = max(0, round(rng.gauss(1500, 300)))
    players.append((Player(COLLUDERS[0], (("bw", rating),)), 0))
    players.append((Player(COLLUDERS[1], (("sc2", rating + rng.randint(-gap, gap)),)), 0))
    rng.shuffle(players)
    tickets = tuple(
        WaitingTicket(Ticket(p.player_id, "1v1", "eu", (p,), 0), waited) for p, waited in players
    )
    wave_id = f"w{number}"
    seed = derive_seed("1v1", "eu", wave_id)
    return WaveSnapshot("1v1", "eu", wave_id, number, seed, 60_000, tickets, 10 * queued)


def measure(profile: QueueProfile, queued: int, waves: int, gap: int) -> tuple[float, float, float]:
    sniped = matches = 0
    diffs: list[float] = []
    for number in range(waves):
        snapshot = wave(number, queued, gap)
        result = run_wave(snapshot, profile)
        assert result_problems(snapshot, profile, result) == []
        for match in result.matches:
            seated = {team.seats[0].player_id for team in match.teams}
            if seated == set(COLLUDERS):
                sniped += 1
                continue
            ratings = [team.seats[0].rating for team in match.teams]
            diffs.append(abs(ratings[0] - ratings[1]))
            matches += 1
    return sniped / waves, sum(diffs) / max(1, len(diffs)), matches / waves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waves", type=int, default=300)
    parser.add_argument("--queued", type=int, nargs="+", default=[12, 26])
    parser.add_argument("--scales", type=int, nargs="+", default=[25, 50, 100, 200])
    parser.add_argument("--gap", type=int, default=25)
    args = parser.parse_args()
    variants = [("default", {})] + [
        (f"weighted {s}", {"optimal_choice": "weighted", "optimal_choice_scale": s})
        for s in args.scales
    ]
    print("| others queued | variant | snipe success | other matches: mean diff | per wave |")
    print("|---:|---|---:|---:|---:|")
    for queued in args.queued:
        for name, options in variants:
            profile = QueueProfile("1v1", "optimal", MAPS, options=dict(options))
            success, diff, per_wave = measure(profile, queued, args.waves, args.gap)
            print(f"| {queued} | {name} | {success:.1%} | {diff:.1f} | {per_wave:.2f} |")


if __name__ == "__main__":
    main()
