"""Second round of issue 27's principles, each on a small workspace: an index names its
shards; shards kept under a digest or in a folder named a cache are a loader's copy;
model-named files make their folder's tables (and, beside a series, its config) the run's
records; a pickle named as a record is one; profiles and traces are debug output, by their
names and by their bytes."""

from __future__ import annotations

import json
from pathlib import Path

from layouts import categories_by_path, inventory_of, make

from mlspace.classify.name_meaning import says_cache
from mlspace.classify.readers.sniff import TRACE, sniff_bytes
from mlspace.classify.structure import index_names_shards, mirror_shaped

PICKLE = b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\x01a\x94K\x01s." + b"\0" * 5000
DIGEST = "200b12ee30847f0c65400064e37a4790"


def test_numbered_model_files_beside_metric_tables_are_checkpoints_and_records(
        tmp_path: Path) -> None:
    run = "logs_x/dqn_20260101"
    root = make(tmp_path / "ws", {
        f"{run}/model_1000.d3": PICKLE, f"{run}/model_2000.d3": PICKLE,
        f"{run}/loss.csv": "1,0.52\n2,0.41\n", f"{run}/environment.csv": "1,9.4\n2,11.0\n",
        f"{run}/params.json": json.dumps({"batch_size": 32, "gamma": 0.99}),
    })
    cats = categories_by_path(inventory_of(root))
    assert cats[f"{run}/model_1000.d3"] == cats[f"{run}/model_2000.d3"] == "checkpoint"
    # A JSON that names none of the numbered files is no shard index: no dataset here.
    assert cats[f"{run}/loss.csv"] == cats[f"{run}/environment.csv"] == "log"
    # Beside a series of saves and the run's tables, a config is the run's record.
    assert cats[f"{run}/params.json"] == "log"
    assert "dataset" not in {cats[p] for p in cats if p.startswith(run + "/")}


def test_a_pickled_record_beside_models_is_a_log_not_model_state(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {"hyperopt_trials.pkl": PICKLE, "vec_state.pkl": PICKLE,
                                  "models/trial_0.joblib": PICKLE,
                                  "models/trial_1.joblib": PICKLE})
    cats = categories_by_path(inventory_of(root))
    assert cats["hyperopt_trials.pkl"] == "log"  # its name says record
    assert cats["vec_state.pkl"] == "checkpoint"  # state saved beside the models
    assert cats["models/trial_0.joblib"] == "checkpoint"


def test_a_model_dumped_as_text_and_a_run_folders_params_and_report(tmp_path: Path) -> None:
    trees = "tree\nversion=v4\nnum_class=1\n" + "Tree=0\nnum_leaves=31\nsplit_feature=1 2\n" * 800
    root = make(tmp_path / "ws", {
        "model.txt": trees, "model_notes.txt": "tried lr 0.1\n",
        "live/metrics.json": json.dumps({"step": 3, "val_loss": 0.4}),
        "live/params.yaml": "lr: 0.001\n", "live/report.html": "<html><body>plots</body></html>",
        "live/plots/metrics/val_loss.tsv": "step\tval_loss\n0\t0.5\n1\t0.4\n",
        "project/train.log": "epoch 1\n", "project/config.yaml": "lr: 0.1\n",
        "project/data/train.csv": "a,b\n" + "1,2\n" * 100,
    })
    cats = categories_by_path(inventory_of(root))
    assert cats["model.txt"] == "checkpoint"  # a model in text form: big, named so
    assert cats["model_notes.txt"] != "checkpoint"  # a note about one
    assert cats["live/metrics.json"] == "log"  # a folder of a run's records ...
    assert cats["live/params.yaml"] == cats["live/report.html"] == "log"
    assert cats["project/config.yaml"] != "log"  # ... a project's root is not one


def _chunks(folder: str) -> dict[str, object]:
    index = json.dumps({"chunks": [{"filename": f"chunk-0-{i}.bin"} for i in range(3)]})
    return {**{f"{folder}/chunk-0-{i}.bin": b"\x01\x02" * 3000 for i in range(3)},
            f"{folder}/index.json": index}


