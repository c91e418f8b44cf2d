"""Filters shared by the tree, treemap and charts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
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


def _two_owners(tmp_path: Path):  # noqa: ANN202
    """The same tree, with run/ and what is in it owned by uid 4242 (set in the scan's
    columns: making a real second owner needs root, see tests/gui)."""
    import dataclasses

    inv, _, by_path = _inv(tmp_path)
    snap = inv.snapshot
    uid = snap.uid.copy()
    uid[[e for p, e in by_path.items() if p == "run" or p.startswith("run/")]] = 4242
    inv = classify(dataclasses.replace(snap, uid=uid))
    return inv, age_table(inv), by_path


def test_owner_filter_shows_only_that_owners_files(tmp_path: Path) -> None:
    inv, ages, by_path = _two_owners(tmp_path)
    result = apply_filter(inv, ages, FilterSpec(owners=frozenset({4242})))
    assert result.spec.narrows
    assert result.size(inv, by_path["."], apparent=True) == 8000 + 3000 + 100
    assert not result.visible(inv, by_path["data"], apparent=True)
    assert result.visible(inv, by_path["run/train.log"], apparent=True)
    mine = apply_filter(inv, ages, FilterSpec(owners=frozenset({int(inv.snapshot.uid[0])})))
    assert mine.size(inv, by_path["."], apparent=True) == 5000
    both = apply_filter(inv, ages, FilterSpec(owners=frozenset({4242}),
                                              categories=frozenset({Category.CHECKPOINT})))
    assert both.size(inv, by_path["."], apparent=True) == 8000


def test_space_by_owner_follows_what_went(tmp_path: Path) -> None:
    """The owner chart's numbers: the scan's, less what went to the trash since, summed
    over the changed entries only, equal a sum over everything left."""
    from mlspace.filtering import counted_links, removed_entries
    from mlspace.owners import owner_name, owners_of, space_by_owner

    inv, _, by_path = _two_owners(tmp_path)
    snap = inv.snapshot
    me = int(snap.uid[0])
    counted = snap.counted
    everything = {int(u): int(np.where(counted, snap.apparent, 0)[snap.uid == u].sum())
                  for u in np.unique(snap.uid)}
    assert dict(space_by_owner(snap, apparent=True)) == everything
    assert space_by_owner(snap, apparent=True)[0][0] == (4242 if everything[4242] >
                                                          everything[me] else me)
    removed = removed_entries(snap, [by_path["run/checkpoints"]])
    assert removed is not None
    now = counted_links(snap, removed)
    keep = ~removed & now
    added = np.flatnonzero(keep & ~counted)
    taken = np.flatnonzero(~keep & counted)
    left = dict(space_by_owner(snap, True, added, taken, removed))
    assert left[4242] == everything[4242] - int(snap.apparent[
        [by_path["run/checkpoints"], by_path["run/checkpoints/epoch=1.ckpt"]]].sum())
    assert left[me] == everything[me]
    assert list(owners_of(snap).uids) == sorted(everything)
    assert owner_name(4242, names_here=False) == "uid 4242"
    assert owner_name(0xFFFFFFFF) == "owner not recorded"
