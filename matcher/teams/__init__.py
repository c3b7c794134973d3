"""Team queues: parties, roles and balanced team splits.

Layers, bottom up: :mod:`model` (shape, parties, lineups, role slots), :mod:`imbalance`
(Alman & McKay's f and the quality figures), :mod:`split` (exhaustive reference),
:mod:`rebalance` (AccelByte's permutation / combination / greedy), :mod:`grouping`
(which parties play together), :mod:`window`, :mod:`ordered`, :mod:`gamequeue`,
:mod:`roles`, :mod:`offline` (the game queue), :mod:`build` (lineups to matches),
:mod:`checks` (the checker) and :mod:`strategies` (the registered entry points).
"""
