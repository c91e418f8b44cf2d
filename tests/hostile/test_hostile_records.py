"""An odd but valid trainer_state.json (too deep for the parser, numbers beyond float,
NaN, strings or lists where numbers or objects go) never crashes the readers, the commands or
the app: a record that cannot be used is treated as absent, a number that cannot be used as
unknown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from gui_helpers import show_tab
from hostile_helpers import assert_clean_run, mlspace_cli, sane_record, suggested_paths
from layouts import inventory_of, make, trainer_state

from mlspace.advise import advise
from mlspace.classify.readers.records import read_trainer_state
from mlspace.report.model import build_report
from mlspace.report.render import RENDERERS
from mlspace.report.story import inventory_story

if TYPE_CHECKING:
    from pytestqt.qtbot import QtBot

BIG = "1" + "0" * 399  # a 400-digit integer: an int to json, beyond float


def _text(step: int, **raw: str) -> str:
    """A real trainer_state.json at ``step`` (best checkpoint-200) with some values replaced
    by raw JSON text: ``epoch="1e999"`` or ``log_epoch=...`` / ``log_step=...`` /
    ``eval_loss=...`` for every log_history entry."""
    evals = [(s, v) for s, v in ((100, 0.9), (200, 0.4), (300, 0.5)) if s <= step]
    state = trainer_state(step, "outputs/run/checkpoint-200", 0.4, evals)
    for key in ("epoch", "global_step", "best_metric", "best_model_checkpoint"):
        if key in raw:
            state[key] = f"@@{key}@@"
    for entry in state["log_history"]:
        for key, field in (("log_epoch", "epoch"), ("log_step", "step"),
                           ("eval_loss", "eval_loss")):
            if key in raw and field in entry:
                entry[field] = f"@@{key}@@"
    text = json.dumps(state)
    for key, value in raw.items():
        text = text.replace(f'"@@{key}@@"', value)
    return text


def _deep(depth: int) -> str:
    return '{"global_step": 300, "log_history": ' + "[" * depth + "]" * depth + "}"


#: name -> function of the step giving the record's text.
ODD = {
    "nested 100,000 deep": lambda step: _deep(100_000),
    "objects nested 100,000 deep": lambda step: '{"a": ' * 100_000 + "1" + "}" * 100_000,
    "epoch 1e999": lambda step: _text(step, epoch="1e999", log_epoch="1e999"),
    "best_metric 1e999": lambda step: _text(step, best_metric="1e999"),
    "best_metric -Infinity": lambda step: _text(step, best_metric="-Infinity"),
    "global_step of 400 digits": lambda step: _text(step, global_step=BIG, log_step=BIG),
    "epoch of 400 digits": lambda step: _text(step, epoch=BIG, log_epoch=BIG),
    "metric of 400 digits": lambda step: _text(step, eval_loss=BIG, best_metric=BIG),
    "an integer of 5000 digits": lambda step: _text(step, global_step="9" * 5000),
    "NaN": lambda step: _text(step, epoch="NaN", log_epoch="NaN", eval_loss="NaN",
                              best_metric="NaN"),
    "strings for numbers": lambda step: _text(step, epoch='"2.0"', global_step='"300"',
                                              log_step='"300"', eval_loss='"0.4"',
                                              best_metric='"0.4"'),
    "booleans for numbers": lambda step: _text(step, global_step="true", log_step="true",
                                               log_epoch="false", eval_loss="true"),
    "a list for the record": lambda step: "[" + _text(step) + "]",
    "lists for log entries": lambda step: _text(step).replace('"log_history": [{', (
        '"log_history": [[1, 2], "x", null, {')),
    "an object for log_history": lambda step: _text(step).replace('"log_history": [', (
        '"log_history": {"x": [')).replace('], "is_local', ']}, "is_local'),
    "a list for best_model_checkpoint": lambda step: _text(
        step, best_model_checkpoint='["outputs/run/checkpoint-200"]'),
    "a number for best_model_checkpoint": lambda step: _text(step, best_model_checkpoint="200"),
    "nulls everywhere": lambda step: json.dumps(dict.fromkeys(
        ("epoch", "global_step", "best_metric", "best_model_checkpoint", "log_history"))),
}


def _run(root: Path, name: str) -> dict[str, object]:
    """A run under outputs/<name> with three checkpoints, each with the odd record."""
    spec: dict[str, object] = {}
    for step in (100, 200, 300):
        base = f"outputs/{name.replace(' ', '-')}/checkpoint-{step}"
        spec[f"{base}/model.safetensors"] = 1000
        spec[f"{base}/optimizer.pt"] = 2000
        spec[f"{base}/trainer_state.json"] = ODD[name](step).encode()
    make(root, spec)
    return spec


@pytest.mark.parametrize("name", list(ODD))
def test_the_reader_gives_a_sane_record_or_none(tmp_path: Path, name: str) -> None:
    """Each odd trainer_state.json read directly: None, or only finite numbers."""
    record = tmp_path / "trainer_state.json"
    record.write_text(ODD[name](300))
    state = read_trainer_state(str(record))
    if state is not None:
        sane_record(state)
    if name in ("nested 100,000 deep", "objects nested 100,000 deep",
                "an integer of 5000 digits", "a list for the record",
                "a list for best_model_checkpoint", "a number for best_model_checkpoint",
                "an object for log_history"):
        assert state is None, name  # unusable as a whole: treated as absent


def test_one_odd_number_leaves_the_rest_of_the_record(tmp_path: Path) -> None:
    """best_metric 1e999 (HF writes Infinity for a diverged metric): that value is unknown,
    the best checkpoint the record names still counts."""
    record = tmp_path / "trainer_state.json"
    record.write_text(ODD["best_metric 1e999"](300))
    state = read_trainer_state(str(record))
    assert state is not None
    assert state.best_metric is None
    assert state.best_checkpoint == "checkpoint-200"
    assert state.global_step == 300


#: Records with odd numbers but an intact best_model_checkpoint: their best still counts.
BEST_STANDS = ("epoch 1e999", "best_metric 1e999", "best_metric -Infinity",
               "global_step of 400 digits", "epoch of 400 digits", "metric of 400 digits", "NaN",
               "strings for numbers", "booleans for numbers", "lists for log entries")


@pytest.mark.parametrize("name", list(ODD))
def test_classify_advise_and_report_take_it(tmp_path: Path, name: str) -> None:
    """Each odd record in every checkpoint of a run: inventory, plan, story and every report
    format are made without an error."""
    root = tmp_path / "ws"
    _run(root, name)
    inv = inventory_of(root)
    plan = advise(inv)
    (series,) = inv.series
    if name in BEST_STANDS:
        assert series.best is not None and series.best.endswith("/checkpoint-200")
        assert not any(p.endswith("/checkpoint-200") for p in suggested_paths(plan))
    assert inventory_story(inv)
    report = build_report(inv, plan)
    for render in set(RENDERERS.values()):
        assert render(report)
    json.dumps(report.data, allow_nan=False)  # no inf or NaN came through from a record


def _workspace(root: Path) -> Path:
    for name in ODD:
        _run(root, name)
    return root


def _strict_json(text: str) -> object:
    def refuse(token: str) -> object:
        raise AssertionError(f"{token} in the output")

    return json.loads(text, parse_constant=refuse)


def test_every_command_runs_normally(tmp_path: Path) -> None:
    """A workspace holding every odd record: scan, inventory, plan, report and clean run
    with no traceback and exit 0, and their JSON holds no NaN or Infinity."""
    root = _workspace(tmp_path / "ws")
    for args in (("scan", str(root)), ("scan", str(root), "--format", "json"),
                 ("inventory", str(root))):
        assert_clean_run(mlspace_cli(*args))
    inventory = mlspace_cli("inventory", str(root), "--format", "json")
    assert_clean_run(inventory)
    _strict_json(inventory.stdout)
    assert_clean_run(mlspace_cli("plan", str(root)))
    plan = mlspace_cli("plan", str(root), "--format", "json")
    assert_clean_run(plan)
    suggestions = _strict_json(plan.stdout)["suggestions"]  # type: ignore[index]
    assert suggestions
    for suffix in (".html", ".json", ".md", ".csv"):
        out = tmp_path / f"report{suffix}"
        assert_clean_run(mlspace_cli("report", str(root), "-o", str(out)))
        if suffix == ".json":
            _strict_json(out.read_text())
    ids = [s["id"] for s in suggestions]
    dry = mlspace_cli("clean", str(root), "--apply", *ids, "--dry-run")
    assert_clean_run(dry)
    assert "Dry run: nothing was moved." in dry.stdout


def test_the_app_shows_the_workspace(tmp_path: Path, qtbot: QtBot,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The app opens a workspace holding every odd record: the scan finishes (no "scan
    failed" dialog) and the runs view and every checkpoint's details are shown."""
    from PySide6.QtWidgets import QMessageBox

    from mlspace.ui.main_window import MainWindow

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"unexpected dialog: {args[1:3]}")

    for box in ("critical", "warning", "information", "question"):
        monkeypatch.setattr(QMessageBox, box, refuse)
    root = _workspace(tmp_path / "ws")
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    with qtbot.waitSignal(win.scan_finished, timeout=60_000):
        win.open_paths([str(root)])
    show_tab(win, win.runs)
    assert win.runs.topLevelItemCount() == len(ODD)
    inv = win.ws.inventory
    for artifact in inv.artifacts:
        win.details.show_entry(artifact.entry)
        assert artifact.name in win.details.toPlainText()
