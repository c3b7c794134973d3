"""Queue rules: declarative limits every match of a queue must respect (docs/rules.md).

The rule model is :mod:`matcher.ruleset` (a sibling of :mod:`matcher.core`, which parses a
profile's rules with it); the checks are :mod:`matcher.rules.check`, which reads
:mod:`matcher.core`. Kept apart so that neither package imports the other in a circle.
"""

from matcher.ruleset import Expansion, QueueRuleSet, parse_rules

__all__ = ["Expansion", "QueueRuleSet", "parse_rules"]
