"""A Lightning series learns its best, latest and top-k from the ModelCheckpoint state inside
its ``.ckpt`` files (read as data, see test_lightning_ckpt.py), reading one file per folder.

The checkpoints are the real Lightning 2.6.6 output under tests/fixtures/lightning (a run of
6 epochs with save_top_k=2, filename '{epoch}-{step}', save_last=True, in min and max mode,
and a run with two callbacks), copied where Lightning writes them:
``lightning_logs/version_0/checkpoints``. Their recorded paths are those of the machine that
trained them (/tmp/mlspace-lightning-.../), so they match the files here only by suffix.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from layouts import inventory_of, make, name_of, series_at

from mlspace.classify import series_lightning
from mlspace.classify.readers import lightning_ckpt

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "lightning"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
CKPTS = "lightning_logs/version_0/checkpoints"


def lightning_run(root: Path, run: str, leave_out: tuple[str, ...] = ()) -> Path:
    """The fixture run ``run`` copied (mtimes too) into ``root/lightning_logs/...``."""
    folder = root / CKPTS
    folder.mkdir(parents=True)
    for ckpt in sorted((FIXTURES / run).iterdir()):
        if ckpt.name not in leave_out:
            shutil.copy2(ckpt, folder / ckpt.name)
    return folder


def _names(ids: tuple[str, ...]) -> set[str | None]:
    return {name_of(i) for i in ids}


@pytest.mark.parametrize(("run", "metric", "mode", "best_value"), [
    ("min", "val_loss", "min", 0.3), ("max", "val_acc", "max", 0.8)])
def test_best_latest_and_top_k_come_from_last_ckpt(tmp_path: Path, run: str, metric: str,
                                                   mode: str, best_value: float) -> None:
    folder = lightning_run(tmp_path, run)
    series = series_at(inventory_of(tmp_path), folder)
    assert name_of(series.best) == "epoch=3-step=8.ckpt"
    assert (series.best_metric, series.best_mode) == (metric, mode)
    assert series.best_value == pytest.approx(best_value)
    assert series.best_reason == (f"Lightning ModelCheckpoint state in last.ckpt: best "
                                  f"{metric} {best_value:g}")
    assert name_of(series.latest) == "last.ckpt"
    # the callback's top 2 are kept as the tool's: the best, and the other one
    assert _names(series.tool_kept) == {"epoch=5-step=12.ckpt"} and series.tool_kept_ranked
    assert f"save_top_k keeps the best 2 by {metric}, {mode}" in series.tool_kept_reason
    assert _names(series.protected) == {"epoch=3-step=8.ckpt", "epoch=5-step=12.ckpt",
                                        "last.ckpt"}


def test_recorded_scores_rank_the_top_k(tmp_path: Path) -> None:
    """The names carry no metric ('{epoch}-{step}'); the state's scores do."""
    folder = lightning_run(tmp_path, "min")
    inv = inventory_of(tmp_path)
    scores = {name: inv.artifact_by_id[f"checkpoint:{folder}/{name}"].metric("val_loss")
              for name in ("epoch=3-step=8.ckpt", "epoch=5-step=12.ckpt")}
    assert scores == {"epoch=3-step=8.ckpt": pytest.approx(0.3),
                      "epoch=5-step=12.ckpt": pytest.approx(0.4)}


def _state(best: str, top_k: dict[str, float], last: str = "") -> dict:
    """A ModelCheckpoint state as Lightning records it, paths on the training machine."""
    return {"monitor": "val_loss", "best_model_path": f"/train/{CKPTS}/{best}",
            "best_model_score": top_k[best], "current_score": top_k[best],
            "best_k_models": {f"/train/{CKPTS}/{name}": v for name, v in top_k.items()},
            "kth_best_model_path": "", "kth_value": max(top_k.values()),
            "last_model_path": f"/train/{CKPTS}/{last}" if last else "",
            "dirpath": f"/train/{CKPTS}"}


KEY = "ModelCheckpoint{'monitor': 'val_loss', 'mode': 'min'}"


def test_a_recorded_score_replaces_the_rounded_one_in_the_name(tmp_path: Path) -> None:
    folder = tmp_path / CKPTS
    top = {"epoch=1-val_loss=0.49.ckpt": 0.4931, "epoch=2-val_loss=0.51.ckpt": 0.5066}
    make(folder, {"epoch=1-val_loss=0.49.ckpt": 100, "epoch=2-val_loss=0.51.ckpt": torch_zip(
        {"epoch": 2, "callbacks": {KEY: _state("epoch=1-val_loss=0.49.ckpt", top)}})})
    inv = inventory_of(tmp_path)
    series = series_at(inv, folder)
    assert name_of(series.best) == "epoch=1-val_loss=0.49.ckpt"
    assert series.best_value == 0.4931
    assert inv.artifact_by_id[f"checkpoint:{folder}/epoch=2-val_loss=0.51.ckpt"].metric(
        "val_loss") == 0.5066
    assert _names(series.protected) == {"epoch=1-val_loss=0.49.ckpt",
                                        "epoch=2-val_loss=0.51.ckpt"}


