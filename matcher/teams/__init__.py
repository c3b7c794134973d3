"""Team queues: parties, roles and balanced team splits.

Layers, bottom up: :mod:`model` (shape, parties, lineups, role slots), :mod:`imbalance`
(Alman & McKay's f and the quality figures), :mod:`split` (exhaustive reference),
:mod:`rebalance` (AccelByte's permutation / combination / greedy), :mod:`grouping`
(which parties play together), :mod:`games` (games of 2k and their splits),
:mod:`window` (best game per anchor), :mod:`ordered` (treap + list), :mod:`gamequeue`
(the heap of per-anchor games), :mod:`roles` (role intervals), :mod:`offline` (groups
of 2k split optimally), :mod:`build` (lineups to matches),
:mod:`checks` (the checker) and :mod:`strategies` (the registered entry points).
:mod:`step_config` and :mod:`steps` relax a queue's shape after a wait (team steps);
:mod:`asymmetric` splits groups into teams of their own sizes and roles.
"""
