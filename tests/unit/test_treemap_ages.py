"""Treemap geometry and age buckets (core, no display)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from layouts import make

from mlspace import fmt
from mlspace.advise import advise
from mlspace.ages import BUCKETS, age_table, bucket_of_mtimes
from mlspace.classify import Category, classify
from mlspace.report.model import build_report
from mlspace.report.render import render_html
from mlspace.scan import ScanOptions, scan
from mlspace.scan.walker import KIND_DIR
from mlspace.treemap import Rect, squarify


@given(st.lists(st.floats(min_value=0.01, max_value=1e6), min_size=1, max_size=40),
       st.floats(min_value=10, max_value=2000), st.floats(min_value=10, max_value=2000))
def test_squarify_areas_are_proportional_and_inside(sizes: list[float], w: float, h: float
                                                    ) -> None:
    sizes = sorted(sizes, reverse=True)
    rects = squarify(sizes, Rect(5, 7, w, h))
    total = sum(sizes)
    eps = 1e-6 * (w + h)  # float error grows with the rectangle's size
    for size, r in zip(sizes, rects, strict=True):
        assert r.w * r.h == pytest.approx(size / total * w * h, rel=1e-6, abs=1e-6)
        assert r.x >= 5 - eps and r.x + r.w <= 5 + w + eps
        assert r.y >= 7 - eps and r.y + r.h <= 7 + h + eps
    assert sum(r.w * r.h for r in rects) == pytest.approx(w * h, rel=1e-6)


def test_squarify_keeps_tiles_close_to_square() -> None:
    rects = squarify([6, 6, 4, 3, 2, 2, 1], Rect(0, 0, 6, 4))
    worst = max(max(r.w / r.h, r.h / r.w) for r in rects)
    assert worst < 3  # the paper's example: a slice layout would give 24


def test_squarify_zero_sizes_get_empty_tiles() -> None:
    rects = squarify([5, 0, 5], Rect(0, 0, 10, 10))
    assert rects[1].w * rects[1].h == 0


def test_buckets() -> None:
    now = 1_800_000_000.0
    days = np.array([0.5, 3, 20, 60, 200, 900, -1])
    assert bucket_of_mtimes(now - days * 86400, now).tolist() == [0, 1, 2, 3, 4, 5, 0]
    assert [b.key for b in BUCKETS] == ["today", "week", "month", "quarter", "year", "older"]


def test_age_table_sums_per_category_and_folder(tmp_path: Path) -> None:
    make(tmp_path, {"logs/new.log": 5000, "logs/old.log": 7000, "data/a.npy": 9000})
    old = time.time() - 400 * 86400
    os.utime(tmp_path / "logs" / "old.log", (old, old))
    os.utime(tmp_path / "data" / "a.npy", (old, old))
    inv = classify(scan([tmp_path], ScanOptions(workers=1)))
    table = age_table(inv)
    older, today = len(BUCKETS) - 1, 0
    log_old = table.by_category_apparent[older, Category.LOG]
    assert log_old == 7000
    assert table.by_category_apparent[today, Category.LOG] == 5000
    assert table.by_category_apparent[older, Category.DATASET] == 9000
    logs_row = inv.snapshot.row_of(next(e for e, _, p in inv.snapshot.iter_paths() if p == "logs"))
    assert table.dir_apparent[logs_row].tolist() == [5000, 0, 0, 0, 0, 7000]


def test_the_age_table_holds_every_file_and_no_folder(tmp_path: Path) -> None:
    """Files by age add up to the total less the folders' own listings, exactly: what the
    chart's tooltip and the report say it leaves out."""
    make(tmp_path, {"a/b/c.log": 5000, "a/d.npy": 70000, "e/f/g/h.txt": 10})
    inv = classify(scan([tmp_path], ScanOptions(workers=1)))
    table, snap = age_table(inv), inv.snapshot
    folders = (snap.kind == KIND_DIR) & snap.counted
    listings = int(snap.disk_sizes(folders).sum())
    assert listings > 0
    assert int(table.by_category.sum()) == snap.grand_totals().disk_usage - listings
    report = render_html(build_report(inv, advise(inv)))
    assert f"folders' own listings ({fmt.size(listings)}) are not in these bars" in report