def test_two_callbacks_protect_every_file_either_names(tmp_path: Path) -> None:
    """last.ckpt holds both callbacks' states; the val_acc one is stale (it names
    acc-epoch=1.ckpt, deleted since): acc-epoch=3.ckpt, written after last.ckpt, is read
    too, and its own record names it."""
    folder = lightning_run(tmp_path, "two_callbacks")
    series = series_at(inventory_of(tmp_path), folder)
    assert name_of(series.best) == "loss-epoch=3.ckpt" and series.best_metric == "val_loss"
    assert _names(series.protected) == {"acc-epoch=3.ckpt", "loss-epoch=3.ckpt", "last.ckpt"}


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    read: list[str] = []
    real = lightning_ckpt.read_checkpoint_file

    def counting(path: str) -> object:
        read.append(os.path.basename(path))
        return real(path)

    monkeypatch.setattr(lightning_ckpt, "read_checkpoint_file", counting)
    return read


@pytest.mark.parametrize(("run", "reads"), [
    ("min", ["last.ckpt"]), ("max", ["last.ckpt"]),
    ("two_callbacks", ["last.ckpt", "acc-epoch=3.ckpt"])])
def test_one_file_is_read_per_folder_and_a_rescan_reads_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: str, reads: list[str]) -> None:
    lightning_run(tmp_path, run)
    read = _count_reads(monkeypatch)
    inventory_of(tmp_path)
    assert read == reads
    inventory_of(tmp_path)  # nothing changed: remembered
    assert read == reads
    os.utime(tmp_path / CKPTS / "last.ckpt")  # a new save: read again
    inventory_of(tmp_path)
    assert read[len(reads):][:1] == ["last.ckpt"]


def test_without_last_ckpt_the_newest_record_tells(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    folder = lightning_run(tmp_path, "min", leave_out=("last.ckpt",))
    read = _count_reads(monkeypatch)
    series = series_at(inventory_of(tmp_path), folder)
    assert read == ["epoch=5-step=12.ckpt"]
    assert name_of(series.best) == "epoch=3-step=8.ckpt"
    assert "state in epoch=5-step=12.ckpt" in series.best_reason
    assert name_of(series.latest) == "epoch=5-step=12.ckpt"
    assert _names(series.protected) == {"epoch=3-step=8.ckpt", "epoch=5-step=12.ckpt"}


def test_a_state_without_monitor_protects_its_file_but_names_no_best(tmp_path: Path) -> None:
    """ModelCheckpoint(monitor=None) records its newest save as best_model_path: that is
    no best by any metric."""
    folder = tmp_path / CKPTS
    folder.mkdir(parents=True)
    state = {"monitor": None, "best_model_path": f"/r/{CKPTS}/epoch=5-step=12.ckpt",
             "best_model_score": None, "best_k_models": {}, "last_model_path": "",
             "dirpath": f"/r/{CKPTS}", "kth_best_model_path": "", "kth_value": None}
    make(folder, {"epoch=4-step=10.ckpt": 100,
                  "epoch=5-step=12.ckpt": torch_zip({"epoch": 5, "callbacks": {
                      "ModelCheckpoint{'monitor': None, 'mode': 'min'}": state}})})
    series = series_at(inventory_of(tmp_path), folder)
    assert series.best is None and series.tool_kept == ()
    assert "epoch=5-step=12.ckpt" in _names(series.protected)


def torch_zip(top: object) -> bytes:
    """``top`` saved the way torch.save lays out an archive (plain values only)."""
    import io
    import pickle
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("archive/data.pkl", pickle.dumps(top, protocol=2))
        archive.writestr("archive/byteorder", "little")
        archive.writestr("archive/version", "3\n")
    return out.getvalue()


def test_a_nan_in_a_name_never_wins(tmp_path: Path) -> None:
    folder = tmp_path / "ckpts"
    # the first candidate: min() and max() keep it, as nothing compares below or above NaN
    make(folder, {"epoch=0-val_loss=nan.ckpt": 10, "epoch=1-val_loss=0.70.ckpt": 10,
                  "epoch=2-val_loss=0.50.ckpt": 10, "epoch=3-val_loss=0.60.ckpt": 10})
    series = series_at(inventory_of(tmp_path), folder)
    assert name_of(series.best) == "epoch=2-val_loss=0.50.ckpt"
    assert series.best_value == 0.5
    maximising = tmp_path / "acc"
    make(maximising, {"epoch=1-val_acc=nan.ckpt": 10, "epoch=2-val_acc=0.70.ckpt": 10})
    assert name_of(series_at(inventory_of(tmp_path), maximising).best) == \
        "epoch=2-val_acc=0.70.ckpt"
    only_nan = tmp_path / "nan"
    make(only_nan, {"epoch=1-val_loss=nan.ckpt": 10, "epoch=2-val_loss=nan.ckpt": 10})
    series = series_at(inventory_of(tmp_path), only_nan)
    assert series.best is None and "NaN" in series.best_reason


def test_facts_are_remembered_by_file_identity() -> None:
    series_lightning._facts.cache_clear()
    paths = [str(p) for p in sorted((FIXTURES / "min").iterdir())]
    first = series_lightning.read_lightning_facts(str(FIXTURES / "min"), paths)
    assert first is not None and first.files_read == 1
    assert series_lightning.read_lightning_facts(str(FIXTURES / "min"), paths) is first
