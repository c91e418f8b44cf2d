"""``mlspace inventory``: the story of a workspace on one screen: where the space is by
category, which runs hold it, and which checkpoint of each is the best and the latest."""

from __future__ import annotations

import os

from mlspace import fmt
from mlspace.classify import ORDER, Inventory, Series
from mlspace.index.records import series_apparent_size


def _short(artifact_id: str | None) -> str:
    return os.path.basename(artifact_id) if artifact_id else "?"


def best_label(s: Series, inv: Inventory) -> str:
    if s.best is None:
        return f"unknown ({s.best_reason})"
    label = _short(s.best)
    if s.best_metric and s.best_value is not None:
        label += f" ({s.best_metric} {s.best_value:g}, {s.best_mode})"
    return label


def latest_label(s: Series, inv: Inventory) -> str:
    if s.latest is None:
        return "none"
    latest = inv.artifact_by_id[s.latest]
    step = f" (step {latest.step})" if latest.step is not None else ""
    return _short(s.latest) + step


def inventory_story(inv: Inventory, top: int = 12, apparent: bool = False) -> str:
    """The story on one screen; ``apparent`` (`inventory --apparent`) sizes, shares and
    orders it by apparent size instead of size on disk, which on sparse files is the only
    size that tells them apart."""
    snap = inv.snapshot
    t = snap.grand_totals()
    measure = "apparent_size" if apparent else "disk_usage"
    lines = [
        f"{', '.join(snap.roots)}: {fmt.size(t.disk_usage)} on disk "
        f"({fmt.size(t.apparent_size)} apparent) in {fmt.plural(t.files, 'file')}, "
        f"scanned in {fmt.duration(snap.duration)}",
        "",
        f"{'By category':<22}{'apparent' if apparent else 'on disk':>12}{'share':>8}"
        f"{'files':>12}",
    ]
    totals = inv.category_totals()
    whole = getattr(t, measure)
    for cat in ORDER:
        c = totals[cat]
        size = getattr(c, measure)
        if c.files == 0 and size == 0:
            continue
        share = 100 * size / whole if whole else 0
        lines.append(f"  {cat.info.label:<20}{fmt.size(size):>12}{share:>7.0f}%"
                     f"{fmt.count(c.files):>12}")
    ckpt_series = [s for s in inv.series if s.members]
    if ckpt_series:
        n_ckpt = sum(len(s.members) for s in ckpt_series)
        n_runs = len({s.run for s in ckpt_series})
        lines += ["", f"Checkpoints: {n_ckpt} in {fmt.plural(len(ckpt_series), 'series', 'series')}"
                      f" of {fmt.plural(n_runs, 'run')}, largest first"]
        sizes = {s.id: series_apparent_size(s, inv) if apparent else s.disk_usage
                 for s in ckpt_series}
        for s in sorted(ckpt_series, key=lambda s: -sizes[s.id])[:top]:
            run = inv.run_by_id.get(s.run or "")
            where = os.path.relpath(s.path, run.path) if run else ""
            name = (run.name if run else os.path.basename(s.path)) + (
                f"/{where}" if where not in ("", ".") else "")
            lines.append(f"  {fmt.size(sizes[s.id]):>10}  {len(s.members):>3} ckpt  {name}"
                         f"  [{s.tool}]")
            lines.append(f"{'':16}best: {best_label(s, inv)}   latest: {latest_label(s, inv)}")
    biggest = sorted((a for a in inv.artifacts if a.kind != "run"),
                     key=lambda a: -getattr(a, measure))[:top]
    if biggest:
        lines += ["", "Largest items:"]
        lines += [f"  {fmt.size(getattr(a, measure)):>10}  {a.category.info.label:<17} {a.path}"
                  for a in biggest]
    if inv.warnings:
        lines += ["", *(f"warning: {w}" for w in inv.warnings)]
    return "\n".join(lines)
