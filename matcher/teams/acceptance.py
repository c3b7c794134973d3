"""Whether a lineup may become a match: the queue's rules and ``game-queue``'s limit on its
imbalance f. The team strategies' completion asks it, and so does their live checker's
search for a match the result left out (:mod:`matcher.teams.maximal`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matcher.core import WaveSnapshot
from matcher.ruleset import QueueRuleSet
from matcher.teams.complete import Accept
from matcher.teams.imbalance import Imbalance, imbalance
from matcher.teams.model import Lineup, Party, team_ratings
from matcher.teams.ruled import lineup_rule_problem, seat_blind

#: Who met whom recently (:func:`matcher.rules.check.met_recently`).
Met = Mapping[str, frozenset[str]]


def acceptor(
    snapshot: WaveSnapshot,
    rules: QueueRuleSet,
    met: Met,
    params: Imbalance | None = None,
    max_imbalance: float | None = None,
) -> Accept:
    """Whether a lineup may become a match: within ``max_imbalance`` (when set, under
    ``params``) and breaking none of ``rules``."""
    within = balanced(params, max_imbalance)
    closed, region = snapshot.closed_at_ms, snapshot.region

    def accept(group: Sequence[Party], lineup: Lineup) -> bool:
        if not within(group, lineup):
            return False
        return lineup_rule_problem(rules, group, lineup, closed, region, met) is None

    return accept


def reseater(snapshot: WaveSnapshot, rules: QueueRuleSet, met: Met, seated: bool) -> Accept | None:
    """The completion's ``reseat`` (:func:`matcher.teams.complete.complete`) when the
    seating can decide a lineup (``seated``: a role queue under a rating limit or an
    imbalance limit), else None."""
    return acceptor(snapshot, seat_blind(rules), met) if seated else None


def balanced(params: Imbalance | None, max_imbalance: float | None) -> Accept:
    """Whether a lineup's imbalance f is within ``game-queue``'s ``max_imbalance``, if set."""
    if max_imbalance is None or params is None:
        return lambda group, lineup: True
    limit = max_imbalance + 1e-9
    return lambda group, lineup: imbalance(team_ratings(group, lineup), params) <= limit
