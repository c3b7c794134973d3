"""Edmonds' augmenting-path rounds (matcher.duel.augment) against rustworkx's blossom: from
any starting matching, the result has the most pairs, every pair legal, each pair told
with a legal side choice."""

from __future__ import annotations

import random

import numpy as np
import pytest
import rustworkx as rx

from matcher.duel.augment import ListedPartners, augment_to_maximum
from matcher.duel.graph import DuelArrays, duel_arrays, legal
from matcher.duel.model import DuelConfig, DuelPlayer, Window
from matcher.duel.small import legal_edges

MAPS = ("m1", "m2", "m3")


def random_arrays(rng: random.Random, n: int) -> DuelArrays:
    """BW, SC2 and "both" players, close or spread ratings, map vetoes: a pair graph with
    odd cycles and no rating order to follow."""
    spread = rng.choice([0, 20, 100, 400])
    players = []
    for i in range(n):
        kind = rng.random()
        first = 1500 + rng.randint(-spread, spread)
        second = first + rng.randint(-30, 30)
        vetoes = tuple(rng.sample(MAPS, rng.choice([0, 0, 1, 2])))
        players.append(
            DuelPlayer(
                f"p{i}",
                first if kind < 0.7 else None,
                second if kind > 0.3 else None,
                rng.randint(0, 5),
                vetoed_maps=vetoes,
            )
        )
    window = Window(rng.choice([10, 50, 100]), 10)
    return duel_arrays(players, MAPS, window, DuelConfig(window_rule="longer"))


@pytest.mark.parametrize("block", range(6))
def test_rounds_reach_the_blossoms_maximum_from_any_start(block: int) -> None:
    for seed in range(block * 100, block * 100 + 100):
        rng = random.Random(seed)
        n = rng.randint(2, 70 if block < 5 else 250)
        arrays = random_arrays(rng, n)
        bw, sc2, _ = legal_edges(arrays)
        graph = rx.PyGraph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from_no_data(list(zip(bw.tolist(), sc2.tolist(), strict=True)))
        most = len(rx.max_weight_matching(graph, max_cardinality=True))
        mate = np.full(n, -1, dtype=np.int64)
        edges = list(range(len(bw)))
        rng.shuffle(edges)
        for e in edges[: rng.randint(0, len(edges))]:  # a random start, maximal or not
            a, b = int(bw[e]), int(sc2[e])
            if mate[a] < 0 and mate[b] < 0:
                mate[a], mate[b] = b, a
        formed = augment_to_maximum(arrays, mate)
        paired = np.flatnonzero(mate >= 0)
        assert (mate[mate[paired]] == paired).all(), seed
        assert len(paired) // 2 == most, (seed, len(paired) // 2, most)
        either = legal(arrays, paired, mate[paired]) | legal(arrays, mate[paired], paired)
        assert either.all(), seed
        if formed:
            first = np.array([a for a, _ in formed])
            second = np.array([b for _, b in formed])
            assert legal(arrays, first, second).all(), seed


@pytest.mark.parametrize("block", range(2))
def test_rounds_on_listed_pairs_reach_the_maximum_of_those_pairs(block: int) -> None:
    """On a sparse graph of some legal pairs (ListedPartners), the rounds end with no
    augmenting path left in that graph: as many pairs as its own maximum matching."""
    for seed in range(1000 + block * 100, 1000 + block * 100 + 100):
        rng = random.Random(seed)
        n = rng.randint(2, 120)
        arrays = random_arrays(rng, n)
        bw, sc2, _ = legal_edges(arrays)
        keep = np.array([rng.random() < 0.4 for _ in range(len(bw))], dtype=bool)
        bw, sc2 = bw[keep], sc2[keep]
        graph = rx.PyGraph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from_no_data(list(zip(bw.tolist(), sc2.tolist(), strict=True)))
        most = len(rx.max_weight_matching(graph, max_cardinality=True))
        mate = np.full(n, -1, dtype=np.int64)
        augment_to_maximum(arrays, mate, ListedPartners(arrays, bw, sc2))
        paired = np.flatnonzero(mate >= 0)
        assert (mate[mate[paired]] == paired).all(), seed
        assert len(paired) // 2 == most, (seed, len(paired) // 2, most)
        listed = set(zip(bw.tolist(), sc2.tolist(), strict=True))
        pairs = zip(paired.tolist(), mate[paired].tolist(), strict=True)
        assert all((a, b) in listed or (b, a) in listed for a, b in pairs), seed
