"""The flat move table agrees with the per-pair moves it concatenates."""

from __future__ import annotations

import doctest

import numpy as np

import matcher.multifactor.moves as moves_module
from matcher.multifactor.config import MultifactorConfig
from matcher.multifactor.evaluate import Structures, layout_for
from matcher.multifactor.moves import MoveTable, moves_between


def test_located_rows_are_the_moves_of_each_pair_of_structures() -> None:
    table = MoveTable(Structures(layout_for(3), MultifactorConfig()))
    shapes = [(1,) * 6, (2, 1, 1, 1, 1), (3, 1, 1, 1), (3, 3), (2, 2, 1, 1)]
    ids = [table.structures.id_of(shape) for shape in shapes]
    sp = np.array([a for a in ids for _ in ids], dtype=np.int64)
    sq = np.array([b for _ in ids for b in ids], dtype=np.int64)
    start, count = table.locate(sp, sq)
    assert (count >= 0).all() and count.sum() > 0
    # Building moves registered new structures (the shapes after a move); the table grew.
    assert len(table.start) == len(table.structures.slots) > len(shapes)
    for a, b, first, n in zip(
        sp.tolist(), sq.tolist(), start.tolist(), count.tolist(), strict=True
    ):
        expected = moves_between(table.structures, a, b)
        rows = slice(first, first + n)
        assert n == len(expected)
        assert np.array_equal(table.index_p[rows], expected.index_p)
        assert np.array_equal(table.index_q[rows], expected.index_q)
        assert np.array_equal(table.sid_p[rows], expected.sid_p)
        assert np.array_equal(table.sid_q[rows], expected.sid_q)


def test_module_examples() -> None:
    assert doctest.testmod(moves_module, optionflags=doctest.ELLIPSIS).failed == 0
