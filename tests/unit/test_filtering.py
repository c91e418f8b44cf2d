"""Filters shared by the tree, treemap and charts."""

from __future__ import annotations

from pathlib import Path

from layouts import make

from mlspace.ages import age_table
from mlspace.classify import Category, classify
from mlspace.filtering import FilterSpec, apply_filter
from mlspace.scan import ScanOptions, scan


def _inv(tmp_path: Path):  # noqa: ANN202
    make(tmp_path, {
        "run/checkpoints/epoch=1.ckpt": 8000,
        "run/train.log": 3000,
        "run/Notes.TXT": 100,
        "data/x.npy": 5000,
    })
    inv = classify(scan([tmp_path], ScanOptions(workers=1)))
    return inv, age_table(inv), {p: e for e, _, p in inv.snapshot.iter_paths()}


def test_category_filter_sums_only_that_category(tmp_path: Path) -> None:
    inv, ages, by_path = _inv(tmp_path)
    result = apply_filter(inv, ages, FilterSpec(categories=frozenset({Category.CHECKPOINT})))
    run = by_path["run"]
    assert result.size(inv, run, apparent=True) == 8000
    assert result.visible(inv, by_path["run/checkpoints/epoch=1.ckpt"], apparent=True)
    assert not result.visible(inv, by_path["run/train.log"], apparent=True)
    assert not result.visible(inv, by_path["data"], apparent=True)
    assert result.spec.narrows


def test_no_filter_uses_the_scan_totals(tmp_path: Path) -> None:
    inv, ages, by_path = _inv(tmp_path)
    result = apply_filter(inv, ages, FilterSpec())
    assert result.matches is None and not result.spec.narrows
    assert result.size(inv, by_path["data"], apparent=False) == inv.snapshot.totals(
        by_path["data"]).disk_usage


def test_text_filter_is_case_insensitive(tmp_path: Path) -> None:
    inv, ages, by_path = _inv(tmp_path)
    result = apply_filter(inv, ages, FilterSpec(text="notes"))
    assert result.visible(inv, by_path["run/Notes.TXT"], apparent=True)
    assert not result.visible(inv, by_path["run/train.log"], apparent=True)
    assert result.size(inv, by_path["run"], apparent=True) == 100


def test_min_size_hides_small_entries(tmp_path: Path) -> None:
    inv, ages, by_path = _inv(tmp_path)
    result = apply_filter(inv, ages, FilterSpec(min_size=4000))
    assert not result.visible(inv, by_path["run/train.log"], apparent=True)
    assert result.visible(inv, by_path["data/x.npy"], apparent=True)
    assert not result.spec.narrows  # hiding small rows leaves folder totals whole
