"""The config copies a tool writes into its run folder are logs (what the run did); a config
the researcher wrote stays other (issue 13)."""

from __future__ import annotations

from pathlib import Path

from layouts import (
    categories_by_path,
    hydra_runs,
    inventory_of,
    lightning_hydra_project,
    make,
    mmengine_work_dir,
)

RUN = "outputs/2026-11-30/17-19-43"
SWEEP = "multirun/2026-11-30/17-19-44"


def test_hydra_records_are_logs_and_its_config_groups_other(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", hydra_runs().spec)
    inv = inventory_of(root)
    cats = categories_by_path(inv)
    for name in ("config.yaml", "hydra.yaml", "overrides.yaml"):
        assert cats[f"{RUN}/.hydra/{name}"] == "log"
        assert cats[f"{SWEEP}/1/.hydra/{name}"] == "log"
    assert cats[f"{SWEEP}/multirun.yaml"] == "log"
    assert cats["conf/config.yaml"] == cats["conf/model/resnet.yaml"] == "other"
    assert inv.run_by_id[f"run:{root / RUN}"].tool == "Hydra"


def test_args_yaml_of_timm_and_ultralytics_runs_is_a_log(tmp_path: Path) -> None:
    cats = categories_by_path(inventory_of(make(tmp_path / "ws", {
        "output/train/20261130-172000-resnet50-224/args.yaml": "model: resnet50\n",
        "output/train/20261130-172000-resnet50-224/summary.csv": "epoch,eval_top1\n",
        "runs/detect/train/args.yaml": "task: detect\n",
        "runs/detect/train/weights/last.pt": 100,
    })))
    assert cats["output/train/20261130-172000-resnet50-224/args.yaml"] == "log"
    assert cats["runs/detect/train/args.yaml"] == "log"
    assert cats["runs/detect/train/weights/last.pt"] == "checkpoint"


def test_mmengine_dumped_configs_are_logs_and_the_source_config_is_other(
        tmp_path: Path) -> None:
    work = "work_dirs/faster-rcnn_r50_fpn_1x_coco"
    cats = categories_by_path(inventory_of(make(tmp_path / "ws", mmengine_work_dir().spec)))
    assert cats[f"{work}/faster-rcnn_r50_fpn_1x_coco.py"] == "log"
    assert cats[f"{work}/20261130_172114/vis_data/config.py"] == "log"
    assert cats[f"{work}/epoch_12.pth"] == "checkpoint"
    assert cats["configs/faster_rcnn/faster-rcnn_r50_fpn_1x_coco.py"] == "other"


def test_an_mmengine_log_folder_is_a_log_before_the_first_checkpoint(tmp_path: Path) -> None:
    cats = categories_by_path(inventory_of(make(tmp_path / "ws", {
        "work_dirs/r50/20261130_172114/vis_data/config.py": "model = dict()\n",
        "work_dirs/r50/20261130_172114/20261130_172114.log": "INFO\n",
        "work_dirs/r50/20261130_172114.py": "model = dict()\n",
        "recordings/20261130_172114/take1.wav": 100,  # a timestamped folder of data: not logs
    })))
    assert cats["work_dirs/r50/20261130_172114/vis_data/config.py"] == "log"
    assert cats["work_dirs/r50/20261130_172114.py"] == "log"
    assert cats["recordings/20261130_172114/take1.wav"] != "log"


def test_config_groups_named_like_data_or_debug_are_configs(tmp_path: Path) -> None:
    """lightning-hydra-template: configs/data/, configs/debug/ and the src/data/ package."""
    cats = categories_by_path(inventory_of(make(tmp_path / "ws",
                                                lightning_hydra_project().spec)))
    for path in ("configs/data/mnist.yaml", "configs/debug/profiler.yaml",
                 "configs/model/mnist.yaml", "src/data/mnist_datamodule.py",
                 "src/models/mnist_module.py"):
        assert cats[path] == "other", path
    run = "logs/train/runs/2026-11-30_17-19-43"
    assert cats[f"{run}/.hydra/config.yaml"] == cats[f"{run}/config_tree.log"] == "log"
    assert cats[f"{run}/csv/version_0/hparams.yaml"] == "log"


def test_a_config_next_to_src_stays_other(tmp_path: Path) -> None:
    cats = categories_by_path(inventory_of(make(tmp_path / "ws", {
        "config.yaml": "lr: 0.1\n", "src/train.py": "import torch\n",
        "experiments/resnet.yaml": "depth: 50\n",
    })))
    assert cats["config.yaml"] == cats["experiments/resnet.yaml"] == "other"
