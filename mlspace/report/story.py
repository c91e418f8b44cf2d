"""``mlspace inventory``: the story of a workspace on one screen: where the space is by
category, which runs hold it, and which checkpoint of each is the best and the latest."""

from __future__ import annotations

import os

from mlspace import fmt
from mlspace.classify import ORDER, Artifact, Inventory, Series


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


def inventory_story(inv: Inventory, top: int = 12) -> str:
    snap = inv.snapshot
    t = snap.grand_totals()
    lines = [
        f"{', '.join(snap.roots)}: {fmt.size(t.disk_usage)} on disk "
        f"({fmt.size(t.apparent_size)} apparent) in {fmt.count(t.files)} files, "
        f"scanned in {fmt.duration(snap.duration)}",
        "",
        f"{'By category':<22}{'on disk':>12}{'share':>8}{'files':>12}",
    ]
    totals = inv.category_totals()
    for cat in ORDER:
        c = totals[cat]
        if c.files == 0 and c.disk_usage == 0:
            continue
        share = 100 * c.disk_usage / t.disk_usage if t.disk_usage else 0
        lines.append(f"  {cat.info.label:<20}{fmt.size(c.disk_usage):>12}{share:>7.0f}%"
                     f"{fmt.count(c.files):>12}")
    ckpt_series = [s for s in inv.series if s.members]
    if ckpt_series:
        n_ckpt = sum(len(s.members) for s in ckpt_series)
        n_runs = len({s.run for s in ckpt_series})
        lines += ["", f"Checkpoints: {n_ckpt} in {len(ckpt_series)} series of {n_runs} runs, "
                      "largest first"]
        for s in sorted(ckpt_series, key=lambda s: -s.disk_usage)[:top]:
            run = inv.run_by_id.get(s.run or "")
            where = os.path.relpath(s.path, run.path) if run else ""
            name = (run.name if run else os.path.basename(s.path)) + (
                f"/{where}" if where not in ("", ".") else "")
            lines.append(f"  {fmt.size(s.disk_usage):>10}  {len(s.members):>3} ckpt  {name}"
                         f"  [{s.tool}]")
            lines.append(f"{'':16}best: {best_label(s, inv)}   latest: {latest_label(s, inv)}")
    biggest = sorted((a for a in inv.artifacts if a.kind != "run"),
                     key=lambda a: -a.disk_usage)[:top]
    if biggest:
        lines += ["", "Largest items:"]
        lines += [_artifact_line(a) for a in biggest]
    if inv.warnings:
        lines += ["", *(f"warning: {w}" for w in inv.warnings)]
    return "\n".join(lines)


def _artifact_line(a: Artifact) -> str:
    return f"  {fmt.size(a.disk_usage):>10}  {a.category.info.label:<17} {a.path}"
