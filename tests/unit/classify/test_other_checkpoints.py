"""Checkpoint producers beyond HF and Lightning (ml-layouts.md §3): each records its latest and
best in its own way, and some write copies or links of the same checkpoint."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from layouts import categories_by_path, inventory_of, make, name_of, series_at


def test_deepspeed_latest_file_names_the_tag(tmp_path: Path) -> None:
    spec: dict[str, object] = {"ds/latest": "global_step200", "ds/zero_to_fp32.py": "# script\n"}
    for step in (100, 200, 300):  # 300 was being written when the job died: not "latest"
        spec[f"ds/global_step{step}/mp_rank_00_model_states.pt"] = 100
        spec[f"ds/global_step{step}/zero_pp_rank_0_mp_rank_00_optim_states.pt"] = 400
    inv = inventory_of(make(tmp_path, spec))
    series = series_at(inv, tmp_path / "ds")
    assert name_of(series.latest) == "global_step200"
    assert series.latest_reason == "DeepSpeed names global_step200"
    assert categories_by_path(inv)["ds/zero_to_fp32.py"] == "checkpoint"
    assert categories_by_path(inv)["ds/latest"] == "checkpoint"
    orphan = inv.artifact_by_id[f"checkpoint:{tmp_path}/ds/global_step300"]
    assert orphan.role == "partial" and orphan.id not in series.protected
    from mlspace.advise import advise

    leftovers = next(s for s in advise(inv).suggestions if s.policy == "crash-leftovers")
    assert leftovers.paths == (str(tmp_path / "ds" / "global_step300"),)


def test_megatron_tracker(tmp_path: Path) -> None:
    inv = inventory_of(make(tmp_path, {
        "save/latest_checkpointed_iteration.txt": "2000\n",
        "save/iter_0001000/mp_rank_00/model_optim_rng.pt": 100,
        "save/iter_0002000/mp_rank_00/model_optim_rng.pt": 100,
    }))
    series = series_at(inv, tmp_path / "save")
    assert name_of(series.latest) == "iter_0002000"
    assert [a.step for a in inv.artifacts if a.kind == "checkpoint"] == [1000, 2000]


def test_fairseq_best_and_last_are_copies(tmp_path: Path) -> None:
    inv = inventory_of(make(tmp_path, {
        "checkpoints/checkpoint1.pt": b"a" * 1000,
        "checkpoints/checkpoint2.pt": b"b" * 1200,
        "checkpoints/checkpoint3.pt": b"c" * 1100,
        "checkpoints/checkpoint_best.pt": b"b" * 1200,
        "checkpoints/checkpoint_last.pt": b"c" * 1100,
    }))
    series = series_at(inv, tmp_path / "checkpoints")
    assert name_of(series.best) == "checkpoint_best.pt"
    assert name_of(series.latest) == "checkpoint_last.pt"
    best = inv.artifact_by_id[f"checkpoint:{tmp_path}/checkpoints/checkpoint_best.pt"]
    assert name_of(best.copy_of) == "checkpoint2.pt" and best.copy_kind == "same size"
    assert {name_of(p) for p in series.protected} == {
        "checkpoint_best.pt", "checkpoint_last.pt", "checkpoint2.pt", "checkpoint3.pt"
    }


def test_detectron2_last_checkpoint_pointer(tmp_path: Path) -> None:
    inv = inventory_of(make(tmp_path, {
        "output/last_checkpoint": "model_0009999.pth",
        "output/model_0004999.pth": 100,
        "output/model_0009999.pth": 100,
        "output/model_0014999.pth": 100,
        "output/metrics.json": '{"iteration": 10}\n',
        "output/log.txt": "hi\n",
        "output/config.yaml": "a: 1\n",
    }))
    series = series_at(inv, tmp_path / "output")
    assert name_of(series.latest) == "model_0009999.pth"
    assert series.latest_reason == "last_checkpoint file names model_0009999.pth"
    cats = categories_by_path(inv)
    assert cats["output/metrics.json"] == "log" and cats["output/log.txt"] == "log"
    assert cats["output/last_checkpoint"] == "checkpoint"


def test_mmengine_best_file(tmp_path: Path) -> None:
    inv = inventory_of(make(tmp_path, {
        "work_dirs/cfg/epoch_11.pth": 100,
        "work_dirs/cfg/epoch_12.pth": 100,
        "work_dirs/cfg/best_coco_bbox_mAP_epoch_11.pth": 100,
        "work_dirs/cfg/last_checkpoint": "/abs/work_dirs/cfg/epoch_12.pth",
        "work_dirs/cfg/20240101_120000/20240101_120000.log": "log\n",
    }))
    series = series_at(inv, tmp_path / "work_dirs" / "cfg")
    assert name_of(series.best) == "best_coco_bbox_mAP_epoch_11.pth"
    assert name_of(series.latest) == "epoch_12.pth"
    assert categories_by_path(inv)["work_dirs/cfg/20240101_120000/20240101_120000.log"] == "log"


def test_ultralytics_weights(tmp_path: Path) -> None:
    inv = inventory_of(make(tmp_path, {
        "runs/detect/train/args.yaml": "epochs: 3\n",
        "runs/detect/train/results.csv": "epoch,fitness\n",
        "runs/detect/train/results.png": 100,
        "runs/detect/train/weights/best.pt": b"x" * 500,
        "runs/detect/train/weights/last.pt": b"y" * 600,
    }))
    series = series_at(inv, tmp_path / "runs/detect/train/weights")
    assert name_of(series.best) == "best.pt" and name_of(series.latest) == "last.pt"
    assert series.run == f"run:{tmp_path / 'runs/detect/train'}"
    assert categories_by_path(inv)["runs/detect/train/results.png"] == "log"


def test_timm_hard_links(tmp_path: Path) -> None:
    make(tmp_path, {"output/train/20240101-120000-resnet50-224/last.pth.tar": 2000,
                    "output/train/20240101-120000-resnet50-224/summary.csv": "epoch\n"})
    run = tmp_path / "output/train/20240101-120000-resnet50-224"
    os.link(run / "last.pth.tar", run / "checkpoint-7.pth.tar")
    os.link(run / "last.pth.tar", run / "model_best.pth.tar")
    (run / "checkpoint-3.pth.tar").write_bytes(os.urandom(1500))
    inv = inventory_of(tmp_path)
    series = series_at(inv, run)
    copies = {a.name: a.copy_kind for a in inv.artifacts if a.kind == "checkpoint"}
    assert sorted(v for v in copies.values() if v) == ["hard link", "hard link"]
    assert name_of(series.best) == "model_best.pth.tar"
    assert "checkpoint-7.pth.tar" in {name_of(p) for p in series.protected}
    # timm's CheckpointSaver writes checkpoint-<epoch>.pth.tar only for its top-k: kept
    assert "checkpoint-3.pth.tar" in {name_of(p) for p in series.tool_kept}
    assert series.run == f"run:{run}"


def test_tensorflow_bundles_and_state_file(tmp_path: Path) -> None:
    inv = inventory_of(make(tmp_path, {
        "tf_ckpts/checkpoint": 'model_checkpoint_path: "ckpt-2"\n'
                               'all_model_checkpoint_paths: "ckpt-1"\n',
        "tf_ckpts/ckpt-1.index": 100,
        "tf_ckpts/ckpt-1.data-00000-of-00001": 1000,
        "tf_ckpts/ckpt-2.index": 100,
        "tf_ckpts/ckpt-2.data-00000-of-00001": 1000,
        "tf_ckpts/ckpt-3.index": 100,
        "tf_ckpts/ckpt-3.data-00000-of-00001": 1000,
    }))
    series = series_at(inv, tmp_path / "tf_ckpts")
    assert [name_of(m) for m in series.members] == ["ckpt-1", "ckpt-2", "ckpt-3"]
    assert name_of(series.latest) == "ckpt-2"
    bundle = inv.artifact_by_id[f"checkpoint:{tmp_path}/tf_ckpts/ckpt-1"]
    assert len(bundle.entries) == 2


def test_orbax_steps_and_crashed_tmp(tmp_path: Path) -> None:
    inv = inventory_of(make(tmp_path, {
        "orbax/1000/_CHECKPOINT_METADATA": "{}",
        "orbax/1000/default/manifest.ocdbt": 100,
        "orbax/2000/_CHECKPOINT_METADATA": "{}",
        "orbax/2000/default/manifest.ocdbt": 100,
        "orbax/3000.orbax-checkpoint-tmp/default/manifest.ocdbt": 100,
    }))
    series = series_at(inv, tmp_path / "orbax")
    assert name_of(series.latest) == "2000"
    tmp = inv.artifact_by_id[f"checkpoint:{tmp_path}/orbax/3000.orbax-checkpoint-tmp"]
    assert tmp.role == "partial"
    assert tmp.id not in series.protected


def test_sharded_hf_weights_are_one_checkpoint(tmp_path: Path) -> None:
    inv = inventory_of(make(tmp_path, {
        "final/model-00001-of-00002.safetensors": 100,
        "final/model-00002-of-00002.safetensors": 100,
        "final/model.safetensors.index.json": "{}",
        "final/config.json": "{}",
    }))
    ckpts = [a for a in inv.artifacts if a.kind == "checkpoint"]
    # The shards with their index and config: one saved model (issue 13).
    assert len(ckpts) == 1 and len(ckpts[0].entries) == 4


def test_nnunet_fold(tmp_path: Path) -> None:
    fold = "nnUNet_results/Dataset001_Heart/nnUNetTrainer__nnUNetPlans__3d_fullres/fold_0"
    inv = inventory_of(make(tmp_path, {
        f"{fold}/checkpoint_best.pth": 100,
        f"{fold}/checkpoint_final.pth": 100,
        f"{fold}/training_log_2024_1_1_12_00_00.txt": "x\n",
        f"{fold}/progress.png": 10,
    }))
    series = series_at(inv, tmp_path / fold)
    assert name_of(series.best) == "checkpoint_best.pth"
    assert name_of(series.latest) == "checkpoint_final.pth"
    assert categories_by_path(inv)[f"{fold}/training_log_2024_1_1_12_00_00.txt"] == "log"


def test_a_fifo_with_a_record_name_never_hangs(tmp_path: Path) -> None:
    """Records are read only from regular files: a FIFO called `latest` would block a plain
    open() forever. The series then falls back to the highest step."""
    spec: dict[str, object] = {}
    for step in (100, 200):
        spec[f"ds/global_step{step}/mp_rank_00_model_states.pt"] = 100
    root = make(tmp_path / "ws", spec)
    os.mkfifo(root / "ds" / "latest")
    signal.signal(signal.SIGALRM, signal.default_int_handler)
    signal.alarm(20)
    try:
        series = series_at(inventory_of(root), root / "ds")
    finally:
        signal.alarm(0)
    assert name_of(series.latest) == "global_step200"
    assert "highest step" in series.latest_reason
