"""Seventh round of issue 27's principles, from heldout5, where a permissive plan offered
what the tools themselves recorded as best or latest:

- a JSON beside a series that lists its checkpoints with a score each (Catalyst's
  ``runner.storage.json``) ranks them in the direction the record states, and the best it
  ranks is kept even where a file is also named best;
- a folder whose name guessed profiler output but that holds a sampler's netCDF traces
  (PyMC's ``traces/pooled.nc``) is no debug folder to remove whole;
- a folder a tool's marker made a run (Lightning's ``metrics.csv``) still has its other
  files judged by what they are: a script's ``model_epoch1.npz`` there is a checkpoint, and
  the folder is no log folder to pack away.
"""

from __future__ import annotations

import json
from pathlib import Path

from layout_kit import Sparse
from layouts import categories_by_path, inventory_of, make
from layouts_corpus import permissive_plan

from mlspace.classify.readers.listed_scores import json_list_scores
from mlspace.classify.readers.records import read_json


def _touched(inv) -> set[str]:  # noqa: ANN001 - an Inventory
    return {item.path for s in permissive_plan(inv).suggestions for item in s.items}


def _storage(folder: str, scores: dict[str, float], **stated: object) -> str:
    """Catalyst 22.04's <name>.storage.json, as its CheckpointCallback writes it."""
    return json.dumps({"logdir": folder, "topk": len(scores), "loader_key": "valid",
                       **stated,
                       "storage": [{"logpath": f"{folder}/{name}", "metric": value}
                                   for name, value in scores.items()]}, indent=2)


def _catalyst_run(tmp_path: Path, record: str) -> Path:
    folder = "logs/mlp_runner/checkpoints"
    spec: dict[str, object] = {f"{folder}/runner.{n:04d}.pth": Sparse(9_000) for n in (3, 4, 7)}
    spec[f"{folder}/runner.best.pth"] = Sparse(9_000)
    spec[f"{folder}/runner.last.pth"] = Sparse(9_000)
    spec[f"{folder}/runner.storage.json"] = record
    spec["logs/mlp_runner/csv_logger/valid.csv"] = "step,accuracy01\n1,0.9\n"
    return make(tmp_path / "ws", spec)


def test_a_listed_score_ranks_by_the_direction_the_record_states(tmp_path: Path) -> None:
    scores = {"runner.0004.pth": 0.955, "runner.0007.pth": 0.95, "runner.0003.pth": 0.945}
    record = _storage("logs/mlp_runner/checkpoints", scores, metric_key="accuracy01",
                      minimize=False)
    root = _catalyst_run(tmp_path, record)
    inv = inventory_of(root)
    (series,) = [s for s in inv.series if s.path.endswith("mlp_runner/checkpoints")]
    assert inv.artifact_by_id[series.best].name == "runner.0004.pth"
    assert "runner.storage.json" in series.best_reason
    folder = root / "logs/mlp_runner/checkpoints"
    touched = _touched(inv)
    for kept in ("runner.0004.pth", "runner.best.pth", "runner.last.pth"):
        assert str(folder / kept) not in touched
    assert str(folder / "runner.0003.pth") in touched  # neither best nor latest: offered


def test_a_stated_flag_wins_over_the_metrics_own_name(tmp_path: Path) -> None:
    # "minimize": true for an accuracy is odd, but it is the tool's word: lowest is best
    scores = {"a.pt": 0.1, "b.pt": 0.9}
    (tmp_path / "r.json").write_text(_storage("x", scores, metric_key="accuracy",
                                              minimize=True))
    found = json_list_scores(str(tmp_path), set(scores), ["r.json"], read_json)
    assert found == (scores, "accuracy", "min", "r.json")
    (tmp_path / "r.json").write_text(_storage("x", scores, metric_key="val_loss"))
    assert json_list_scores(str(tmp_path), set(scores), ["r.json"], read_json) == (
        scores, "val_loss", "min", "r.json")


