"""Experiment logs, debug dumps and caches (ml-layouts.md §4-6)."""

from __future__ import annotations

from pathlib import Path

from layouts import ELF_CORE, ELF_EXEC, Link, categories_by_path, inventory_of, make

WANDB_RUN = "wandb/run-20240101_120000-abc123de"


def test_wandb_run_is_logs_but_a_logged_model_is_a_checkpoint(tmp_path: Path) -> None:
    inv = inventory_of(make(tmp_path, {
        f"{WANDB_RUN}/run-abc123de.wandb": 5000,
        f"{WANDB_RUN}/files/config.yaml": "a: 1\n",
        f"{WANDB_RUN}/files/output.log": "x\n",
        f"{WANDB_RUN}/files/wandb-summary.json": "{}",
        f"{WANDB_RUN}/files/media/images/sample_0_1.png": 300,
        f"{WANDB_RUN}/files/model.pt": 9000,
        f"{WANDB_RUN}/logs/debug.log": "x\n",
        "wandb/latest-run": Link("run-20240101_120000-abc123de"),
    }))
    cats = categories_by_path(inv)
    for rel in ("run-abc123de.wandb", "files/config.yaml", "files/output.log",
                "files/media/images/sample_0_1.png", "logs/debug.log"):
        assert cats[f"{WANDB_RUN}/{rel}"] == "log", rel
    assert cats[f"{WANDB_RUN}/files/model.pt"] == "checkpoint"
    run = inv.run_by_id[f"run:{tmp_path / WANDB_RUN}"]
    assert run.tool == "Weights & Biases"


def test_mlflow_store(tmp_path: Path) -> None:
    run = "mlruns/1/0123456789abcdef0123456789abcdef"
    inv = inventory_of(make(tmp_path, {
        "mlruns/1/meta.yaml": "name: exp\n",
        f"{run}/meta.yaml": "run_id: x\n",
        f"{run}/metrics/loss": "1 0.5 0\n",
        f"{run}/params/lr": "0.1",
        f"{run}/artifacts/model/MLmodel": "flavors: {}\n",
        f"{run}/artifacts/model/model.pkl": 4000,
    }))
    cats = categories_by_path(inv)
    assert cats[f"{run}/metrics/loss"] == "log"
    assert cats[f"{run}/artifacts/model/model.pkl"] == "checkpoint"
    assert f"checkpoint:{tmp_path / run}/artifacts/model" in inv.artifact_by_id
    assert f"run:{tmp_path / run}" in inv.run_by_id


def test_hydra_run_folder_is_a_run_with_its_own_checkpoints(tmp_path: Path) -> None:
    hydra = "outputs/2024-01-01/12-00-00"
    inv = inventory_of(make(tmp_path, {
        f"{hydra}/.hydra/config.yaml": "a: 1\n",
        f"{hydra}/.hydra/overrides.yaml": "[]\n",
        f"{hydra}/train.log": "x\n",
        f"{hydra}/checkpoints/epoch=1-step=10.ckpt": 100,
    }))
    cats = categories_by_path(inv)
    assert cats[f"{hydra}/train.log"] == "log"
    assert cats[f"{hydra}/checkpoints/epoch=1-step=10.ckpt"] == "checkpoint"
    series = inv.series_by_id[f"series:{tmp_path / hydra}/checkpoints"]
    assert series.run == f"run:{tmp_path / hydra}"
    assert inv.run_by_id[series.run].tool == "Hydra"


def test_profiler_traces_and_snapshots_are_debug_even_under_logs(tmp_path: Path) -> None:
    cats = categories_by_path(inventory_of(make(tmp_path, {
        "log/gpu01_1234.1730462400123.pt.trace.json": 5000,
        "log/plugins/profile/2024_01_01_12_00_00/gpu01.xplane.pb": 5000,
        "runs/exp/gpu01_1.pt.trace.json.gz": 5000,
        "dump_snapshot.pickle": 5000,
        "report1.nsys-rep": 5000,
        "torch_compile_debug/run_2024_01_01_12_00_00_000000-pid_1/torchinductor/output_code.py":
            "x",
        "core_1730462400_gpu01_1234.nvcudmp": 100,
    })))
    for path in ("log/gpu01_1234.1730462400123.pt.trace.json",
                 "log/plugins/profile/2024_01_01_12_00_00/gpu01.xplane.pb",
                 "runs/exp/gpu01_1.pt.trace.json.gz", "dump_snapshot.pickle", "report1.nsys-rep",
                 "torch_compile_debug/run_2024_01_01_12_00_00_000000-pid_1/torchinductor/"
                 "output_code.py", "core_1730462400_gpu01_1234.nvcudmp"):
        assert cats[path] == "debug", path


def test_core_dumps_are_recognised_by_their_elf_header(tmp_path: Path) -> None:
    cats = categories_by_path(inventory_of(make(tmp_path, {
        "job/core": ELF_CORE,
        "job/core.12345": ELF_CORE,
        "bin/core": ELF_EXEC,  # an executable named core: not a dump
        "src/core/__init__.py": "",  # a package named core
    })))
    assert cats["job/core"] == "debug"
    assert cats["job/core.12345"] == "debug"
    assert cats["bin/core"] == "other"
    assert cats["src/core/__init__.py"] == "other"


def test_caches(tmp_path: Path) -> None:
    hub = ".cache/huggingface/hub/models--bert-base-uncased"
    cats = categories_by_path(inventory_of(make(tmp_path, {
        f"{hub}/blobs/abc123": 4000,
        f"{hub}/refs/main": "0123",
        f"{hub}/snapshots/0123/config.json": Link("../../blobs/abc123"),
        "hf_datasets/imdb/cache-0123456789abcdef.arrow": 3000,
        "hf_datasets/imdb/imdb-train.arrow": 3000,
        "src/__pycache__/train.cpython-311.pyc": 300,
        ".cache/pip/http-v2/a/b/c/0123abcd": 100,
        "notebooks/.ipynb_checkpoints/explore-checkpoint.ipynb": 100,
    })))
    assert cats[f"{hub}/blobs/abc123"] == "cache"
    assert cats[f"{hub}/snapshots/0123/config.json"] == "cache"
    assert cats["hf_datasets/imdb/cache-0123456789abcdef.arrow"] == "cache"
    assert cats["hf_datasets/imdb/imdb-train.arrow"] == "dataset"
    assert cats["src/__pycache__/train.cpython-311.pyc"] == "cache"
    assert cats[".cache/pip/http-v2/a/b/c/0123abcd"] == "cache"
    assert cats["notebooks/.ipynb_checkpoints/explore-checkpoint.ipynb"] == "other"


def test_plain_logs(tmp_path: Path) -> None:
    cats = categories_by_path(inventory_of(make(tmp_path, {
        "nohup.out": "x\n", "train_2024.log": "x\n", "exp/stdout.log": "x\n",
    })))
    assert cats["nohup.out"] == "log" and cats["train_2024.log"] == "log"
    assert cats["exp/stdout.log"] == "log"
