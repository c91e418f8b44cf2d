"""Runs and series as they are on disk now, derived from the scan and what went to the
trash since, equal what a fresh scan of the disk finds (no Qt needed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
from layouts import inventory_of
from workspaces import hf_run

from mlspace.ages import age_table
from mlspace.classify import Inventory
from mlspace.filtering import FilterSpec, apply_filter, counted_links, removed_entries
from mlspace.tables.runs import SeriesNow, current_runs, current_series


def _now(inv: Inventory, gone: list[str]) -> tuple[dict[str, SeriesNow], tuple]:
    snap = inv.snapshot
    removed = removed_entries(snap, [snap.find(p) for p in gone])
    mask = removed if removed is not None else np.zeros(len(snap), dtype=bool)
    whole = apply_filter(inv, age_table(inv), FilterSpec(), removed,
                         counted_links(snap, removed))
    series = current_series(inv, mask, whole)
    at = {a.entry: a for a in inv.artifacts}
    return series, current_runs(inv, series, mask, at)


def _names(inv: Inventory, s: SeriesNow) -> list[str]:
    return [inv.artifact_by_id[m].name for m in s.members]


def test_what_is_left_is_what_a_fresh_scan_finds(tmp_path: Path) -> None:
    run = hf_run(tmp_path / "ws")
    inv = inventory_of(tmp_path / "ws")
    gone = [str(run / "checkpoint-20"), str(run / "checkpoint-30")]
    series, runs = _now(inv, gone)
    for path in gone:
        shutil.rmtree(path)
    fresh = inventory_of(tmp_path / "ws")
    fresh_series, fresh_runs = _now(fresh, [])
    (left,) = series.values()
    (then,) = fresh_series.values()
    assert _names(inv, left) == _names(fresh, then) == [
        "checkpoint-10", "checkpoint-40", "checkpoint-50", "checkpoint-60"]
    assert (left.disk_usage, left.apparent_size, left.tool) == \
        (then.disk_usage, then.apparent_size, then.tool)
    assert [(r.run.path, r.tool, len(r.series)) for r in runs] == \
        [(r.run.path, r.tool, len(r.series)) for r in fresh_runs]


def test_a_run_whose_checkpoints_all_went_is_no_run(tmp_path: Path) -> None:
    run = hf_run(tmp_path / "ws", steps=(10, 20))
    inv = inventory_of(tmp_path / "ws")
    series, runs = _now(inv, [str(run / "checkpoint-10"), str(run / "checkpoint-20")])
    assert series == {} and runs == ()
    _, all_runs = _now(inv, [])
    assert [r.run.path for r in all_runs] == [str(run)]
