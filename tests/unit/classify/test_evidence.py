"""Where names only guess, what files are and how folders are shaped decide (issue 27):
contents through one head per undecided folder, none where names decide; folder shapes;
records found by their shape; and a saved scan, which cannot read, judged by names."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from layouts import categories_by_path, inventory_of, make, name_of, series_at

from mlspace.classify.readers import sniff as sniff_module
from mlspace.classify.structure import (
    index_says_cache,
    repeated_member_sets,
    shards,
    twin_components,
)
from mlspace.index.offline import classify_offline
from mlspace.scan import ScanOptions, scan


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


POLICY = _zip({"data": b'{"policy_class": "x"}', "policy.pth": b"\0" * 4000,
               "policy.optimizer.pth": b"\0" * 4000})
TORCH = _zip({"archive/data.pkl": b"\x80\x02}q\x00.", "archive/version": b"3\n"})
METRICS = "epoch,train_loss,valid_loss,accuracy\n0,0.6,0.5,0.7\n1,0.5,0.4,0.8\n2,0.4,0.4,0.82\n"
DATA = "f0,f1,f2,label\n" + "0.1,0.2,0.3,1\n" * 50


def test_what_files_hold_settles_what_their_names_only_guessed(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {
        "agent/ppo_cartpole.zip": POLICY, "agent/vec_normalize.pkl": b"\x80\x04N.",
        "learner/export.pkl": TORCH, "learner/history.csv": METRICS,
        "tables/train.csv": DATA, "tables/valid.csv": DATA,
        "jobs/754_0_log.out": "started\n", "jobs/754_0_log.err": "",
        "jobs/754_submitted.pkl": b"\x80\x05N.", "jobs/754_0_result.pkl": b"\x80\x05K\x01.",
        "snapshots/snapshot_iter_100": TORCH,
    })
    cats = categories_by_path(inventory_of(root))
    assert cats["agent/ppo_cartpole.zip"] == "checkpoint"  # a zip holding policy.pth
    assert cats["agent/vec_normalize.pkl"] == "checkpoint"  # state saved beside the model
    assert cats["learner/export.pkl"] == "checkpoint"  # a torch archive, whatever its name
    assert cats["learner/history.csv"] == "log"  # a learner's history is no dataset
    assert cats["tables/train.csv"] == cats["tables/valid.csv"] == "dataset"
    assert cats["jobs/754_submitted.pkl"] == cats["jobs/754_0_result.pkl"] == "log"
    assert cats["snapshots/snapshot_iter_100"] == "checkpoint"


def test_one_head_per_undecided_folder_and_none_where_names_decide(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec: dict[str, object] = {}
    for step in (100, 200):  # decided by names: a checkpoint series and a dataset
        spec[f"run/checkpoint-{step}/model.safetensors"] = 100
        spec[f"run/checkpoint-{step}/config.json"] = "{}"
    spec.update({f"data/images/img_{i}.jpg": 10 for i in range(20)})
    spec.update({"src/train.py": "import torch\n", "src/utils.py": "\n", "README.md": "#\n"})
    for folder in ("a", "b", "c"):  # undecided: several guesses each
        spec.update({f"{folder}/x.pkl": b"\x80\x04N.", f"{folder}/y.zip": POLICY,
                     f"{folder}/z.bin": 100, f"{folder}/notes.json": "{}"})
    root = make(tmp_path / "ws", spec)
    read: list[str] = []
    real = sniff_module.read_head

    def counting(path: str, length: int, **kwargs: object) -> bytes:
        read.append(path)
        return real(path, length, **kwargs)

    monkeypatch.setattr(sniff_module, "read_head", counting)
    inventory_of(root)
    assert sorted(Path(p).parent.name for p in read) == ["a", "b", "c"]


def test_numbered_siblings_with_the_same_members_are_a_series(tmp_path: Path) -> None:
    spec: dict[str, object] = {"tuning/oracle.json": '{"ongoing_trials": {}}'}
    scores = {0: 0.91, 1: 0.88, 2: 0.93, 3: 0.86}
    for trial, score in scores.items():
        spec[f"tuning/trial_{trial}/checkpoint.weights.h5"] = 1000
        spec[f"tuning/trial_{trial}/trial.json"] = json.dumps({
            "trial_id": str(trial), "score": score, "status": "COMPLETED",
            "metrics": {"metrics": {"val_accuracy": {
                "direction": "max", "observations": [{"value": [score], "step": 2}]}}}})
    # numbered runs of a sweep, each with its own logs: runs, not saves to thin out
    for job in (0, 1):
        spec[f"multirun/{job}/model.pt"] = 1000
        spec[f"multirun/{job}/train.log"] = "done\n"
    root = make(tmp_path / "ws", spec)
    inv = inventory_of(root)
    cats = categories_by_path(inv)
    assert cats["tuning/trial_0/trial.json"] == "checkpoint"
    assert cats["tuning/oracle.json"] == "log"
    series = series_at(inv, root / "tuning")
    assert [name_of(m) for m in series.members] == [f"trial_{t}" for t in range(4)]
    assert name_of(series.best) == "trial_2"  # the highest score, as the record's direction says
    assert (series.best_metric, series.best_mode) == ("val_accuracy", "max")
    assert cats["multirun/0/train.log"] == "log"
    assert not any(a.path == str(root / "multirun/0") for a in inv.artifacts)


def test_records_beside_checkpoints_name_the_best_and_score_them(tmp_path: Path) -> None:
    spec: dict[str, object] = {f"named/net_{i}.pt": 100 for i in (1, 2, 3)}
    spec["named/status.json"] = json.dumps({"best_checkpoint": "named/net_2.pt",
                                            "current": "net_3.pt"})
    spec.update({f"scored/net_{i}.pt": 100 for i in (1, 2, 3)})
    spec["scored/evaluations.csv"] = ("checkpoint,val_loss\nnet_1.pt,0.5\nnet_2.pt,0.3\n"
                                      "net_3.pt,0.4\n")
    root = make(tmp_path / "ws", spec)
    inv = inventory_of(root)
    named = series_at(inv, root / "named")
    assert name_of(named.best) == "net_2.pt" and "status.json" in named.best_reason
    assert name_of(named.latest) == "net_3.pt"
    scored = series_at(inv, root / "scored")
    assert (name_of(scored.best), scored.best_mode) == ("net_2.pt", "min")


def test_twin_component_sets_and_shard_sets(tmp_path: Path) -> None:
    index = {"shards": [{"raw_data": {"basename": f"shard.{i:05d}.mds"},
                         "zip_data": {"basename": f"shard.{i:05d}.mds.zstd"}} for i in range(3)]}
    spec: dict[str, object] = {
        "exp/params.pt": TORCH, "exp/history.json": "[]", "exp/train_end_params.pt": TORCH,
        "exp/train_end_history.json": "[]",
        "remote/index.json": json.dumps(index),
        **{f"remote/shard.{i:05d}.mds.zstd": 1000 for i in range(3)},
        "local/index.json": json.dumps(index),
        **{f"local/shard.{i:05d}.mds": 1000 for i in range(3)},
    }
    cats = categories_by_path(inventory_of(make(tmp_path / "ws", spec)))
    assert cats["exp/history.json"] == cats["exp/train_end_history.json"] == "checkpoint"
    assert cats["remote/index.json"] == cats["remote/shard.00000.mds.zstd"] == "dataset"
    assert cats["local/index.json"] == cats["local/shard.00001.mds"] == "cache"


def test_structure_patterns_as_pure_functions() -> None:
    same = frozenset({"trial.json", "w.h5"})
    assert sorted(repeated_member_sets({"trial_0": same, "trial_1": same, "trial_2": frozenset(
        {"trial.json"}), "notes": same})) == ["trial_0", "trial_1"]
    assert twin_components(["params.pt", "train_end_params.pt", "notes.txt"]) == {
        "params.pt": "", "train_end_params.pt": "train_end_"}
    assert sorted(shards(["a-00001.tar", "a-00002.tar", "index.json"])) == [
        "a-00001.tar", "a-00002.tar"]
    index = json.dumps({"shards": [{"zip_data": {"basename": "s.0.mds.zstd"}}]})
    assert index_says_cache(index, {"s.0.mds", "index.json"})
    assert not index_says_cache(index, {"s.0.mds.zstd", "index.json"})
    assert not index_says_cache("not json", {"s.0.mds"})
    cut = index[: index.index("zstd") + 4] + '"'  # a head cut mid-index still tells
    assert index_says_cache(cut, {"s.0.mds"})


def test_a_saved_scan_from_elsewhere_is_judged_by_names_and_says_so(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {"agent/ppo.zip": POLICY, "agent/vec.pkl": b"\x80\x04N.",
                                  "run/model.pt": 100})
    snapshot = scan([root], ScanOptions(workers=1))
    offline = classify_offline(snapshot)
    cats = categories_by_path(offline)
    assert cats["agent/ppo.zip"] == "other"  # its bytes cannot be read here: a name's guess
    assert cats["run/model.pt"] == "checkpoint"
    assert any("classified by their names" in w for w in offline.warnings)
    assert categories_by_path(inventory_of(root))["agent/ppo.zip"] == "checkpoint"  # here