def test_listed_numbers_that_only_place_a_file_score_nothing(tmp_path: Path) -> None:
    listing = [{"path": "x/a.pt", "step": 100, "size": 9000, "mtime": 1.0},
               {"path": "x/b.pt", "step": 200, "size": 9000, "mtime": 2.0}]
    (tmp_path / "manifest.json").write_text(json.dumps({"files": listing}))
    assert json_list_scores(str(tmp_path), {"a.pt", "b.pt"}, ["manifest.json"],
                            read_json) is None


def test_scores_of_no_stated_direction_keep_every_checkpoint_they_score(tmp_path: Path
                                                                         ) -> None:
    scores = {"runner.0004.pth": 0.5, "runner.0007.pth": 0.4, "runner.0003.pth": 0.3}
    record = _storage("logs/mlp_runner/checkpoints", scores, metric_key="my_metric")
    root = _catalyst_run(tmp_path, record)
    inv = inventory_of(root)
    touched = _touched(inv)
    folder = root / "logs/mlp_runner/checkpoints"
    assert all(str(folder / name) not in touched for name in scores)


def _hdf5(size: int) -> Sparse:
    """A netCDF-4 file: HDF5's signature at offset 0."""
    return Sparse(size, b"\x89HDF\r\n\x1a\n" + b"\x00" * 56)


def test_a_traces_folder_of_posterior_draws_is_no_profiler_folder(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {
        "data/radon.csv": "county,log_radon\n" + "A,1.1\n" * 50,
        "fit.py": "import pymc\n",
        "traces/pooled.nc": _hdf5(600_000),
        "traces/hierarchical.nc": _hdf5(2_400_000),
        "results/pooled_summary.csv": "mean,sd\n1,2\n",
        # a real profiler folder beside it stays one
        "profiles/step_12.pt.trace.json": json.dumps({"traceEvents": []}) + " " * 4000,
    })
    inv = inventory_of(root)
    cats = categories_by_path(inv)
    assert cats["traces/pooled.nc"] != "debug"
    assert cats["profiles/step_12.pt.trace.json"] == "debug"
    touched = _touched(inv)
    assert not any(p == str(root / "traces") or p.startswith(str(root / "traces") + "/")
                   for p in touched)
    assert str(root / "profiles") in touched or str(
        root / "profiles/step_12.pt.trace.json") in touched


def test_a_scripts_saves_in_a_folder_a_tool_marked_as_a_run_are_checkpoints(
        tmp_path: Path) -> None:
    spec: dict[str, object] = {
        "runs/h64/metrics.csv": "epoch,loss\n" + "".join(f"{i},0.{i}\n" for i in range(5)),
        "runs/h64/model_best.npz": Sparse(19_600, b"PK\x03\x04" + b"\x00" * 60),
    }
    for epoch in range(1, 6):
        spec[f"runs/h64/model_epoch{epoch}.npz"] = Sparse(19_500, b"PK\x03\x04" + b"\x00" * 60)
    root = make(tmp_path / "ws", spec)
    inv = inventory_of(root)
    cats = categories_by_path(inv)
    assert cats["runs/h64/model_best.npz"] == "checkpoint"
    assert cats["runs/h64/model_epoch3.npz"] == "checkpoint"
    assert cats["runs/h64/metrics.csv"] == "log"
    touched = _touched(inv)
    assert str(root / "runs/h64") not in touched  # no log folder to pack away
    assert str(root / "runs/h64/model_best.npz") not in touched


