"""The suggestions about an entry: those that name it, lie inside it, or are about the
series or run it belongs to (the details panel and the right-click menu list them), and the
artifact it belongs to."""

from __future__ import annotations

from collections.abc import Mapping

from mlspace.advise import Plan, Suggestion
from mlspace.classify import Artifact, Inventory


def artifact_holding(inv: Inventory, artifact_at: Mapping[int, Artifact], entry: int
                     ) -> Artifact | None:
    """The innermost artifact containing ``entry`` (walking up its folders);
    ``artifact_at``: each artifact by its entry."""
    snap = inv.snapshot
    while entry >= 0:
        found = artifact_at.get(entry)
        if found is not None:
            return found
        entry = snap.parent(entry)
    return None


def suggestions_about(inv: Inventory, plan: Plan, entry: int, artifact: Artifact | None
                      ) -> list[Suggestion]:
    """``artifact``: the innermost artifact holding ``entry`` (None: none does)."""
    path = inv.snapshot.path(entry)
    subjects: set[str] = set()
    if artifact is not None:  # (no series or run: None, which must match nothing)
        subjects |= {s for s in (artifact.id, artifact.series, artifact.run) if s}
    series_here = {s.id for s in inv.series
                   if s.path == path or s.path.startswith(path.rstrip("/") + "/")}
    return [s for s in plan.suggestions
            if s.subject in subjects | series_here
            or any(p == path or p.startswith(path.rstrip("/") + "/")
                   or path.startswith(p.rstrip("/") + "/") for p in s.paths)]
