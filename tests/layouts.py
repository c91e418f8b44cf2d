"""Build fixture trees the way the real tools lay them out (see ../shared/ml-layouts.md).

The kit (make, Sparse, Link, Labelled...) is in layout_kit.py, imported from here too.
LABELLED holds whole workspaces as the tools write them (their real file names and records),
each file with the category an ML engineer gives it; score() compares a classification with
those labels, by files and by bytes (benchmarks/bench_accuracy.py and the accuracy test).
The workspaces of the tools added for issue 13's last part are in layouts_tools.py.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from layout_kit import (
    MB,
    HardLink,
    Labelled,
    Link,
    Sparse,
    categories_by_path,
    inventory_of,
    make,
    name_of,
    series_at,
)
from layout_kit import as_category as _as
from layout_kit import as_json as _json
from layout_kit import under as _under
from layouts_tools import TOOL_LAYOUTS

from mlspace.classify import Inventory

__all__ = ["ELF_CORE", "ELF_EXEC", "LABELLED", "HardLink", "Labelled", "Link", "Sparse",
           "Verdict", "accuracy", "categories_by_path", "inventory_of", "judge", "make",
           "name_of", "score", "series_at", "trainer_state"]


def trainer_state(step: int, best: str | None, best_metric: float | None,
                  evals: list[tuple[int, float]]) -> dict:
    """A trainer_state.json as HF Trainer writes it (fields per ml-layouts.md §1.4)."""
    return {
        "epoch": step / 500, "global_step": step, "max_steps": 3000, "logging_steps": 50,
        "eval_steps": 500, "save_steps": 500, "train_batch_size": 8,
        "best_metric": best_metric, "best_global_step": None,
        "best_model_checkpoint": best,
        "log_history": [
            *({"loss": 2.0 - s / 2000, "learning_rate": 1e-4, "epoch": s / 500, "step": s}
              for s, _ in evals),
            *({"eval_loss": v, "eval_runtime": 3.2, "eval_samples_per_second": 100.0,
               "epoch": s / 500, "step": s} for s, v in evals),
        ],
        "is_local_process_zero": True, "is_world_process_zero": True,
        "is_hyper_param_search": False, "trial_name": None, "trial_params": None,
        "total_flos": 1e15, "num_train_epochs": 6, "num_input_tokens_seen": 0,
        "stateful_callbacks": {},
    }


ELF_CORE = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + (4).to_bytes(2, "little") + b"\0" * 46
ELF_EXEC = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + (2).to_bytes(2, "little") + b"\0" * 46


# ------------------------------------------------------------------------- labelled layouts
# Workspaces as the tools write them: the file names and records below were recorded from
# the tools themselves on toy models (transformers 5.24 and 4.x names, PEFT 0.21, Hydra 1.3,
# Keras 3.15, MLflow 3.17, MMEngine 0.10, Lightning 2.6, datasets 5.2, py-spy 0.4) or read in
# their source (ml-layouts.md); weights and data have the sizes such runs write, as Sparse files.

# --- HF Trainer (transformers 5.24: what trainer.save_model(), save_metrics(), save_state()
# and create_model_card() wrote for a toy GPT-2; v4 adds special_tokens_map.json, and a
# GPT-2 tokenizer has vocab.json and merges.txt)
_TRAIN_RESULTS = {"epoch": 3.0, "total_flos": 1.52e15, "train_loss": 2.341,
                  "train_runtime": 3610.7, "train_samples_per_second": 13.294,
                  "train_steps_per_second": 1.662}
_EVAL_RESULTS = {"epoch": 3.0, "eval_loss": 2.1427, "eval_runtime": 27.66,
                 "eval_samples_per_second": 231.414, "eval_steps_per_second": 28.927}
_MODEL_CARD = """---
library_name: transformers
base_model: gpt2
tags:
- generated_from_trainer
model-index:
- name: gpt2-finetuned
  results: []
---

<!-- This model card has been generated automatically according to the information """ \
    """the Trainer had access to. You
should probably proofread and complete it, then remove this comment. -->

# gpt2-finetuned