def test_a_compilers_own_cache_is_a_cache_and_process_streams_are_logs(tmp_path: Path
                                                                        ) -> None:
    compiledir = ".pytensor/compiledir_Linux-6.18-fc-v1045-x86_64-with-glibc2.36--3.11.7-64"
    root = make(tmp_path / "ws", {
        f"{compiledir}/tmpykg58__1/mod.cpp": "#include <Python.h>\n" * 20,
        f"{compiledir}/tmpykg58__1/key.pkl": Sparse(2_000, b"\x80\x04"),
        f"{compiledir}/tmpykg58__1/m3a2.so": Sparse(90_000, b"\x7fELF"),
        f"{compiledir}/lazylinker_ext/lazylinker_ext.so": Sparse(90_000, b"\x7fELF"),
        "jax_compilation_cache/jit_step-4b1c": Sparse(50_000),
        "runinfo/000/task_logs/0000/task_0000_train.stdout": "epoch 1 loss 0.4\n",
        "runinfo/000/task_logs/0000/task_0000_train.stderr": "warning: x\n",
        "checkpoints/h16/model.pt": Sparse(40_000, b"PK\x03\x04"),
        "checkpoints/h16/metrics.jsonl": '{"epoch": 1, "loss": 0.4}\n',
    })
    cats = categories_by_path(inventory_of(root))
    assert cats[f"{compiledir}/tmpykg58__1/key.pkl"] == "cache"
    assert cats[f"{compiledir}/lazylinker_ext/lazylinker_ext.so"] == "cache"
    assert cats["jax_compilation_cache/jit_step-4b1c"] == "cache"
    assert cats["runinfo/000/task_logs/0000/task_0000_train.stdout"] == "log"
    assert cats["runinfo/000/task_logs/0000/task_0000_train.stderr"] == "log"
    assert cats["checkpoints/h16/metrics.jsonl"] == "log"
    assert cats["checkpoints/h16/model.pt"] == "checkpoint"


def test_a_table_in_a_folder_named_for_results_is_what_the_run_measured(tmp_path: Path
                                                                         ) -> None:
    rows = "".join(f"{h},{lr},0.{h}\n" for h in (16, 64, 128) for lr in (0.1, 0.3))
    root = make(tmp_path / "ws", {
        "data/radon.csv": "county,floor,log_radon\n" + "A,0,1.1\n" * 200,
        "results/sweep.csv": "hidden,lr,val_loss\n" + rows,
        "results/posterior_samples.csv": "alpha,beta,sigma\n" + "0.1,0.2,0.3\n" * 400,
        "eval/test_split.csv": "x,y\n" + "1,2\n" * 50,  # a split is data, wherever it is
        "train.py": "print('fit')\n",
    })
    cats = categories_by_path(inventory_of(root))
    assert cats["results/sweep.csv"] == "log"
    assert cats["results/posterior_samples.csv"] == "log"
    assert cats["data/radon.csv"] == "dataset"
    assert cats["eval/test_split.csv"] == "dataset"


def _sqlite(path: Path, *tables: str) -> None:
    import sqlite3

    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        for table in tables:
            db.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, value TEXT)")
    db.close()


def test_a_database_of_runs_is_a_log_and_its_write_ahead_log_goes_with_it(tmp_path: Path
                                                                          ) -> None:
    root = tmp_path / "ws"
    # NNI's experiment database, a metric-learning trainer's record keeper, a vector store
    _sqlite(root / "nni-experiments/6z98wag2/db/nni.sqlite",
            "ExperimentProfile", "TrialJobEvent", "MetricData")
    _sqlite(root / "example_logs/logs.db", "loss_histories", "accuracies_level_0_VAL",
            "loss_weights")
    _sqlite(root / "chroma_db/chroma.sqlite3", "embeddings", "embedding_metadata", "segments",
            "collections", "tenants", "maintenance_log", "migrations")
    _sqlite(root / "state/orchestrator.db", "flow_run", "task_run", "run_tags")
    (root / "state/orchestrator.db-wal").write_bytes(b"\x37\x7f\x06\x82" + b"\0" * 4000)
    cats = categories_by_path(inventory_of(root))
    assert cats["nni-experiments/6z98wag2/db/nni.sqlite"] == "log"
    assert cats["example_logs/logs.db"] == "log"
    assert cats["state/orchestrator.db"] == "log"
    assert cats["state/orchestrator.db-wal"] == "log"
    assert cats["chroma_db/chroma.sqlite3"] != "log"


