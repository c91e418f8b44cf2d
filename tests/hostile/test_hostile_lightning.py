"""The advisor never suggests a checkpoint that Lightning's records name as best, latest or
one of the top-k: with the records intact, with ``last.ckpt`` missing, cut short, a FIFO or a
link out of the tree, and with a ``.ckpt`` that is a malicious pickle (never executed).

The runs are the real Lightning 2.6.6 checkpoints under tests/fixtures/lightning (6 epochs,
save_top_k=2, filename '{epoch}-{step}', save_last=True), copied where Lightning writes
them. ``epoch=0-step=2.ckpt`` is added to each: a stray save no record names (left by an
earlier run in the same folder), so there is something the advisor may suggest.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import shutil
import zipfile
from pathlib import Path

import pytest
from hostile_helpers import answers_quickly, mlspace_cli, suggested_paths
from layouts import inventory_of, name_of, series_at
from workspaces import age

from mlspace.advise import REVIEW, SAFE, AdviceSettings, advise

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lightning"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
CKPTS = "lightning_logs/version_0/checkpoints"
STRAY = "epoch=0-step=2.ckpt"
KEY_MIN = ("ModelCheckpoint{'monitor': 'val_loss', 'mode': 'min', 'every_n_train_steps': 0, "
           "'every_n_epochs': 1, 'train_time_interval': None}")
SETTINGS = (AdviceSettings(), AdviceSettings(keep_best=1, keep_latest=1),
            AdviceSettings(keep_best=0, keep_latest=1))


def _workspace(root: Path, run: str = "min", leave_out: tuple[str, ...] = ()) -> Path:
    """The fixture run in ``root/lightning_logs/version_0/checkpoints``, a month old, with
    the stray save older than all of it."""
    folder = root / CKPTS
    folder.mkdir(parents=True)
    for ckpt in sorted((FIXTURES / run).iterdir()):
        if ckpt.name not in leave_out:
            shutil.copy2(ckpt, folder / ckpt.name)
    (folder / STRAY).write_bytes(os.urandom(4000))  # no same-size twin of last.ckpt
    age(root)
    os.utime(folder / STRAY, (1e9, 1e9))
    return folder


def _recorded(run: str) -> set[str]:
    """Every file name any record of the run names as best, last or top-k: what
    torch.load + Lightning say the callbacks' states hold (expected.json)."""
    names = set()
    for rel, record in EXPECTED.items():
        if rel.startswith(f"{run}/"):
            for state in record["callbacks"].values():
                paths = [state["best_model_path"], state["last_model_path"],
                         *state["best_k_models"]]
                names |= {os.path.basename(p) for p in paths if p}
    return names


def _suggested_names(folder: Path, plan: object) -> set[str]:
    return {os.path.basename(p) for p in suggested_paths(plan)
            if os.path.dirname(p) == str(folder)}


@pytest.mark.parametrize("run", ["min", "max", "two_callbacks"])
def test_nothing_a_record_names_is_suggested(tmp_path: Path, run: str) -> None:
    folder = _workspace(tmp_path, run)
    inv = inventory_of(tmp_path)
    named = _recorded(run) & {p.name for p in folder.iterdir()}
    assert named == {p.name for p in folder.iterdir()} - {STRAY}  # all but the stray
    for settings in SETTINGS:
        plan = advise(inv, settings)
        assert _suggested_names(folder, plan) == {STRAY}, settings
        (retention,) = [s for s in plan.suggestions if s.policy == "checkpoint-retention"]
        assert retention.risk == SAFE  # the best is recorded, the tool's top-k stays


def test_the_tool_keeps_its_top_k_when_the_user_keeps_fewer_by_default(tmp_path: Path) -> None:
    """keep_best=1 for every series (the default K) is below the callback's k=2, but a
    global K was not chosen with this run's k in mind: the tool's top-k stays, and the
    reason says so."""
    folder = _workspace(tmp_path, "min")
    plan = advise(inventory_of(tmp_path), AdviceSettings(keep_best=1, keep_latest=1))
    (retention,) = [s for s in plan.suggestions if s.policy == "checkpoint-retention"]
    assert _suggested_names(folder, plan) == {STRAY}
    assert "save_top_k keeps the best 2 by val_loss" in retention.reason