def test_shards_under_a_digest_are_a_cache_elsewhere_a_dataset(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {**_chunks(f"chunks/{DIGEST}/1796161663.9"),
                                  **_chunks("optimized")})
    cats = categories_by_path(inventory_of(root))
    assert cats[f"chunks/{DIGEST}/1796161663.9/chunk-0-0.bin"] == "cache"
    assert cats[f"chunks/{DIGEST}/1796161663.9/index.json"] == "cache"
    assert cats["optimized/chunk-0-0.bin"] == "dataset"


def test_shards_in_a_folder_named_a_cache_are_a_cache(tmp_path: Path) -> None:
    tar = b"\0" * 8000
    root = make(tmp_path / "ws", {"wds-cache/train-000000.tar": tar,
                                  "wds-cache/train-000001.tar": tar,
                                  "shards/train-000000.tar": tar,
                                  "shards/train-000001.tar": tar})
    cats = categories_by_path(inventory_of(root))
    assert cats["wds-cache/train-000000.tar"] == cats["wds-cache/train-000001.tar"] == "cache"
    assert cats["shards/train-000000.tar"] == "dataset"
    root = make(tmp_path / "data", {"wds-cache/train-000000.tar": tar,
                                    "wds-cache/train-000001.tar": tar})
    assert categories_by_path(inventory_of(root))["wds-cache/train-000000.tar"] == "cache"


def test_profiles_and_traces_are_debug_by_name_and_by_bytes(tmp_path: Path) -> None:
    page = "<!DOCTYPE html><html><head></head><body><div id='app'></div>{}</body></html>"
    trace = json.dumps({"traceEvents": [{"ph": "X", "ts": 1, "name": "f"}]})
    root = make(tmp_path / "ws", {
        # by name: no read
        "prof/profile.html": page.format(""), "prof/profile.txt": "  _     ._   __/__\n",
        "prof/train.pyisession": b"\x00\x01" * 4000, "prof/out.lprof": b"\x80\x04" * 100,
        # by bytes: one head per undecided folder, so one such file per folder here
        "trace/result.json": trace, "trace/train.py": "print(1)\n",
        "viewer/report.html": page.format("<script>renderFlameGraph(data)</script>"),
        "notes/notes.html": page.format("<p>what we tried</p>"),
        "run/metrics.json": json.dumps({"epoch": 3, "val_loss": 0.4}),
    })
    cats = categories_by_path(inventory_of(root))
    for name in ("prof/profile.html", "prof/profile.txt", "prof/train.pyisession",
                 "prof/out.lprof", "trace/result.json", "viewer/report.html"):
        assert cats[name] == "debug", name
    assert cats["notes/notes.html"] == "other"
    assert cats["run/metrics.json"] == "log"


def test_the_pure_pieces() -> None:
    assert sniff_bytes(b'{"traceEvents": [{"ph": "B"}]}').holds == TRACE
    assert sniff_bytes(b'[{"name": "step", "ph": "X", "ts": 3, "dur": 2}]').holds == TRACE
    assert sniff_bytes(b'{"epoch": 1, "loss": 0.3}').holds != TRACE
    assert index_names_shards('{"chunks": ["chunk-0-0.bin"]}', ["chunk-0-0.bin"])
    assert index_names_shards('{"s": "s.0.mds.zstd"}', ["s.0.mds"])
    assert not index_names_shards('{"gamma": 0.99}', ["model_1000.d3", "model_2000.d3"])
    assert mirror_shaped(f"/home/u/chunks/{DIGEST}/1796161663.9")
    assert not mirror_shaped(f"/data/{DIGEST}/a/b/c")  # too far up to be this copy's key
    assert not mirror_shaped("/data/optimized/train")
    assert says_cache("wds-cache") and says_cache("cache_dir") and says_cache(".cached")
    assert not says_cache("cachet")
