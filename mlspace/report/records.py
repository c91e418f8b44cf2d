"""Stable, non-localized JSON records of inventory objects, shared by every export (the scan
listing, ``mlspace inventory --format json`` and the reports), so their keys always agree."""

from __future__ import annotations

from mlspace.classify import ORDER, Artifact, Inventory, Run, Series


def category_records(inv: Inventory, entry: int | None = None) -> dict[str, dict[str, int]]:
    totals = inv.category_totals(entry)
    return {
        cat.id: {
            "disk_usage": totals[cat].disk_usage,
            "apparent_size": totals[cat].apparent_size,
            "files": totals[cat].files,
        }
        for cat in ORDER
    }


def artifact_record(a: Artifact) -> dict[str, object]:
    return {
        "id": a.id,
        "kind": a.kind,
        "category": a.category.id,
        "path": a.path,
        "name": a.name,
        "tool": a.tool,
        "disk_usage": a.disk_usage,
        "apparent_size": a.apparent_size,
        "files": a.files,
        "mtime": round(a.newest_mtime, 3),
        "step": a.step,
        "epoch": a.epoch,
        "metrics": dict(a.metrics),
        "role": a.role,
        "series": a.series,
        "run": a.run,
        "copy_of": a.copy_of,
        "copy_kind": a.copy_kind,
        "archived": a.archived,
    }


def series_apparent_size(s: Series, inv: Inventory) -> int:
    """A series' apparent size, added up as its size on disk is (a hard-linked copy of a
    member counts once). Series keeps only the size on disk, as saved scans do, so this is
    computed from its members."""
    members = (inv.artifact_by_id[m] for m in s.members)
    return sum(a.apparent_size for a in members if a.copy_kind != "hard link")


def series_record(s: Series, inv: Inventory) -> dict[str, object]:
    return {
        "id": s.id,
        "path": s.path,
        "tool": s.tool,
        "run": s.run,
        "checkpoints": list(s.members),
        "latest": s.latest,
        "latest_reason": s.latest_reason,
        "best": s.best,
        "best_reason": s.best_reason,
        "best_metric": s.best_metric,
        "best_value": s.best_value,
        "best_mode": s.best_mode,
        "protected": list(s.protected),
        "disk_usage": s.disk_usage,
        "apparent_size": series_apparent_size(s, inv),
    }


def run_record(r: Run) -> dict[str, object]:
    return {
        "id": r.id,
        "path": r.path,
        "name": r.name,
        "tool": r.tool,
        "disk_usage": r.disk_usage,
        "apparent_size": r.apparent_size,
        "files": r.files,
        "mtime": round(r.newest_mtime, 3),
        "series": list(r.series),
    }
