"""The 1v1 (BW against SC2) wave matcher: ``ladder-v2.1`` (the reference design) and ``optimal``.

Layout: :mod:`~matcher.duel.model` (players, pairs, the config), :mod:`~matcher.duel.windows`
(stage 3), :mod:`~matcher.duel.ladder` (stages 1-6), :mod:`~matcher.duel.optimal` (the tier
table of ``optimal``: :mod:`~matcher.duel.small`, then :mod:`~matcher.duel.large_prepair`,
:mod:`~matcher.duel.large` and :mod:`~matcher.duel.large_rematch`, all on
:mod:`~matcher.duel.graph`), :mod:`~matcher.duel.result` (stages 7-8),
:mod:`~matcher.duel.checks` (the checker) and :mod:`~matcher.duel.strategies` (the
registered adapters).
"""
