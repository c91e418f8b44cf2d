"""Records are opened only where the scan saw a regular file with something in it
(classify.record_files): an empty trainer_state.json, a link or a folder of that name
is an absent record without a system call, and the series still reads the real ones."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from layouts import inventory_of, make, name_of, series_at, trainer_state

from mlspace.classify import series_hf
from mlspace.classify.readers import shape_records
from mlspace.classify.record_files import member_record_names, record_names
from mlspace.scan import scan


def test_only_regular_non_empty_files_are_record_names(tmp_path: Path) -> None:
    make(tmp_path, {"run/full.json": "{}", "run/empty.json": "", "run/sub/x.json": "{}"})
    os.symlink("full.json", tmp_path / "run/link.json")
    os.mkfifo(tmp_path / "run/pipe.json")
    snap = scan([str(tmp_path)])
    run = snap.find(str(tmp_path / "run"))
    assert record_names(snap, snap.row_of(run)) == ["full.json"]
    file_entry = snap.find(str(tmp_path / "run/full.json"))
    assert member_record_names(snap, [run, file_entry, snap.find(str(tmp_path / "run/sub"))]) \
        == [["full.json"], [], ["x.json"]]


def _hf_run(root: Path, state_of: dict[int, str]) -> Path:
    spec: dict[str, object] = {}
    for step, state in state_of.items():
        spec |= {f"out/checkpoint-{step}/model.safetensors": 4000,
                 f"out/checkpoint-{step}/training_args.bin": "",
                 f"out/checkpoint-{step}/trainer_state.json": state}
    return make(root, spec)


def _count_opens(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[str]:
    opened: list[str] = []
    real = getattr(module, name)

    def counting(path: str, *args: object) -> object:
        opened.append(os.path.basename(os.path.dirname(path)) + "/" + os.path.basename(path))
        return real(path, *args)

    monkeypatch.setattr(module, name, counting)
    return opened


def test_empty_records_are_not_opened_and_real_ones_still_decide(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    best = "out/checkpoint-200"
    root = _hf_run(tmp_path, {100: "", 200: "", 300: trainer_state(300, best, 0.5,
                                                                   [(200, 0.5), (300, 0.7)])})
    states = _count_opens(monkeypatch, series_hf, "read_trainer_state")
    args = _count_opens(monkeypatch, series_hf, "read_training_args")
    inv = inventory_of(root)
    series = series_at(inv, root / "out")
    assert name_of(series.best) == "checkpoint-200"
    assert name_of(series.latest) == "checkpoint-300"
    # the newest record named the best, so reading stopped there; the empty ones were
    # never opened, nor were the empty training_args.bin files
    assert states == ["checkpoint-300/trainer_state.json"]
    assert args == []


def test_shape_records_skip_empty_files(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    root = make(tmp_path, {"trials/trial_0/weights.pt": 4000, "trials/trial_0/trial.json": "",
                           "trials/trial_1/weights.pt": 4000,
                           "trials/trial_1/trial.json": '{"score": 0.9, "direction": "max"}',
                           "trials/trial_2/weights.pt": 4000,
                           "trials/trial_2/trial.json": '{"score": 0.7, "direction": "max"}'})
    opened = _count_opens(monkeypatch, shape_records, "read_json")
    series = series_at(inventory_of(root), root / "trials")
    assert name_of(series.best) == "trial_1"
    assert "trial_0/trial.json" not in opened
    assert "trial_1/trial.json" in opened
