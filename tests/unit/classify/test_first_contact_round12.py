"""Twelfth round of issue 27's principles, from heldout12's first contact (79.6% of files,
97.4% of bytes, no suggestion touching a best or latest): a run's record that lists files
beside it, each scored by a metric whose name says which way is better, makes them the
run's saves and itself the run's log (a sweep's ``results.json`` naming ``ridge_alpha0.1.npy``
with its ``val_mse``), whatever their format. An index that lists shards with their counts
and sizes scores nothing: the shards stay a dataset.
"""

from __future__ import annotations

import json
from pathlib import Path

from layouts import categories_by_path, inventory_of, make

_NPY = b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }" \
    + b" " * 40 + b"\n" + bytes(48)


def test_files_a_record_scores_by_a_metric_are_the_runs_saves(tmp_path: Path) -> None:
    alphas = ("0.01", "0.1", "1", "10")
    trials = [{"alpha": float(a), "pid": 13839, "val_mse": 5.3 - i * 0.1,
               "weights": f"outputs/ridge_sweep/ridge_alpha{a}.npy", "engine_id": i % 2}
              for i, a in enumerate(alphas)]
    root = make(tmp_path / "ws", {
        **{f"outputs/ridge_sweep/ridge_alpha{a}.npy": _NPY for a in alphas},
        "outputs/ridge_sweep/results.json": json.dumps({"trials": trials}, indent=2),
    })
    cats = categories_by_path(inventory_of(root))
    assert {cats[f"outputs/ridge_sweep/ridge_alpha{a}.npy"] for a in alphas} == {"checkpoint"}
    assert cats["outputs/ridge_sweep/results.json"] == "log"


def test_an_index_of_shards_with_counts_and_sizes_stays_a_dataset(tmp_path: Path) -> None:
    shards = [f"shard.{i:05d}.npy" for i in range(4)]
    root = make(tmp_path / "ws", {
        **{f"exports/{name}": _NPY for name in shards},
        "exports/results.json": json.dumps({"shards": [
            {"basename": name, "samples": 100 + i, "bytes": 160} for i, name in
            enumerate(shards)]}),
    })
    cats = categories_by_path(inventory_of(root))
    assert {cats[f"exports/{name}"] for name in shards} == {"dataset"}