This model is a fine-tuned version of [gpt2](https://huggingface.co/gpt2) on the None dataset.
It achieves the following results on the evaluation set:
- Loss: 2.1427
"""
_GPT2_CONFIG = {"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
                "model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12,
                "n_positions": 1024, "transformers_version": "5.24.0", "vocab_size": 50257}
_GENERATION_CONFIG = {"_from_model_config": True, "bos_token_id": 50256,
                      "eos_token_id": 50256, "transformers_version": "5.24.0"}
_TOKENIZER_CONFIG = {"backend": "tokenizers", "eos_token": "<|endoftext|>",
                     "model_max_length": 1024, "tokenizer_class": "GPT2Tokenizer"}
_SPECIAL_TOKENS = {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>",
                   "unk_token": "<|endoftext|>"}


def _hf_model_files(weights: dict[str, object], v4: bool = False) -> dict[str, object]:
    """What save_pretrained() of a GPT-2 and its tokenizer writes."""
    files: dict[str, object] = {
        **weights,
        "config.json": _json(_GPT2_CONFIG),
        "generation_config.json": _json(_GENERATION_CONFIG),
        "tokenizer.json": Sparse(3_558_643),
        "tokenizer_config.json": _json(_TOKENIZER_CONFIG),
    }
    if v4:
        files.update({"special_tokens_map.json": _json(_SPECIAL_TOKENS),
                      "vocab.json": Sparse(1_042_301), "merges.txt": Sparse(456_318)})
    return files


def _hf_checkpoint(step: int, weights: dict[str, object], optimizer: int, v4: bool = False
                   ) -> dict[str, object]:
    return {
        **_hf_model_files(weights, v4),
        "optimizer.pt": Sparse(optimizer),
        "rng_state.pth": Sparse(14_455),
        "scheduler.pt": Sparse(1_465),
        "trainer_state.json": _json(trainer_state(step, None, None, [(step, 2.2)])),
        "training_args.bin": Sparse(5_265),
    }


def _hf_records(final_step: int) -> dict[str, object]:
    """The run's records at the output folder's root: metrics and the final trainer state."""
    return {
        "all_results.json": _json({**_TRAIN_RESULTS, **_EVAL_RESULTS}),
        "train_results.json": _json(_TRAIN_RESULTS),
        "eval_results.json": _json(_EVAL_RESULTS),
        "trainer_state.json": _json(trainer_state(final_step, None, None, [(final_step, 2.1)])),
        "runs/Nov30_17-20-00_gpu01/events.out.tfevents.1796059200.gpu01.4242.0":
            Sparse(412_004),
    }


def hf_trainer_final_save() -> Labelled:
    out = "gpt2-finetuned"
    weights = {"model.safetensors": Sparse(497_807_256)}
    final = {**_hf_model_files(weights), "training_args.bin": Sparse(5_265),
             "README.md": _MODEL_CARD}
    return Labelled("HF Trainer final save", {
        **_as("checkpoint", _under(out, final)),
        **_as("checkpoint", _under(f"{out}/checkpoint-1000",
                                   _hf_checkpoint(1000, weights, 995_640_954))),
        **_as("checkpoint", _under(f"{out}/checkpoint-1500",
                                   _hf_checkpoint(1500, weights, 995_640_954))),
        **_as("log", _under(out, _hf_records(1500))),
        **_as("other", {"run_clm.py": "import transformers\n", "requirements.txt": "torch\n"}),
    })


def hf_trainer_sharded_v4() -> Labelled:
    """transformers 4.x: sharded weights with their index, and the v4 tokenizer files."""
    out = "llama-sft"
    shards = {f"model-0000{i}-of-00004.safetensors": Sparse(4_976_698_672) for i in (1, 2, 3)}
    shards["model-00004-of-00004.safetensors"] = Sparse(1_168_138_808)
    shards["model.safetensors.index.json"] = _json(
        {"metadata": {"total_size": 16_060_522_496},
         "weight_map": {"lm_head.weight": "model-00004-of-00004.safetensors",
                        "model.embed_tokens.weight": "model-00001-of-00004.safetensors"}})
    final = {**_hf_model_files(shards, v4=True), "training_args.bin": Sparse(5_265)}
    return Labelled("HF Trainer final save, sharded (v4)", {
        **_as("checkpoint", _under(out, final)),
        **_as("checkpoint", _under(f"{out}/checkpoint-800",
                                   _hf_checkpoint(800, shards, 32_121_044_992, v4=True))),
        **_as("log", _under(out, _hf_records(800))),
        **_as("checkpoint", _under("export/merged", _hf_model_files(shards, v4=True))),
    })


_ADAPTER_CONFIG = {"base_model_name_or_path": "meta-llama/Llama-3.1-8B", "bias": "none",
                   "lora_alpha": 16, "lora_dropout": 0.05, "peft_type": "LORA",
                   "peft_version": "0.21.2", "r": 16, "target_modules": ["q_proj", "v_proj"],
                   "task_type": "CAUSAL_LM"}
_PEFT_CARD = """---
base_model: meta-llama/Llama-3.1-8B
library_name: peft
pipeline_tag: text-generation
tags:
- lora
- transformers
---

# Model Card for Model ID
"""


def peft_adapter() -> Labelled:
    out = "lora-out"
    adapter = {"adapter_model.safetensors": Sparse(13_648_432),
               "adapter_config.json": _json(_ADAPTER_CONFIG), "README.md": _PEFT_CARD,
               "tokenizer.json": Sparse(9_085_657),
               "tokenizer_config.json": _json(_TOKENIZER_CONFIG),
               "special_tokens_map.json": _json(_SPECIAL_TOKENS)}
    state = {"optimizer.pt": Sparse(27_370_618), "rng_state.pth": Sparse(14_455),
             "scheduler.pt": Sparse(1_465), "training_args.bin": Sparse(5_265),
             "trainer_state.json": _json(trainer_state(200, None, None, [(200, 1.4)]))}
    return Labelled("PEFT adapter (HF Trainer)", {
        **_as("checkpoint", _under(out, {**adapter, "training_args.bin": Sparse(5_265)})),
        **_as("checkpoint", _under(f"{out}/checkpoint-200", {**adapter, **state})),
        **_as("log", _under(out, _hf_records(200))),
    })


# --- Hydra 1.3 (a run and a two-job sweep, as recorded)
_HYDRA_CONFIG = "model:\n  name: resnet18\n  depth: 18\nlr: 0.01\nepochs: 2\n"
_HYDRA_YAML = """hydra:
  run:
    dir: outputs/${now:%Y-%m-%d}/${now:%H-%M-%S}
  sweep:
    dir: multirun/${now:%Y-%m-%d}/${now:%H-%M-%S}
    subdir: ${hydra.job.num}
  launcher:
    _target_: hydra._internal.core_plugins.basic_launcher.BasicLauncher
  output_subdir: .hydra
  overrides:
    hydra:
    - hydra.mode=RUN
    task:
    - lr=0.01
  job:
    name: train
    override_dirname: lr=0.01
    config_name: config
  runtime:
    version: 1.3.8
    version_base: '1.3'
    output_dir: /work/proj/outputs/2026-11-30/17-19-43
    choices:
      model: resnet
"""


def _hydra_job(lr: str) -> dict[str, object]:
    return {".hydra/config.yaml": _HYDRA_CONFIG.replace("0.01", lr),
            ".hydra/hydra.yaml": _HYDRA_YAML.replace("0.01", lr),
            ".hydra/overrides.yaml": f"- lr={lr}\n",
            "train.log": f"[2026-11-30 17:19:43,912][__main__][INFO] - lr={lr}\n"}


def hydra_runs() -> Labelled:
    run, sweep = "outputs/2026-11-30/17-19-43", "multirun/2026-11-30/17-19-44"
    ckpts = {"checkpoints/epoch=1-step=1563.ckpt": Sparse(134_523_971),
             "checkpoints/last.ckpt": Sparse(134_523_971)}
    return Labelled("Hydra runs and sweeps", {
        **_as("log", _under(run, _hydra_job("0.01"))),
        **_as("checkpoint", _under(run, ckpts)),
        **_as("log", {f"{sweep}/multirun.yaml": _HYDRA_YAML.replace("RUN", "MULTIRUN")}),
        **_as("log", _under(f"{sweep}/0", _hydra_job("0.01"))),
        **_as("log", _under(f"{sweep}/1", _hydra_job("0.1"))),
        **_as("checkpoint", _under(f"{sweep}/1", ckpts)),
        **_as("other", {"conf/config.yaml":
                        "defaults:\n  - model: resnet\n  - _self_\nlr: 0.001\n",
                        "conf/model/resnet.yaml": "name: resnet18\ndepth: 18\n",
                        "train.py": "import hydra\n", "src/model.py": "import torch\n"}),
    })


# --- timm train.py (args.yaml is yaml.safe_dump(vars(args)); names from checkpoint_saver.py)
_TIMM_ARGS = """aa: rand-m9-mstd0.5-inc1
amp: true
batch_size: 256
checkpoint_hist: 10
data_dir: /data/imagenet
dataset: ''
drop_path: 0.05
epochs: 300
eval_metric: top1
experiment: ''
img_size: null
lr: 0.005
mixup: 0.1
model: resnet50
opt: lamb
output: ''
sched: cosine
seed: 42
warmup_epochs: 5
weight_decay: 0.01
"""


def timm_run() -> Labelled:
    run = "output/train/20261130-172000-resnet50-224"
    weights = Sparse(205_042_847)
    return Labelled("timm train.py", {
        **_as("log", _under(run, {
            "args.yaml": _TIMM_ARGS,
            "summary.csv": "epoch,train_loss,eval_loss,eval_top1,eval_top5,lr\n"
                           "0,6.91,6.88,0.12,0.61,0.0001\n"})),
        **_as("checkpoint", _under(run, {
            "last.pth.tar": weights, "model_best.pth.tar": weights,
            "checkpoint-298.pth.tar": weights, "checkpoint-299.pth.tar": weights})),
        **_as("other", {"train.py": "import timm\n",
                        "configs/resnet50_a1.yaml": "model: resnet50\n"}),
    })


# --- Ultralytics 8.4 (runs/<task>/<name>, and a coco8-style YOLO dataset)
_ULTRALYTICS_ARGS = """task: detect
mode: train
model: models/yolov8n-custom.yaml
data: coco8.yaml
epochs: 100
patience: 100
batch: 16
imgsz: 640
save: true
save_period: -1
project: null
name: train
optimizer: auto
lr0: 0.01
mosaic: 1.0
save_dir: /work/proj/runs/detect/train
"""
_COCO8_TRAIN = ("000000000009", "000000000025", "000000000030", "000000000034")
_COCO8_VAL = ("000000000036", "000000000042", "000000000049", "000000000061")


def ultralytics_run() -> Labelled:
    run = "runs/detect/train"
    plots = ["results.png", "confusion_matrix.png", "confusion_matrix_normalized.png",
             "BoxF1_curve.png", "BoxP_curve.png", "BoxPR_curve.png", "BoxR_curve.png",
             "labels.jpg", "train_batch0.jpg", "train_batch1.jpg", "train_batch2.jpg",
             "val_batch0_labels.jpg", "val_batch0_pred.jpg"]
    data = "datasets/coco8"
    images = {f"images/{split}/{n}.jpg": Sparse(180_000)
              for split, names in (("train", _COCO8_TRAIN), ("val", _COCO8_VAL)) for n in names}
    labels = {f"labels/{split}/{n}.txt": "45 0.479492 0.688771 0.955609 0.5955\n"
              for split, names in (("train", _COCO8_TRAIN), ("val", _COCO8_VAL)) for n in names}
    return Labelled("Ultralytics YOLO", {
        **_as("log", _under(run, {"args.yaml": _ULTRALYTICS_ARGS,
                                  "results.csv": "epoch,time,train/box_loss,metrics/mAP50(B)\n"
                                                 "1,12.4,1.21,0.61\n",
                                  **{p: Sparse(150_000) for p in plots}})),
        **_as("checkpoint", _under(f"{run}/weights", {"last.pt": Sparse(6_251_328),
                                                      "best.pt": Sparse(6_251_328)})),
        **_as("checkpoint", {"models/yolov8n.pt": Sparse(6_549_796)}),
        **_as("other", {"models/yolov8n-custom.yaml":
                        "nc: 80\nscales:\n  n: [0.33, 0.25, 1024]\nbackbone:\n"
                        "  - [-1, 1, Conv, [64, 3, 2]]\n",
                        "coco8.yaml":
                            "path: datasets/coco8\ntrain: images/train\nval: images/val\n",
                        "train.py": "from ultralytics import YOLO\n"}),
        **_as("dataset", _under(data, {**images, **labels})),
        **_as("cache", _under(data, {"labels/train.cache": Sparse(6_104),
                                     "labels/val.cache": Sparse(6_104)})),
    })


# --- MMEngine 0.10 / MMDetection tools/train.py (work_dirs/<config name>/, as recorded)
_MMENGINE_CONFIG = ("model = dict(type='FasterRCNN')\n"
                    "train_cfg = dict(by_epoch=True, max_epochs=12, val_interval=1)\n"
                    "work_dir = './work_dirs/faster-rcnn_r50_fpn_1x_coco'\n")


def mmengine_work_dir() -> Labelled:
    work = "work_dirs/faster-rcnn_r50_fpn_1x_coco"
    stamp = "20261130_172114"
    scalars = ('{"lr": 0.02, "data_time": 0.0031, "loss": 0.5275, "time": 0.36, "epoch": 1, '
               '"iter": 50, "step": 50}\n')
    return Labelled("MMEngine work_dirs", {
        **_as("log", _under(work, {
            "faster-rcnn_r50_fpn_1x_coco.py": _MMENGINE_CONFIG,
            f"{stamp}/{stamp}.log": "2026/11/30 17:21:14 - mmengine - INFO - \n",
            f"{stamp}/vis_data/{stamp}.json": scalars,
            f"{stamp}/vis_data/scalars.json": scalars,
            f"{stamp}/vis_data/config.py": _MMENGINE_CONFIG})),
        **_as("checkpoint", _under(work, {
            **{f"epoch_{e}.pth": Sparse(167_289_105) for e in (10, 11, 12)},
            "best_coco_bbox_mAP_epoch_12.pth": Sparse(167_289_105),
            "last_checkpoint": f"/work/proj/{work}/epoch_12.pth"})),
        **_as("other", {"configs/faster_rcnn/faster-rcnn_r50_fpn_1x_coco.py":
                        "_base_ = ['../_base_/models/faster-rcnn_r50_fpn.py']\n",
                        "tools/train.py": "from mmengine.runner import Runner\n"}),
    })


# --- Lightning 2.6 (CSVLogger and TensorBoardLogger versions, as recorded)
def lightning_run() -> Labelled:
    logs = {"hparams.yaml": "hidden: 8\nlr: 0.001\n",
            "metrics.csv": "epoch,step,val_loss\n0,3,1.8126535415649414\n"}
    ckpts = {"checkpoints/epoch=1-step=8.ckpt": Sparse(141_230_517),
             "checkpoints/last.ckpt": Sparse(141_230_517)}
    return Labelled("Lightning", {
        **_as("log", _under("lightning_logs/version_0", logs)),
        **_as("log", {"lightning_logs/version_1/hparams.yaml": "hidden: 8\nlr: 0.001\n",
                      "lightning_logs/version_1/events.out.tfevents.1796059278.gpu01.4242.0":
                          Sparse(88_120)}),
        **_as("checkpoint", _under("lightning_logs/version_0", ckpts)),
        **_as("checkpoint", _under("lightning_logs/version_1", ckpts)),
        **_as("other", {"configs/model.yaml": "lr: 0.001\nhidden: 8\n",
                        "train.py": "import lightning\n"}),
    })


# --- Keras 3.15 (BackupAndRestore(double_checkpoint=True), ModelCheckpoint, CSVLogger)
def keras_backup() -> Labelled:
    weights = Sparse(94_380_376)
    return Labelled("Keras BackupAndRestore", {
        **_as("checkpoint", {"backup/latest.weights.h5": weights,
                             "backup/latest.weights.h5.bkp": weights,
                             "backup/training_metadata.json": '{"epoch": 3, "batch": 0}',
                             "backup/training_metadata.json.bkp": '{"epoch": 2, "batch": 0}',
                             **{f"ckpt/model_{e:02d}.keras": Sparse(94_411_040)
                                for e in (1, 2, 3)}}),
        **_as("log", {"training.log": "epoch,loss,val_loss\n0,0.2350,NA\n",
                      "logs/train/events.out.tfevents.1796059278.gpu01.4242.0.v2": Sparse(64_200),
                      "logs/validation/events.out.tfevents.1796059279.gpu01.4242.1.v2":
                          Sparse(12_400)}),
        **_as("other", {"train.py": "import keras\n"}),
    })


# --- MLflow 3.17 file store: a run and its LoggedModel (mlflow.pytorch.log_model, recorded)
def mlflow_logged_model() -> Labelled:
    exp, run = "mlruns/183469426003731029", "f7ff944d6f534fb0a5cb3e33cb4cb951"
    model = "m-54583d89a8ae4453aa6b4f20358c2929"
    meta = ("artifact_location: file:///work/proj/mlruns/183469426003731029\n"
            "experiment_id: '183469426003731029'\nlifecycle_stage: active\nname: demo\n")
    return Labelled("MLflow logged model", {
        **_as("log", {
            "mlruns/0/meta.yaml":
                meta.replace("183469426003731029", "0").replace("demo", "Default"),
            f"{exp}/meta.yaml": meta,
            f"{exp}/{run}/meta.yaml": f"run_id: {run}\nrun_name: rare-finch-757\nstatus: 3\n",
            f"{exp}/{run}/metrics/val_loss": "1796059223732 0.3 1\n",
            f"{exp}/{run}/params/lr": "0.01",
            f"{exp}/{run}/tags/mlflow.runName": "rare-finch-757",
            f"{exp}/{run}/tags/mlflow.user": "root",
            f"{exp}/{run}/outputs/{model}/meta.yaml":
                f"destination_id: {model}\ndestination_type: MODEL_OUTPUT\nstep: 0\n",
            f"{exp}/models/{model}/meta.yaml":
                f"model_id: {model}\nname: model\nsource_run_id: {run}\nstatus: 2\n",
            f"{exp}/models/{model}/metrics/val_loss": f"1796059223732 0.3 1 {run}\n",
            f"{exp}/models/{model}/params/lr": "0.01",
            f"{exp}/models/{model}/tags/mlflow.source.name": "train.py",
            f"{exp}/models/{model}/tags/mlflow.source.type": "LOCAL",
            f"{exp}/models/{model}/tags/mlflow.user": "root"}),
        **_as("checkpoint", _under(f"{exp}/models/{model}/artifacts", {
            "MLmodel": f"flavors:\n  pytorch:\n    model_data: data\nmodel_id: {model}\n",
            "conda.yaml": "channels:\n- conda-forge\nname: mlflow-env\n",
            "python_env.yaml": "python: 3.11.7\n",
            "requirements.txt": "mlflow==3.17.2\ntorch==2.13.0\n",
            "input_example.json": '{"inputs": [[0.1, 0.2, 0.3, 0.4]]}',
            "serving_input_example.json": '{"inputs": [[0.1, 0.2, 0.3, 0.4]]}',
            "data/model.pt2": Sparse(102_418_227)})),
        **_as("other", {"train.py": "import mlflow\n"}),
    })


# --- Debug dumps: debugging tensors, py-spy 0.4 (default names as recorded), torch.compile
# debug output, torch profiler traces with memory snapshots beside them
def debug_dumps() -> Labelled:
    compile_run = "torch_compile_debug/run_2026_11_30_17_21_18_123456-pid_4242"
    graph = f"{compile_run}/torchinductor/model__0_forward_1.0"
    pyspy = "python-2026-11-30T17-21-18+0000"
    return Labelled("Debug dumps and profiles", {
        **_as("debug", {
            "debug/batch_0042.pt": Sparse(50_331_648),
            "debug/logits_step1200.npy": Sparse(205_520_896),
            "dumps/grads_step1200.npz": Sparse(102_760_448),
            "debug_dumps/attn_nan_rank0.pt": Sparse(33_554_432),
            "outputs/2026-11-30/17-19-43/debug/nan_batch.pt": Sparse(50_331_648),
            f"profiling/{pyspy}.svg": Sparse(272_550),
            f"profiling/{pyspy}.json": Sparse(50_960),
            "profiling/train.speedscope.json": Sparse(50_960),
            f"{pyspy}.svg": Sparse(272_550),
            f"{compile_run}/torchdynamo/debug.log": Sparse(120_000),
            f"{graph}/fx_graph_readable.py": Sparse(12_000),
            f"{graph}/fx_graph_runnable.py": Sparse(14_000),
            f"{graph}/ir_pre_fusion.txt": Sparse(30_000),
            f"{graph}/ir_post_fusion.txt": Sparse(30_000),
            f"{graph}/output_code.py": Sparse(40_000),
            "log/resnet18/gpu01_4242.1796059278123456789.pt.trace.json": Sparse(24_000_000),
            "log/resnet18/memory_snapshot.pickle": Sparse(310_000_000),
            "profiles/gpu01_Nov_30_17_21_18.pickle": Sparse(310_000_000),
            "profiles/gpu01_Nov_30_17_21_18.json.gz": Sparse(8_000_000),
            "profiles/gpu01_Nov_30_17_21_18.html": Sparse(2_000_000)}),
        **_as("log", {"outputs/2026-11-30/17-19-43/train.log": "lr=0.01\n",
                      "outputs/2026-11-30/17-19-43/.hydra/config.yaml": _HYDRA_CONFIG}),
        **_as("other", {"train.py": "import torch\n", "src/debug/__init__.py": "",
                        "src/debug/inspect_nans.py": "import torch\n"}),
    })


# --- HF datasets 5.2: a cache in a custom cache_dir, recorded (load_dataset + map), and a
# processed copy written with save_to_disk
def hf_datasets_cache() -> Labelled:
    version = "hf_cache/stanfordnlp___imdb/plain_text/0.0.0"
    digest = "e6281661ce1c48d982bc483cf8a173c1bbeb5d31"
    build = f"{version}/{digest}"
    csv = "hf_cache/csv/default-caf0935233119564/0.0.0"
    csv_digest = "7067e4b2422ab4b7d61ccf25eb67c03d0df17a5264a8fa53f4593051b5adb555"
    info = _json({"builder_name": "parquet", "config_name": "plain_text", "dataset_name": "imdb",
                  "splits": {"train": {"name": "train", "num_examples": 25000}}})
    return Labelled("HF datasets cache (custom cache_dir)", {
        **_as("cache", {
            f"{build}/imdb-train.arrow": Sparse(20_979_968),
            f"{build}/imdb-test.arrow": Sparse(20_470_363),
            f"{build}/imdb-unsupervised.arrow": Sparse(41_996_509),
            f"{build}/dataset_info.json": info,
            f"{build}/cache-71242c888964645d.arrow": Sparse(98_304_000),
            f"{build}.incomplete_info.lock": "",
            f"{build}_builder.lock": "",
            f"hf_cache/hf_cache_stanfordnlp___imdb_plain_text_0.0.0_{digest}.lock": "",
            f"{csv}/{csv_digest}/csv-train.arrow": Sparse(6_400_640),
            f"{csv}/{csv_digest}/dataset_info.json": info,
            f"{csv}/{csv_digest}.incomplete_info.lock": "",
            f"{csv}/{csv_digest}_builder.lock": ""}),
        **_as("dataset", {
            "data/tokenized/train/data-00000-of-00001.arrow": Sparse(92_000_000),
            "data/tokenized/train/dataset_info.json": info,
            "data/tokenized/train/state.json": _json({"_data_files": [
                {"filename": "data-00000-of-00001.arrow"}], "_fingerprint": "71242c888964645d"}),
            "data/train.csv": Sparse(33_000_000)}),
    })


# --- Processed data is a dataset (cookiecutter-data-science layout, and arrays, HDF5, Zarr,
# LMDB, TFRecord and save_to_disk output under processed/preprocessed/features folders)
def processed_data() -> Labelled:
    zarr = {f"features/clip_vitl14.zarr/{name}": Sparse(64 * MB) for name in ("0.0", "1.0", "2.0")}
    zarr["features/clip_vitl14.zarr/.zarray"] = _json({"chunks": [50000, 768], "zarr_format": 2})
    return Labelled("Processed data", {
        **_as("dataset", {
            "data/raw/train.csv": Sparse(812_000_000),
            "data/interim/train_clean.parquet": Sparse(402_000_000),
            "data/processed/train.parquet": Sparse(305_000_000),
            "data/processed/val.parquet": Sparse(31_000_000),
            "data/processed/features.npz": Sparse(420_000_000),
            "data/processed/train_lmdb/data.mdb": Sparse(2_100_000_000),
            "data/processed/train_lmdb/lock.mdb": Sparse(8_192),
            **{f"data/processed/tfrecords/train.tfrecord-0000{i}-of-00004": Sparse(250_000_000)
               for i in range(4)},
            "data/processed/tokenized/data-00000-of-00002.arrow": Sparse(480_000_000),
            "data/processed/tokenized/data-00001-of-00002.arrow": Sparse(480_000_000),
            "data/processed/tokenized/dataset_info.json": _json({"dataset_name": "corpus"}),
            "data/processed/tokenized/state.json": _json({"_fingerprint": "a1b2c3d4e5f60718"}),
            "preprocessed/x_train.npy": Sparse(600_000_000),
            "preprocessed/y_train.npy": Sparse(480_000),
            "preprocessed/meta.pkl": Sparse(24_000),
            "features/clip_vitl14.h5": Sparse(153_600_000),
            "features/train_feats.pt": Sparse(153_600_000),
            **zarr,
            "nnUNet_preprocessed/Dataset001_Heart/nnUNetPlans.json": "{}",
            "nnUNet_preprocessed/Dataset001_Heart/nnUNetPlans_3d_fullres/la_003.b2nd":
                Sparse(40_000_000),
            "nnUNet_preprocessed/Dataset001_Heart/nnUNetPlans_3d_fullres/la_003_seg.b2nd":
                Sparse(4_000_000),
            "nnUNet_preprocessed/Dataset001_Heart/nnUNetPlans_3d_fullres/la_003.pkl":
                Sparse(2_000)}),
        **_as("other", {"src/data/make_dataset.py": "import click\n",
                        "src/features/build_features.py": "import pandas\n",
                        "notebooks/1.0-eda.ipynb": "{}", "Makefile": "data:\n",
                        "configs/preprocess.yaml": "resize: 224\n"}),
    })


# --- Augmented copies: Augmentor's output/, aug folders, *_aug<k> files, transform copies
def augmented_copies() -> Labelled:
    raw = {f"data/raw/cats/cat_{i:04d}.jpg": Sparse(120_000) for i in range(12)}
    augmentor = {f"data/raw/cats/output/cats_original_cat_{i:04d}.jpg_"
                 f"{i:08x}-1c2d-4e5f-8a9b-0c1d2e3f4a5b.JPEG": Sparse(118_000) for i in range(24)}
    mixed_raw = {f"data/images/img_{i:04d}.jpg": Sparse(120_000) for i in range(12)}
    mixed_aug = {f"data/images/img_{i:04d}_aug{k}.jpg": Sparse(119_000)
                 for i in range(12) for k in range(2)}
    return Labelled("Augmented copies", {
        **_as("dataset", {**raw, **mixed_raw}),
        **_as("augmented", {
            **augmentor, **mixed_aug,
            **{f"data/train_aug/cat_{i:04d}.jpg": Sparse(119_000) for i in range(12)},
            **{f"data/augmented_v2/cat_{i:04d}.png": Sparse(300_000) for i in range(12)},
            **{f"data/aug/cat_{i:04d}.jpg": Sparse(119_000) for i in range(12)},
            **{f"data/flipped/cats/cat_{i:04d}.jpg": Sparse(120_000) for i in range(12)},
            **{f"data/rot90/cats/cat_{i:04d}.jpg": Sparse(120_000) for i in range(12)}}),
        **_as("other", {"augment.py": "import Augmentor\n"}),
    })


# --- A project made from lightning-hydra-template: source packages and config groups named
# data/, model/, debug/ are code and configs; Hydra runs under logs/ hold the run's records
def lightning_hydra_project() -> Labelled:
    run = "logs/train/runs/2026-11-30_17-19-43"
    source = {f"src/{path}": "import torch\n" for path in (
        "__init__.py", "train.py", "eval.py", "data/__init__.py", "data/mnist_datamodule.py",
        "data/components/__init__.py", "models/__init__.py", "models/mnist_module.py",
        "models/components/__init__.py", "models/components/simple_dense_net.py",
        "utils/__init__.py", "utils/instantiators.py")}
    configs = {f"configs/{group}.yaml": "_target_: src.models.mnist_module.MNISTLitModule\n"
               for group in ("train", "eval", "data/mnist", "model/mnist", "debug/default",
                             "debug/profiler", "debug/fdr", "trainer/default", "logger/csv",
                             "callbacks/default", "experiment/example", "paths/default",
                             "hydra/default", "extras/default")}
    return Labelled("lightning-hydra-template project", {
        **_as("other", {**source, **configs, "tests/test_train.py": "import pytest\n",
                        "scripts/schedule.sh": "python src/train.py\n", "Makefile": "test:\n",
                        "README.md": "# Lightning-Hydra-Template\n", "pyproject.toml": "[tool]\n",
                        "requirements.txt": "torch\nlightning\nhydra-core\n",
                        ".project-root": "", "environment.yaml": "name: myenv\n"}),
        **_as("log", _under(run, {**_hydra_job("0.002"), "config_tree.log": "CONFIG\n",
                                  "tags.log": "['dev']\n",
                                  "csv/version_0/hparams.yaml": "model/params/total: 68048\n",
                                  "csv/version_0/metrics.csv": "epoch,step,val/acc\n0,429,0.97\n",
                                  "tensorboard/version_0/events.out.tfevents."
                                  "1796059278.gpu01.4242.0": Sparse(24_300)})),
        **_as("checkpoint", _under(f"{run}/checkpoints", {"epoch_004.ckpt": Sparse(817_641),
                                                         "last.ckpt": Sparse(817_641)})),
        **_as("dataset", {f"data/MNIST/raw/{name}": Sparse(size) for name, size in (
            ("train-images-idx3-ubyte", 47_040_016), ("train-images-idx3-ubyte.gz", 9_912_422),
            ("train-labels-idx1-ubyte", 60_008), ("t10k-images-idx3-ubyte", 7_840_016))}),
    })


#: Every labelled workspace, by the tool whose layout it is.
LABELLED = (hf_trainer_final_save, hf_trainer_sharded_v4, peft_adapter, hydra_runs, timm_run,
            ultralytics_run, mmengine_work_dir, lightning_run, keras_backup, mlflow_logged_model,
            debug_dumps, hf_datasets_cache, processed_data, augmented_copies,
            lightning_hydra_project, *TOOL_LAYOUTS)


@dataclass(frozen=True)
class Verdict:
    """One labelled file: the category it should have, the one it got, and its size."""

    path: str
    expected: str
    got: str
    size: int


def score(layout: Labelled, root: Path) -> list[Verdict]:
    """Make ``layout`` under ``root``, scan and classify it, and judge every labelled file."""
    return judge(layout, root, inventory_of(make(root, layout.spec)))


def judge(layout: Labelled, root: Path, inv: Inventory) -> list[Verdict]:
    """Every labelled file of ``layout``, made under ``root``, as ``inv`` classified it."""
    cats = categories_by_path(inv)
    return [Verdict(path, expected, cats[path], os.lstat(root / path).st_size)
            for path, expected in layout.labels.items()]


def accuracy(verdicts: list[Verdict], by_bytes: bool = False) -> float:
    """The share of files (or of their bytes) in the category they should have."""
    weight = [v.size if by_bytes else 1 for v in verdicts]
    right = sum(w for v, w in zip(verdicts, weight, strict=True) if v.expected == v.got)
    return right / sum(weight) if sum(weight) else 1.0
