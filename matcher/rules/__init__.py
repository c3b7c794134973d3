"""Queue rules: declarative limits every match of a queue must respect (docs/rules.md)."""

from matcher.rules.check import (
    match_rule_problems,
    rated_snapshot,
    ticket_rule_problem,
    wave_rule_problems,
)
from matcher.rules.model import Expansion, QueueRuleSet, parse_rules

__all__ = [
    "Expansion",
    "QueueRuleSet",
    "match_rule_problems",
    "parse_rules",
    "rated_snapshot",
    "ticket_rule_problem",
    "wave_rule_problems",
]
