"""The whole plan: every policy's suggestions for an inventory, largest first, none
overlapping another."""

from __future__ import annotations

from dataclasses import replace

from mlspace.advise.model import AdviceSettings, Plan, suggestion_id
from mlspace.advise.policies import POLICIES
from mlspace.classify import Inventory
from mlspace.paths import within


def advise(inv: Inventory, settings: AdviceSettings | None = None,
           duplicate_groups: list[list[int]] | None = None) -> Plan:
    """Every policy's suggestions, largest first. A path already named by an earlier policy
    (or inside a folder it names) is left out of later ones, so no two suggestions overlap.
    ``duplicate_groups`` (from duplicates.find_duplicates, which reads file contents) adds
    suggestions to remove exact copies."""
    from mlspace.advise.duplicates import duplicate_suggestions

    settings = settings or AdviceSettings()
    taken: set[str] = set()
    suggestions = []
    found = [policy(inv, settings) for policy in POLICIES]
    if duplicate_groups:
        found.append(duplicate_suggestions(inv, duplicate_groups))
    for batch in found:
        for suggestion in batch:
            items = tuple(i for i in suggestion.items if not within(i.path, taken))
            if not items:
                continue
            if len(items) != len(suggestion.items):
                suggestion = replace(suggestion, items=items, id=suggestion_id(
                    suggestion.policy, tuple(i.path for i in items)))
            taken.update(suggestion.paths)
            suggestions.append(suggestion)
    suggestions.sort(key=lambda s: -s.bytes)
    return Plan(tuple(inv.snapshot.roots), tuple(suggestions))