def _released_run(root: Path) -> Path:
    """What min/epoch=3-step=8.ckpt's record describes: top 2 epoch=1 (0.5) and epoch=3
    (0.3, the best), no last.ckpt yet. epoch=1-step=4.ckpt stands in for the file Lightning
    deleted later (its content is never read: the record names it)."""
    folder = root / CKPTS
    folder.mkdir(parents=True)
    shutil.copy2(FIXTURES / "min" / "epoch=3-step=8.ckpt", folder / "epoch=3-step=8.ckpt")
    (folder / "epoch=1-step=4.ckpt").write_bytes(os.urandom(4000))
    age(root)
    os.utime(folder / "epoch=1-step=4.ckpt", (1e9, 1e9))
    return folder


def test_a_k_below_the_tools_set_for_this_run_releases_the_worse_top_k(tmp_path: Path) -> None:
    """Only a K set for this very series (--keep-for, the app's per-run keep) goes below
    the tool's k, and then only the worse of its top-k by the recorded scores goes, as a
    suggestion to review; the best never does (nor last.ckpt, see the next test)."""
    folder = _released_run(tmp_path)
    inv = inventory_of(tmp_path)
    series = series_at(inv, folder)
    assert _suggested_names(folder, advise(inv, AdviceSettings(keep_best=1, keep_latest=1))) \
        == set()
    plan = advise(inv, AdviceSettings(keep_per_series={series.id: (1, 1)}))
    (retention,) = [s for s in plan.suggestions if s.policy == "checkpoint-retention"]
    assert _suggested_names(folder, plan) == {"epoch=1-step=4.ckpt"}
    assert retention.risk == REVIEW
    assert "fewer of version_0 than the tool keeps itself" in retention.reason
    assert "epoch=3-step=8.ckpt — the latest" in retention.reason
    plan = advise(inv, AdviceSettings(keep_per_series={series.id: (2, 1)}))  # K = k
    assert _suggested_names(folder, plan) == set()


def test_a_per_run_k_of_one_never_releases_the_best_or_last(tmp_path: Path) -> None:
    folder = _workspace(tmp_path, "max")
    inv = inventory_of(tmp_path)
    series = series_at(inv, folder)
    for keep in ((1, 1), (0, 1)):
        plan = advise(inv, AdviceSettings(keep_per_series={series.id: keep}))
        gone = _suggested_names(folder, plan)
        assert gone, keep  # a K of one releases some: an empty plan would prove nothing
        assert not gone & {"epoch=3-step=8.ckpt", "last.ckpt"}, keep


def _malicious_ckpt(marker: Path) -> bytes:
    """A checkpoint whose unpickling runs ``touch marker`` (through os.system), in a
    Lightning-shaped dict that names the stray as best, in a torch archive."""

    class Call:
        def __reduce__(self) -> tuple:
            return os.system, (f"touch {marker}",)

    top = {"epoch": 9, "state_dict": Call(), "callbacks": {KEY_MIN: {
        "monitor": "val_loss", "best_model_path": f"/x/{CKPTS}/{STRAY}", "best_model_score": Call(),
        "best_k_models": {f"/x/{CKPTS}/{STRAY}": Call()}, "last_model_path": "",
        "dirpath": f"/x/{CKPTS}"}}}
    return _torch_zip(top)


