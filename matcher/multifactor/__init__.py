"""The multifactor batch matcher (issue 8): a weighted score of six factors per match.

Modules, in pipeline order: :mod:`.config` (weights and knobs from the profile's
options), :mod:`.pool` (ticket selection and pair tables), :mod:`.factors` (the
definition of each factor), :mod:`.evaluate` (the same, vectorised over candidates and
splits), :mod:`.packing` and :mod:`.search` (sorted start, swaps, restarts under an
evaluation budget), :mod:`.report` and :mod:`.strategy` (the registered entry point),
:mod:`.checks` (the checker beside it). See docs/multifactor.md.
"""

from matcher.multifactor.config import FACTORS, MultifactorConfig, OptionError, parse_config

__all__ = ["FACTORS", "MultifactorConfig", "OptionError", "parse_config"]
