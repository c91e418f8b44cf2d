"""One report model, rendered to HTML, CSV, JSON and Markdown, so the formats always agree.

It holds aggregates and artifacts, not every file: a report of a million-file scan is small
and written in seconds."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Sequence
from dataclasses import dataclass

from mlspace.act.journal import read_history
from mlspace.advise import REVIEW, RISKY, SAFE, Plan
from mlspace.ages import BUCKETS, age_table
from mlspace.classify import ORDER, Inventory
from mlspace.index.records import artifact_record, run_record, series_record
from mlspace.paths import within
from mlspace.report.cleanups import record_state
from mlspace.report.growth import growth_record
from mlspace.report.once import own_sizes
from mlspace.report.plan_text import suggestion_record

TOP_ARTIFACTS = 20
#: How many unreadable paths a report names (its totals count them all).
UNREADABLE_LISTED = 50
DAY = 86400.0


@dataclass(frozen=True)
class Report:
    data: dict  # the JSON document; every renderer reads only this
    #: What of mlspace's own stores could not be used for it (a damaged journal file),
    #: a sentence each, for the command to tell; the report leaves it out.
    skipped: tuple[str, ...] = ()


def build_report(inv: Inventory, plan: Plan, now: float | None = None,
                 scanned_at: float | None = None, apparent: bool = False,
                 disks: Sequence[dict] = ()) -> Report:
    """The report of a scan and its plan. ``scanned_at`` (when the scan was made; now when
    not given) places it among the saved scans of its folders, for the growth section.
    ``apparent``: the HTML and Markdown show apparent sizes (the app's size mode, or
    ``--apparent``), and the largest items are the largest by apparent size; the
    document carries both sizes either way. ``disks``: the disk line of each scanned
    filesystem (mlspace.report.disk_status records; none for a saved scan), which the
    report opens with."""
    now = time.time() if now is None else now
    snap = inv.snapshot
    t = snap.grand_totals()
    totals = inv.category_totals()
    ages = age_table(inv, now)
    suggestion_of = {p: s.id for s in plan.suggestions for p in s.paths}
    best = {s.best for s in inv.series if s.best}
    latest = {s.latest for s in inv.series if s.latest}
    measure = "apparent_size" if apparent else "disk_usage"
    own = own_sizes(inv)  # each byte under one item and category (mlspace.report.once)
    artifacts = []
    for i, a in enumerate(inv.artifacts):
        record = artifact_record(a)
        record.update(disk_usage=own.disk[i], apparent_size=own.apparent[i],
                      files=own.files[i], whole_disk_usage=a.disk_usage,
                      whole_apparent_size=a.apparent_size,
                      age_days=round((now - a.newest_mtime) / DAY, 1), is_best=a.id in best,
                      is_latest=a.id in latest, suggestion_id=suggestion_of.get(a.path))
        artifacts.append(record)
    artifacts.sort(key=lambda r: (-r[measure], r["path"]))
    runs = []
    for r in sorted(inv.runs, key=lambda r: -getattr(r, measure)):
        record = run_record(r)
        series = [inv.series_by_id[s] for s in r.series]
        record["checkpoints"] = sum(len(s.members) for s in series)
        main = max(series, key=lambda s: len(s.members), default=None)
        record["best"] = os.path.basename(main.best) if main and main.best else None
        record["best_metric"] = main.best_metric if main else None
        record["best_value"] = main.best_value if main else None
        latest_ckpt = inv.artifact_by_id.get(main.latest) if main and main.latest else None
        record["latest"] = latest_ckpt.name if latest_ckpt else None
        record["latest_step"] = latest_ckpt.step if latest_ckpt else None
        runs.append(record)
    journal, skipped = read_history()
    cleanups = [{"id": c.id, "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(c.created)),
                 "title": c.title, "moved": c.moved_when_run, "freed": max(c.freed, 0),
                 "in_trash": c.bytes_in_trash, "state": record_state(c),
                 "items": len(c.items), "undone": c.undone, "roots": list(c.roots)}
                for c in journal if _under(c.roots, snap.roots)]
    data = {
        "version": 1,
        "sizes": "apparent" if apparent else "on disk",  # what the HTML and Markdown show
        "generated": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(now)),
        "host": platform.node(),
        "roots": list(snap.roots),
        "disks": list(disks),
        "totals": {"disk_usage": t.disk_usage, "apparent_size": t.apparent_size,
                   "files": t.files, "dirs": t.dirs, "errors": len(snap.errors)},
        "unreadable": [{"path": e.path, "error": e.message}
                       for e in snap.errors[:UNREADABLE_LISTED]],
        "scan_seconds": round(snap.duration, 3),
        "cancelled": snap.cancelled,
        "categories": [
            {"id": c.id, "label": c.info.label, "color": c.info.color,
             "disk_usage": totals[c].disk_usage, "apparent_size": totals[c].apparent_size,
             "files": totals[c].files,
             "share": round(totals[c].disk_usage / t.disk_usage, 4) if t.disk_usage else 0.0}
            for c in ORDER
        ],
        "ages": [
            {"id": b.key, "label": b.label,
             "by_category": {c.id: int(ages.by_category[i, c]) for c in ORDER},
             "by_category_apparent": {c.id: int(ages.by_category_apparent[i, c])
                                      for c in ORDER}}
            for i, b in enumerate(BUCKETS)
        ],
        "outside_artifacts": {c.id: {"disk_usage": own.rest[c][0],
                                     "apparent_size": own.rest[c][1], "files": own.rest[c][2]}
                              for c in ORDER},
        "runs": runs,
        "series": [series_record(s, inv) for s in inv.series],
        "top_artifacts": artifacts[:TOP_ARTIFACTS],
        "artifacts": artifacts,
        "suggestions": [suggestion_record(s) for s in plan.suggestions],
        "reclaimable": plan.total_bytes,
        "reclaimable_apparent": sum(s.apparent_bytes for s in plan.suggestions),
        "reclaimable_by_risk": {risk: sum(s.bytes for s in plan.suggestions if s.risk == risk)
                                for risk in (SAFE, REVIEW, RISKY)},
        "reclaimable_by_risk_apparent": {
            risk: sum(s.apparent_bytes for s in plan.suggestions if s.risk == risk)
            for risk in (SAFE, REVIEW, RISKY)},
        "cleanups": cleanups,
        "growth": growth_record(inv, scanned_at),
    }
    return Report(data, tuple(skipped))


def _under(cleaned: list[str], roots: tuple[str, ...]) -> bool:
    """A cleanup belongs in this report when one of its folders is, or is inside, one of
    the report's folders."""
    return any(within(folder, set(roots)) for folder in cleaned)