def test_a_pointer_names_a_save_and_its_siblings_are_versions_kept(tmp_path: Path) -> None:
    """BentoML's model store: models/<name>/<tag>/ (model.yaml beside the weights) and a
    ``latest`` file holding the newest tag. Each tag is one save, all of it checkpoint; tags
    named by ids are versions someone saved, never thinned out as older steps."""
    store = "bentoml/models/iris_clf"
    old, new = "qjjkpgho4cpqaax4", "qyi7qaxo4ct3gax4"
    spec: dict[str, object] = {f"{store}/latest": new}
    for tag in (old, new):
        spec[f"{store}/{tag}/model.yaml"] = f"name: iris_clf\nversion: {tag}\n"
        spec[f"{store}/{tag}/saved_model.pkl"] = Sparse(30_000, b"\x80\x05")
    root = make(tmp_path / "ws", spec)
    inv = inventory_of(root)
    cats = categories_by_path(inv)
    assert cats[f"{store}/{old}/model.yaml"] == "checkpoint"
    (series,) = [s for s in inv.series if s.path.endswith("iris_clf")]
    assert inv.artifact_by_id[series.latest].name == new
    touched = _touched(inv)
    assert not any(p.startswith(str(root / store)) for p in touched)


def test_a_cache_folder_keyed_by_digests_below_it_is_a_cache(tmp_path: Path) -> None:
    """joblib.Memory(location="cache"): cache/joblib/<module>/<function>/<hash>/ holding
    output.pkl and metadata.json, with the function's func_code.py beside its keys."""
    memo = "cache/joblib/__main__--home-me-proj-train"
    spec: dict[str, object] = {"cache/.gitignore": "*\n", "train.py": "import joblib\n"}
    for func, keys in (("fit_model", ("98cc52e588ea86410b4b0e34d2b5bf97",
                                      "5fd3d6a82fe4e020fe70e1a3789dbdb7")),
                       ("extract_features", ("00adcae0d1c324de8a67a1c9a9e5e6ab",))):
        spec[f"{memo}/{func}/func_code.py"] = f"# first line: 12\ndef {func}(x):\n    pass\n"
        for key in keys:
            spec[f"{memo}/{func}/{key}/output.pkl"] = Sparse(50_000, b"\x80\x04")
            spec[f"{memo}/{func}/{key}/metadata.json"] = json.dumps(
                {"duration": 0.1, "input_args": {"x": "1"}, "time": 1796259779.0})
    # a folder a person named cache, holding their own files under their own names
    spec["notes_cache/model_best.pt"] = Sparse(40_000, b"PK\x03\x04")
    spec["notes_cache/summary.csv"] = "a,b\n1,2\n"
    root = make(tmp_path / "ws", spec)
    cats = categories_by_path(inventory_of(root))
    key = "98cc52e588ea86410b4b0e34d2b5bf97"
    assert cats[f"{memo}/fit_model/{key}/output.pkl"] == "cache"
    assert cats[f"{memo}/fit_model/{key}/metadata.json"] == "cache"
    assert cats[f"{memo}/fit_model/func_code.py"] == "cache"
    assert cats["notes_cache/model_best.pt"] == "checkpoint"


def test_a_network_description_tells_what_the_binary_beside_it_is(tmp_path: Path) -> None:
    """OpenVINO's IR: classifier.xml (the graph, ``<net name=... version="11">``) beside
    classifier.bin (raw weights, which say nothing of themselves)."""
    graph = ('<?xml version="1.0"?>\n<net name="Model0" version="11">\n\t<layers>\n'
             '\t\t<layer id="0" name="x" type="Parameter" version="opset1">\n' + " " * 3000)
    root = make(tmp_path / "ws", {
        "openvino/classifier.xml": graph,
        "openvino/classifier.bin": Sparse(36_000, b"\x8f\xc2\xf5\x3c" * 16),
        # an XML that is no network, beside a binary of another stem, stays what it was
        "annotations/img_001.xml": "<annotation><object><name>cat</name></object>"
                                   "</annotation>" + " " * 400,
        "annotations/blob.bin": Sparse(9_000),
    })
    cats = categories_by_path(inventory_of(root))
    assert cats["openvino/classifier.xml"] == "checkpoint"
    assert cats["openvino/classifier.bin"] == "checkpoint"
    assert cats["annotations/img_001.xml"] != "checkpoint"


