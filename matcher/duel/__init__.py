"""The 1v1 (BW against SC2) wave matcher: ``ladder-v2.1`` (the reference design) and ``optimal``.

Layout: :mod:`~matcher.duel.model` (players, pairs, the config), :mod:`~matcher.duel.windows`
(stage 3), :mod:`~matcher.duel.ladder` (stages 1-6), :mod:`~matcher.duel.optimal` (the
global optimum), :mod:`~matcher.duel.result` (stages 7-8), :mod:`~matcher.duel.checks`
(the checker) and :mod:`~matcher.duel.strategies` (the registered adapters).
"""
