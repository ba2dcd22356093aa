"""How urgent a lead is: the order in which live channels send leads that are ready at
the same moment, and what ``min_priority`` filters on.

A life in danger comes first (SAR-DISTRESS, NORMAM-07 0213 c): it outranks everything.
Then the rules that protect people in the water and aids to navigation, then the
security areas, then ballast findings, which are judged over days, not seconds.
"""

from __future__ import annotations

#: the highest priority: a distress beacon
DISTRESS = 100

_BY_RULE = {"SAR-DISTRESS": DISTRESS, "ATON-DAMAGE": 70}
_BY_PREFIX = (("BATH-", 60), ("SEC-", 50), ("BW-", 20))
_DEFAULT = 40


def priority(rule: str) -> int:
    """The priority of a lead of ``rule`` (0-100, higher goes out first)."""
    if rule in _BY_RULE:
        return _BY_RULE[rule]
    for prefix, value in _BY_PREFIX:
        if rule.startswith(prefix):
            return value
    return _DEFAULT