def test_videos_of_an_agents_episodes_are_its_runs_record(tmp_path: Path) -> None:
    """Gymnasium's RecordVideo (every 25th episode), beside a robot-learning dataset whose
    episodes are videos numbered like samples (LeRobot's episode_000012.mp4)."""
    mp4 = Sparse(9_000, b"\x00\x00\x00\x20ftypisom")
    spec: dict[str, object] = {f"videos/train/cem-episode-{n}.mp4": mp4 for n in (0, 25, 50)}
    spec |= {f"lerobot/pusht/videos/chunk-000/observation.image_episode_{n:06d}.mp4": mp4
             for n in range(40)}
    root = make(tmp_path / "ws", spec)
    cats = categories_by_path(inventory_of(root))
    assert cats["videos/train/cem-episode-25.mp4"] == "log"
    assert cats["lerobot/pusht/videos/chunk-000/observation.image_episode_000012.mp4"] == \
        "dataset"


def test_a_hidden_folder_named_a_cache_is_a_tools_cache_and_a_pid_file_its_state(
        tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {
        # Hamilton's .with_cache(): results keyed by base64 digests, a metadata store
        ".hamilton_cache/139SfSws4Lwqd_bzwTGWEoF70uTJKeD4b_pVTA==": Sparse(4_400, b"\x80\x04"),
        ".hamilton_cache/metadata_store.db": Sparse(24_000, b"SQLite format 3\x00"),
        ".hamilton_cache/save_model__metadata": '{"path": "models/churn.pkl"}',
        "luigi-state/luigid.pid": "4242\n",
        "models/churn.pkl": Sparse(3_000, b"\x80\x04"),
        # a visible folder a person named so keeps its own verdicts
        "feature_cache_notes/summary.csv": "a,b\n1,2\n",
    })
    cats = categories_by_path(inventory_of(root))
    assert cats[".hamilton_cache/139SfSws4Lwqd_bzwTGWEoF70uTJKeD4b_pVTA=="] == "cache"
    assert cats[".hamilton_cache/save_model__metadata"] == "cache"
    assert cats["luigi-state/luigid.pid"] == "cache"
    assert cats["feature_cache_notes/summary.csv"] != "cache"


def test_a_schedulers_task_history_is_a_log_and_a_decimal_hash_keys_a_cache(tmp_path: Path
                                                                            ) -> None:
    root = tmp_path / "ws"
    # luigid's task history (record_task_history = True)
    _sqlite(root / "luigi-state/task-history.db", "tasks", "task_events", "task_parameters")
    # OpenVINO's CACHE_DIR: compiled models keyed by a 64-bit hash in decimal
    (root / "model_cache").mkdir(parents=True)
    (root / "model_cache/8745040751211560216.blob").write_bytes(b"\x00" * 4096)
    (root / "model_cache/1230045600789001234.blob").write_bytes(b"\x01" * 4096)
    cats = categories_by_path(inventory_of(root))
    assert cats["luigi-state/task-history.db"] == "log"
    assert cats["model_cache/8745040751211560216.blob"] == "cache"


def test_a_vector_index_is_a_derived_copy_of_its_embeddings(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {
        "vectors/passages.npy": Sparse(1_536_128, b"\x93NUMPY\x01\x00v\x00"),
        "vectors/passages.hnsw32.faiss": Sparse(1_500_000, b"IHNf"),
        "vectors/passages.ivf32.faiss": Sparse(800_000, b"IwFl"),
    })
    cats = categories_by_path(inventory_of(root))
    assert cats["vectors/passages.hnsw32.faiss"] == "augmented"
    assert cats["vectors/passages.npy"] == "dataset"
