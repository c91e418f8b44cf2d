"""Which checkpoint is best when the newest trainer_state.json is missing, cut short, not a
file, a link out of the tree, or disagrees with the older ones: the best any trustworthy
record names is never suggested for removal."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hostile_helpers import answers_quickly, suggested_paths, touches
from layouts import inventory_of, make, name_of, series_at, trainer_state
from workspaces import age

from mlspace.advise import AdviceSettings, advise

RUN = "outputs/run"
STEPS = range(10, 101, 10)
#: eval_loss by step: 50 is the best up to step 90; 80 would be the best if it were lower.
EVALS = {10: 0.9, 20: 0.8, 30: 0.7, 40: 0.6, 50: 0.3, 60: 0.5, 70: 0.45, 80: 0.4, 90: 0.42,
         100: 0.41}


def _state(step: int, best_step: int, evals: dict[int, float] | None = None) -> dict:
    """HF Trainer's trainer_state.json at ``step`` (its shape: best_metric,
    best_model_checkpoint as the output dir path, epoch, global_step, log_history...)."""
    evals = evals or EVALS
    return trainer_state(step, f"{RUN}/checkpoint-{best_step}", evals[best_step],
                         [(s, v) for s, v in sorted(evals.items()) if s <= step])


def _run(root: Path, best_of: dict[int, int]) -> Path:
    """checkpoint-10 ... checkpoint-100 (weights only: save_only_model), each with the
    trainer_state.json naming ``best_of[step]`` as best."""
    spec: dict[str, object] = {}
    for step in STEPS:
        base = f"{RUN}/checkpoint-{step}"
        spec[f"{base}/model.safetensors"] = 2000
        spec[f"{base}/config.json"] = "{}"
        spec[f"{base}/training_args.bin"] = 100
        spec[f"{base}/trainer_state.json"] = _state(step, best_of[step])
    root = make(root, spec)
    age(root)  # a finished run: nothing is being written
    return root


def _checkpoint(root: Path, step: int) -> str:
    return str(root / RUN / f"checkpoint-{step}")


def _break_newest(root: Path, how: str, outside: Path) -> None:
    record = root / RUN / "checkpoint-100" / "trainer_state.json"
    if how == "deleted":
        record.unlink()
    elif how == "truncated":
        text = record.read_text()
        record.write_text(text[: len(text) // 2])
    elif how == "fifo":
        record.unlink()
        os.mkfifo(record)
    elif how == "empty":
        record.write_text("")
    elif how == "link outside":
        # A record elsewhere that names checkpoint-30 (a poor one) as best; following the
        # link would move the protection from 50 to 30.
        outside.mkdir(parents=True)
        (outside / "state.json").write_text(json.dumps(_state(100, 30)))
        record.unlink()
        record.symlink_to(outside / "state.json")


@pytest.mark.parametrize("how", ["deleted", "truncated", "fifo", "empty", "link outside"])
def test_the_best_named_by_older_records_stays_when_the_newest_is_unusable(
        tmp_path: Path, how: str) -> None:
    """checkpoint-100's trainer_state.json deleted / cut in half / a FIFO / empty / a link to
    a file outside the tree; nine older records name checkpoint-50: it is kept."""
    root = _run(tmp_path / "ws", {s: 10 if s < 50 else 50 for s in STEPS})
    _break_newest(root, how, tmp_path / "elsewhere")
    age(root)  # broken a while ago: not a save in progress
    inv = answers_quickly(inventory_of, root)
    series = series_at(inv, root / RUN)
    assert name_of(series.best) == "checkpoint-50"
    assert name_of(series.latest) == "checkpoint-100"
    assert series.best_metric == "eval_loss" and series.best_value == 0.3
    for settings in (AdviceSettings(), AdviceSettings(keep_best=1, keep_latest=1)):
        paths = suggested_paths(advise(inv, settings))
        assert paths, "older checkpoints are still suggested"
        assert not touches(paths, _checkpoint(root, 50))
        assert not touches(paths, _checkpoint(root, 100))
    if how == "link outside":  # the outside record decided nothing: its best is not kept
        assert touches(suggested_paths(advise(inv)), _checkpoint(root, 30))


def test_records_that_disagree_keep_every_best_they_name(tmp_path: Path) -> None:
    """checkpoint-100 names checkpoint-80 as best, the nine older ones name checkpoint-50
    (even checkpoint-90, written after 80): both are kept."""
    root = _run(tmp_path / "ws", {s: 80 if s == 100 else 50 for s in STEPS})
    inv = inventory_of(root)
    series = series_at(inv, root / RUN)
    assert name_of(series.best) == "checkpoint-80"  # the newest record's word
    assert "checkpoint-50, kept too" in series.best_reason
    assert {"checkpoint-50", "checkpoint-80", "checkpoint-100"} <= {
        name_of(p) for p in series.protected}
    for settings in (AdviceSettings(), AdviceSettings(keep_best=1, keep_latest=1)):
        paths = suggested_paths(advise(inv, settings))
        for step in (50, 80, 100):
            assert not touches(paths, _checkpoint(root, step)), step
        assert touches(paths, _checkpoint(root, 60))


def test_a_best_that_moved_on_is_not_kept_forever(tmp_path: Path) -> None:
    """Records that agree (best 50 until step 70, then 80 from step 80 on, as a run whose
    loss kept falling writes them): the old best is an ordinary checkpoint again."""
    evals = {**EVALS, 80: 0.2, 90: 0.25, 100: 0.3}
    spec: dict[str, object] = {}
    for step in STEPS:
        best = 80 if step >= 80 else 50 if step >= 50 else 10
        spec[f"{RUN}/checkpoint-{step}/model.safetensors"] = 2000
        spec[f"{RUN}/checkpoint-{step}/trainer_state.json"] = _state(step, best, evals)
    root = make(tmp_path / "ws", spec)
    age(root)
    inv = inventory_of(root)
    series = series_at(inv, root / RUN)
    assert name_of(series.best) == "checkpoint-80"
    assert {name_of(p) for p in series.protected} == {"checkpoint-80", "checkpoint-100"}
    paths = suggested_paths(advise(inv, AdviceSettings(keep_best=1, keep_latest=1)))
    assert touches(paths, _checkpoint(root, 50))


def test_only_the_records_that_can_matter_are_read(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Records are read from the newest down to the best it names (older ones are
    outdated), and only the newest when it names no best: not one per checkpoint."""
    from mlspace.classify import series_hf as series_module

    read: list[str] = []
    real = series_module.read_trainer_state

    def counting(path: str) -> object:
        read.append(Path(path).parent.name)
        return real(path)

    monkeypatch.setattr(series_module, "read_trainer_state", counting)
    evals = {**EVALS, 80: 0.2, 90: 0.25, 100: 0.3}
    spec: dict[str, object] = {}
    for step in STEPS:
        spec[f"a/{RUN}/checkpoint-{step}/model.safetensors"] = 100
        spec[f"a/{RUN}/checkpoint-{step}/trainer_state.json"] = _state(
            step, 80 if step >= 80 else 50 if step >= 50 else 10, evals)
        spec[f"b/{RUN}/checkpoint-{step}/model.safetensors"] = 100
        spec[f"b/{RUN}/checkpoint-{step}/trainer_state.json"] = trainer_state(step, None, None,
                                                                              [])
    root = make(tmp_path / "ws", spec)
    inventory_of(root / "a")
    assert read == ["checkpoint-100", "checkpoint-90", "checkpoint-80"]
    read.clear()
    inventory_of(root / "b")
    assert read == ["checkpoint-100"]