def _break_last(folder: Path, how: str, outside: Path) -> None:
    last = folder / "last.ckpt"
    if how == "missing":
        last.unlink()
    elif how == "truncated":
        last.write_bytes(last.read_bytes()[: last.stat().st_size // 2])
    elif how == "fifo":
        last.unlink()
        os.mkfifo(last)
    elif how == "link outside":
        # A real Lightning record elsewhere that names the stray as the best; followed,
        # it would protect the stray and make the best an ordinary file.
        outside.mkdir(parents=True)
        state = dict(EXPECTED["min/last.ckpt"]["callbacks"][KEY_MIN])
        (outside / "evil.ckpt").write_bytes(_torch_zip({"epoch": 9, "callbacks": {KEY_MIN: {
            **state, "best_model_path": f"/r/{CKPTS}/{STRAY}", "best_model_score": 0.01,
            "best_k_models": {f"/r/{CKPTS}/{STRAY}": 0.01}, "current_score": 0.01,
            "kth_value": 0.01}}}))
        last.unlink()
        last.symlink_to(outside / "evil.ckpt")
    elif how == "malicious":
        last.write_bytes(_malicious_ckpt(outside / "pwned"))
    if how != "missing":
        os.utime(last, (2e9, 2e9), follow_symlinks=False)  # the newest, whatever it is


def _torch_zip(top: object) -> bytes:
    """``top`` pickled as torch.save lays out an archive."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("archive/data.pkl", pickle.dumps(top, protocol=2))
        archive.writestr("archive/version", "3\n")
    return out.getvalue()


@pytest.mark.parametrize("how", ["missing", "truncated", "fifo", "link outside", "malicious"])
def test_an_unusable_newest_record_leaves_the_older_ones_in_charge(tmp_path: Path,
                                                                   how: str) -> None:
    folder = _workspace(tmp_path / "ws", "min")
    _break_last(folder, how, tmp_path / "elsewhere")
    inv = answers_quickly(inventory_of, tmp_path / "ws")
    series = series_at(inv, folder)
    assert name_of(series.best) == "epoch=3-step=8.ckpt"
    assert "state in epoch=5-step=12.ckpt" in series.best_reason
    assert {"epoch=3-step=8.ckpt", "epoch=5-step=12.ckpt"} <= {
        name_of(p) for p in series.protected}
    # The malicious pickle, read as data, names the stray as its best: protected too. The
    # record behind the link is not read: the stray it names is not protected.
    stray_goes = how != "malicious"
    for settings in SETTINGS:
        gone = _suggested_names(folder, advise(inv, settings))
        assert gone == ({STRAY} if stray_goes else set()), (how, settings)  # never last.ckpt
    assert not (tmp_path / "elsewhere" / "pwned").exists()


def test_a_malicious_checkpoint_is_never_executed_by_the_cli(tmp_path: Path) -> None:
    """Every .ckpt of the folder is malicious, the newest named last.ckpt: the whole CLI
    (scan, classify, advise, print the plan) runs, and nothing in them does."""
    marker = tmp_path / "pwned"
    folder = _workspace(tmp_path / "ws", "min")
    for ckpt in folder.iterdir():
        ckpt.write_bytes(_malicious_ckpt(marker))
    result = mlspace_cli("plan", str(tmp_path / "ws"))
    assert "Traceback" not in result.stderr, result.stderr
    assert not marker.exists()
    inv = inventory_of(tmp_path / "ws")
    series = series_at(inv, folder)
    # the pickle's plain values still read: it names the stray, which is protected as such
    assert name_of(series.best) == STRAY
    assert not marker.exists()


def test_metric_less_names_with_no_readable_record_are_for_review(tmp_path: Path) -> None:
    """'{epoch}-{step}' names and no readable state (the checkpoints are not torch files):
    the best is unknown and the folder may be a top-k. The suggestion keeps the latest, says
    which checkpoints it keeps and why, and is never called safe."""
    folder = tmp_path / CKPTS
    folder.mkdir(parents=True)
    for epoch in range(6):
        (folder / f"epoch={epoch}-step={2 * epoch + 2}.ckpt").write_bytes(os.urandom(3000))
    (folder / "last.ckpt").write_bytes(os.urandom(3001))
    age(tmp_path)
    plan = advise(inventory_of(tmp_path))
    (retention,) = [s for s in plan.suggestions if s.policy == "checkpoint-retention"]
    assert retention.risk == REVIEW
    assert "safe" not in (retention.title + retention.reason).lower()
    assert _suggested_names(folder, plan) == {f"epoch={e}-step={2 * e + 2}.ckpt"
                                              for e in range(4)}
    assert "save_top_k=k) keeps only its best k" in retention.reason
    assert "Kept: epoch=5-step=12.ckpt — one of the latest 2; epoch=4-step=10.ckpt — one of " \
           "the latest 2; last.ckpt — the latest: last.ckpt: named last by the tool" \
           in retention.reason


def test_a_nan_never_ranks_among_the_best_k(tmp_path: Path) -> None:
    folder = tmp_path / "ckpts"
    folder.mkdir()
    for name in ("epoch=0-val_loss=nan.ckpt", "epoch=1-val_loss=0.70.ckpt",
                 "epoch=2-val_loss=0.50.ckpt", "epoch=3-val_loss=0.60.ckpt",
                 "epoch=4-val_loss=0.90.ckpt", "epoch=5-val_loss=0.95.ckpt"):
        (folder / name).write_bytes(os.urandom(100))
    age(tmp_path)
    plan = advise(inventory_of(tmp_path), AdviceSettings(keep_best=2, keep_latest=1))
    assert _suggested_names(folder, plan) == {"epoch=0-val_loss=nan.ckpt",
                                              "epoch=1-val_loss=0.70.ckpt",
                                              "epoch=4-val_loss=0.90.ckpt"}
