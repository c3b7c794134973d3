"""The rating distributions the differential (oracle) suite runs every strategy on: what real
games send, not data chosen to make the code look good (STYLE.md, "Complete, not only legal")."""

from __future__ import annotations

import random
from collections.abc import Callable

from matcher.duel.model import DuelPlayer

MAPS = ("fighting spirit", "circuit breaker", "polypoid", "eclipse")


def _wait(rng: random.Random, p: float) -> int:
    """Geometric(p) - 1: waves waited before this one."""
    wait = 0
    while rng.random() >= p:
        wait += 1
    return wait


def _clip(value: float) -> int:
    return min(3000, max(0, round(value)))


def _mirror(rng: random.Random, i: int, rating: int, wait: int, veto: float = 0.0) -> DuelPlayer:
    """A same-game ladder's player: one integer rating, either side (``bw = sc2``)."""
    vetoes = tuple(m for m in MAPS if rng.random() < veto)
    return DuelPlayer(f"p{i}", rating, rating, wait, "eu", vetoes, f"t{i}")


def tied(n: int, seed: int) -> list[DuelPlayer]:
    """Issue 30's waves: round(N(1500, 300)) in [0, 3000], one rating, waits Geometric(0.4) - 1."""
    rng = random.Random(seed)
    return [_mirror(rng, i, _clip(rng.gauss(1500, 300)), _wait(rng, 0.4)) for i in range(n)]


def all_equal(n: int, seed: int) -> list[DuelPlayer]:
    """Everyone at 1500 (a fresh ladder), a few map vetoes."""
    rng = random.Random(seed)
    return [_mirror(rng, i, 1500, _wait(rng, 0.4), veto=0.2) for i in range(n)]


def bimodal(n: int, seed: int) -> list[DuelPlayer]:
    """Two populations (new players near 1000, veterans near 2200), coarse ratings (x10)."""
    rng = random.Random(seed)
    players = []
    for i in range(n):
        centre = 1000 if rng.random() < 0.6 else 2200
        players.append(_mirror(rng, i, 10 * round(rng.gauss(centre, 120) / 10), _wait(rng, 0.4)))
    return players


def sparse_tails(n: int, seed: int) -> list[DuelPlayer]:
    """A dense middle and long, thin tails (Laplace-like): the tails' players far apart."""
    rng = random.Random(seed)
    players = []
    for i in range(n):
        offset = rng.expovariate(1 / 350) * (1 if rng.random() < 0.5 else -1)
        players.append(_mirror(rng, i, _clip(1500 + offset), _wait(rng, 0.5), veto=0.1))
    return players


def long_waits(n: int, seed: int) -> list[DuelPlayer]:
    """Tied single ratings where many waited long (Geometric(0.1) - 1): wide, uneven windows."""
    rng = random.Random(seed)
    return [_mirror(rng, i, _clip(rng.gauss(1500, 300)), _wait(rng, 0.1)) for i in range(n)]


def two_ratings(n: int, seed: int) -> list[DuelPlayer]:
    """The seed's cross-game ladder: 30 % BW only, 30 % SC2 only, 40 % both (SC2 = BW +
    N(0, 150)), waits Geometric(0.6) - 1, 10 % vetoes per map."""
    rng = random.Random(seed)
    players = []
    for i in range(n):
        bw = _clip(rng.gauss(1500, 300))
        sc2 = _clip(bw + rng.gauss(0, 150))
        kind = rng.random()
        vetoes = tuple(m for m in MAPS if rng.random() < 0.1)
        players.append(
            DuelPlayer(
                f"p{i}",
                bw if kind >= 0.3 else None,
                sc2 if kind < 0.3 or kind >= 0.6 else None,
                _wait(rng, 0.6),
                "eu",
                vetoes,
                f"t{i}",
            )
        )
    return players


def lopsided_two_ratings(n: int, seed: int) -> list[DuelPlayer]:
    """Two ratings, tied (x25), BW-only players twice as many as SC2-only, few "both"."""
    rng = random.Random(seed)
    players = []
    for i in range(n):
        rating = 25 * round(rng.gauss(1500, 250) / 25)
        kind = rng.random()
        bw = rating if kind < 0.55 or kind >= 0.85 else None
        sc2 = rating if kind >= 0.55 else None
        players.append(DuelPlayer(f"p{i}", bw, sc2, _wait(rng, 0.4), "eu", (), f"t{i}"))
    return players


def tied_two_ratings(n: int, seed: int) -> list[DuelPlayer]:
    """A cross-game ladder with coarse ratings: steps of 25 (N(1500, 300)), 40 % BW only,
    40 % SC2 only, 20 % both at the same rating; a fifth veto one or two maps."""
    rng = random.Random(seed)
    players = []
    for i in range(n):
        rating = 25 * round(rng.gauss(1500, 300) / 25)
        kind = rng.random()
        vetoes = tuple(rng.sample(MAPS, rng.choice((1, 2)))) if rng.random() < 0.2 else ()
        players.append(
            DuelPlayer(
                f"p{i}",
                rating if kind < 0.6 else None,
                rating if kind >= 0.4 else None,
                _wait(rng, 0.4),
                "eu",
                vetoes,
                f"t{i}",
            )
        )
    return players


DUEL: dict[str, Callable[[int, int], list[DuelPlayer]]] = {
    "tied": tied,
    "all_equal": all_equal,
    "bimodal": bimodal,
    "sparse_tails": sparse_tails,
    "long_waits": long_waits,
    "two_ratings": two_ratings,
    "lopsided_two_ratings": lopsided_two_ratings,
    "tied_two_ratings": tied_two_ratings,
}
