"""Comparisons of the stateful machine (stateful.py) switched off until a
reported defect's fix lands. Each entry of KNOWN_OPEN names the defect and
holds a predicate `(machine, where, difference, ours, theirs, args) -> bool`
as narrow as the defect: it matches only that comparison's failure (`args`:
the step's arguments, `where`: the comparison). Delete an entry when its fix
merges; the machine then checks that comparison again.
"""

from __future__ import annotations

# None open: every defect the machine found is fixed (an entry is a predicate, as in documented.py).
KNOWN_OPEN: dict = {}


def open_defect(machine, where, difference, ours, theirs, args) -> str | None:
    """The name of the documented difference (documented.py) or open defect this difference
    is, or None (a new one: the machine fails)."""
    from .documented import DOCUMENTED

    for name, predicate in {**DOCUMENTED, **KNOWN_OPEN}.items():
        if predicate(machine, where, difference, ours, theirs, args):
            return name
    return None
