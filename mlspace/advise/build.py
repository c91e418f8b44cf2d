"""What every cleanup policy builds its suggestions with: plan items that count what removing
them really frees, suggestions with stable ids and naturally sorted items, and ages."""

from __future__ import annotations

import time
from collections.abc import Callable

from mlspace.advise.model import (
    AdviceSettings,
    KeptItem,
    PlanItem,
    Suggestion,
    plan_item,
    suggestion_id,
)
from mlspace.classify import Artifact, Inventory
from mlspace.paths import natural_key

DAY = 86400.0
Policy = Callable[[Inventory, AdviceSettings], list[Suggestion]]


def item(inv: Inventory, entry: int, note: str = "") -> PlanItem:
    """The entry as a plan item, with what removing it frees."""
    return plan_item(inv.snapshot, entry, note)


def artifact_items(inv: Inventory, artifact: Artifact, note: str = "") -> list[PlanItem]:
    """Every entry of the artifact as a plan item."""
    return [item(inv, e, note) for e in artifact.entries]


def make(policy: str, title: str, reason: str, risk: str, items: list[PlanItem],
          subject: str | None, archive: bool = False, kept: tuple[KeptItem, ...] = (),
          packed_share: float = 0.0) -> Suggestion:
    """A suggestion whose id follows from its policy and paths (stable across scans)."""
    items = sorted(items, key=lambda i: natural_key(i.path))
    paths = tuple(i.path for i in items)
    return Suggestion(suggestion_id(policy, paths), policy, title, reason, risk, tuple(items),
                      subject, archive, kept, packed_share)


def age_days(mtime: float, settings: AdviceSettings) -> float:
    """Days since ``mtime``, as of the settings' ``now`` (tests) or now."""
    return ((settings.now or time.time()) - mtime) / DAY
