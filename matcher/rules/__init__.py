"""Queue rules: declarative limits every match of a queue must respect (docs/rules.md).

The package exports the rule model only: :mod:`matcher.core` builds a profile's rule set
with it, and the checks (:mod:`matcher.rules.check`) import :mod:`matcher.core`.
"""

from matcher.rules.model import Expansion, QueueRuleSet, parse_rules

__all__ = ["Expansion", "QueueRuleSet", "parse_rules"]
