"""The advisor never suggests a checkpoint that a tool keeps by its own retention, nor the
best or latest its records name: timm's CheckpointSaver top-k (--checkpoint-hist) and the
checkpoints HF Trainer's save_total_limit rotation keeps (with load_best_model_at_end). Only
a K or N set for that very run below the tool's own lets part of the set go, for review;
and a record that is a malicious pickle is never executed.

The runs are real timm 1.0.31 and transformers 5.24 output (tests/fixtures/timm and
tests/fixtures/hf_trainer), each with a stray save no record keeps (left by an earlier run
in the same folder), so there is something the advisor may suggest.
"""

from __future__ import annotations

import io
import os
import pickle
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hostile_helpers import suggested_paths
from layouts import Sparse, inventory_of, make, name_of, series_at
from layouts_tools import HF_KEPT, hf_fixture_run, timm_fixture_run
from workspaces import age

from mlspace.advise import REVIEW, SAFE, AdviceSettings, advise

SETTINGS = (AdviceSettings(), AdviceSettings(keep_best=1, keep_latest=1),
            AdviceSettings(keep_best=0, keep_latest=1))
TIMM_STRAY = "checkpoint-1.pth.tar"  # top1 25.4: below the saver's best 3
HF_STRAY = "checkpoint-4"  # older than the Trainer's newest 4


def _suggested_names(folder: Path, plan: object) -> set[str]:
    return {os.path.basename(p) for p in suggested_paths(plan)
            if os.path.dirname(p) == str(folder)}


def _retention(plan: object):  # noqa: ANN202 - a Suggestion
    (found,) = [s for s in plan.suggestions if s.policy == "checkpoint-retention"]  # type: ignore[attr-defined]
    return found


def _timm(root: Path, run: str = "top1") -> Path:
    folder = timm_fixture_run(root, run)
    (folder / TIMM_STRAY).write_bytes(os.urandom(3000))
    age(root)
    return folder


def _hf(root: Path) -> Path:
    out = hf_fixture_run(root)
    make(out / HF_STRAY, {"model.safetensors": Sparse(265_760), "optimizer.pt": Sparse(533_259)})
    age(root)
    return out


@pytest.mark.parametrize("run", ["top1", "old"])
def test_timm_top_k_best_and_last_are_never_suggested(tmp_path: Path, run: str) -> None:
    folder = _timm(tmp_path, run)
    inv = inventory_of(tmp_path)
    for settings in SETTINGS:
        plan = advise(inv, settings)
        assert _suggested_names(folder, plan) == {TIMM_STRAY}, settings
        retention = _retention(plan)
        assert retention.risk == SAFE  # the best is recorded, the tool's top-k stays
        assert "--checkpoint-hist 3" in retention.reason


def test_hf_trainers_kept_set_is_never_suggested(tmp_path: Path) -> None:
    out = _hf(tmp_path)
    inv = inventory_of(tmp_path)
    for settings in SETTINGS:
        plan = advise(inv, settings)
        assert _suggested_names(out, plan) == {HF_STRAY}, settings
        retention = _retention(plan)
        assert retention.risk == SAFE
        assert "save_total_limit=4 with load_best_model_at_end" in retention.reason
    assert not {name for name in HF_KEPT} & _suggested_names(out, advise(inv))


def test_without_a_stray_the_trainer_already_did_the_retention(tmp_path: Path) -> None:
    out = hf_fixture_run(tmp_path)
    age(tmp_path)
    plan = advise(inventory_of(tmp_path))
    assert not [s for s in plan.suggestions if s.policy == "checkpoint-retention"]
    assert _suggested_names(out, plan) == set()


@pytest.mark.parametrize(("build", "keep", "released", "why"), [
    # checkpoint-5 (38.7) ranks below checkpoint-7 (39.9, the last) and checkpoint-4 (40.1,
    # the best): K=1 for this run lets it go; the best and last stay, and their links
    (_timm, (1, 1), "checkpoint-5.pth.tar", "ranked below the best 1 by the recorded eval_top1"),
    # of the Trainer's newest 4 besides the best, N=2 keeps the latest and the next one
    (_hf, (1, 2), "checkpoint-16", "older than the latest 2"),
])
def test_a_k_or_n_below_the_tools_own_for_this_run_releases_the_worst(
        tmp_path: Path, build: Callable[[Path], Path], keep: tuple[int, int], released: str,
        why: str) -> None:
    """Only a K or N set for this very run (--keep-for, the app's per-run keep) goes below
    what the tool keeps, and then only the worst (or oldest) of the tool's set goes, for
    review; never the best or the latest, whatever K and N."""
    folder = build(tmp_path)
    inv = inventory_of(tmp_path)
    series = series_at(inv, folder)
    plan = advise(inv, AdviceSettings(keep_per_series={series.id: keep}))
    assert _suggested_names(folder, plan) == {TIMM_STRAY, HF_STRAY, released} & {
        p.name for p in folder.iterdir()}
    retention = _retention(plan)
    assert retention.risk == REVIEW
    assert f"{released} ({why}) go as well" in retention.reason
    for few in ((0, 1), (1, 0), (0, 0)):
        gone = _suggested_names(folder, advise(inv, AdviceSettings(
            keep_per_series={series.id: few})))
        assert not gone & {name_of(series.best), name_of(series.latest)}, few


def _malicious(marker: Path, top: dict) -> bytes:
    """``top`` in a torch archive, with a value whose unpickling runs ``touch marker``."""

    class Call:
        def __reduce__(self) -> tuple:
            return os.system, (f"touch {marker}",)

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("archive/data.pkl", pickle.dumps({**top, "state_dict": Call()},
                                                          protocol=2))
        archive.writestr("archive/version", "3\n")
    return out.getvalue()


def test_malicious_records_are_never_executed(tmp_path: Path) -> None:
    """A last.pth.tar and training_args.bin that would run code: read as data, nothing
    runs; what is read names the stray as timm's best, and so it is protected too."""
    marker = tmp_path / "pwned"
    folder = _timm(tmp_path / "ws")
    (folder / "last.pth.tar").unlink()
    (folder / "last.pth.tar").write_bytes(_malicious(marker, {
        "epoch": 9, "metric": 99.0, "saver": {
            "checkpoint_files": [(TIMM_STRAY, 99.0)], "best_epoch": 1, "best_metric": 99.0,
            "pending": (9, 1.0)}}))
    out = _hf(tmp_path / "ws")
    for name in HF_KEPT:
        (out / name / "training_args.bin").write_bytes(_malicious(marker, {
            "save_total_limit": 1}))
    inv = inventory_of(tmp_path / "ws")
    advise(inv)
    assert not marker.exists()
    assert TIMM_STRAY not in _suggested_names(folder, advise(inv))
    assert not {"checkpoint-8", "checkpoint-24"} & _suggested_names(out, advise(inv))
