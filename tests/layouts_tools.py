"""Workspaces of the training tools added for issue 13's last part, and the runs built from
the files real tools wrote (tests/fixtures/timm, .../hf_trainer, .../ray) whose own retention
(timm's --checkpoint-hist, HF Trainer's save_total_limit, Ray's CheckpointConfig) the
retention tests check; see each fixture folder's make_fixtures.py for how they were made.

TOOL_LAYOUTS (added to layouts.LABELLED) gathers these and those of layouts_exports.py and
layouts_trackers.py.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from layout_kit import MB, Labelled, Link, Sparse, as_category, make, under
from layouts_exports import EXPORT_LAYOUTS
from layouts_trackers import TRACKER_LAYOUTS

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TIMM = FIXTURES / "timm"
TIMM_EXPECTED = json.loads((TIMM / "expected.json").read_text())
TIMM_RUN = "output/train/20261130-172000-resnet50-224"
RAY = FIXTURES / "ray"
#: Trial folder (below ray_results/) -> what Ray's API said: latest, best, kept (on disk).
RAY_EXPECTED: dict[str, dict] = json.loads((RAY / "expected.json").read_text())
HF = FIXTURES / "hf_trainer"
HF_KEPT: list[str] = json.loads((HF / "kept.json").read_text())
HF_RUN = "gpt2-tiny"


def timm_fixture_run(root: Path, run: str) -> Path:
    """The fixture run ``run`` where timm's train.py writes it, with the hard links the
    CheckpointSaver made (git keeps none)."""
    folder = root / TIMM_RUN
    folder.mkdir(parents=True)
    links = TIMM_EXPECTED[run]["links"]
    for path in sorted((TIMM / run).iterdir()):
        if path.name not in links:
            shutil.copy2(path, folder / path.name)
    for name, target in links.items():
        os.link(folder / target, folder / name)
    return folder


def hf_fixture_run(root: Path) -> Path:
    """The fixture run's records in its output folder, with the weights, optimizer and RNG
    state a checkpoint of that model holds (sparse), and the final save_model() weights."""
    out = root / HF_RUN
    shutil.copytree(HF / HF_RUN, out)
    state = {"model.safetensors": Sparse(265_760), "optimizer.pt": Sparse(533_259),
             "scheduler.pt": Sparse(1_465), "rng_state.pth": Sparse(14_455),
             "config.json": '{"model_type": "gpt2", "n_layer": 1}',
             "generation_config.json": '{"bos_token_id": 50256}'}
    for name in HF_KEPT:
        make(out / name, state)
    make(out, {"model.safetensors": Sparse(265_760),
               "config.json": '{"model_type": "gpt2", "n_layer": 1}'})
    return out


def ray_fixture_results(root: Path) -> Path:
    """The fixture's ``ray_results/`` as Ray 2.60 wrote it (tests/fixtures/ray), in
    ``root``."""
    return Path(shutil.copytree(RAY / "ray_results", root / "ray_results"))


def ray_runs() -> Labelled:
    """Ray Tune's lr-sweep, and Ray Train's runs before and since V2, of tests/fixtures/ray
    where Ray wrote them (~/ray_results): every file Ray wrote is a record of the runs (log),
    what the trainable saved into a checkpoint folder is the checkpoint, here with the
    ``model.pt`` a torch trainable saves there (Ray's docs: ``torch.save(model.state_dict(),
    os.path.join(temp_checkpoint_dir, "model.pt"))``), sparse."""
    files: dict[str, tuple[object, str]] = {}
    for experiment in ("lr-sweep", "train-v1", "train-v2"):
        for path in sorted((RAY / "ray_results" / experiment).rglob("*")):
            rel = path.relative_to(RAY)
            if path.is_dir() and path.name.startswith("checkpoint_"):
                files[f"{rel.as_posix()}/model.pt"] = (Sparse(44 * MB), "checkpoint")
            elif path.is_file():
                saved = any(part.startswith("checkpoint_") for part in rel.parts[:-1])
                files[rel.as_posix()] = (path.read_bytes(), "checkpoint" if saved else "log")
    return Labelled("Ray Tune and Ray Train", {
        **files, **as_category("other", {"tune_resnet.py": "from ray import tune\n"})})


def distributed_checkpoints() -> Labelled:
    """torch.distributed.checkpoint.save(..., checkpoint_id=...) per step, two ranks
    (``__<rank>_<n>.distcp`` and ``.metadata``, recorded with one rank and named as
    torch/distributed/checkpoint/filesystem.py names them for more)."""
    steps = {f"step_{step}/{name}": size for step in (1000, 2000)
             for name, size in ((".metadata", Sparse(3_332)), ("__0_0.distcp", Sparse(1_380 * MB)),
                                ("__1_0.distcp", Sparse(1_380 * MB)))}
    return Labelled("torch.distributed.checkpoint", {
        **as_category("checkpoint", under("dcp_ckpt", steps)),
        **as_category("other", {"train_fsdp.py": "import torch.distributed.checkpoint as dcp\n"}),
    })


def torchtune_run() -> Labelled:
    """A torchtune LoRA recipe's output_dir (torchtune/training/checkpointing/_checkpointer.py
    and _utils.py: epoch_<N>/ with HF-format shards, the adapter and the copied model files;
    recipe_state/recipe_state.pt; DiskLogger's logs/log_<unix time>.txt)."""
    epoch = {"model-00001-of-00002.safetensors": Sparse(4_965 * MB),
             "model-00002-of-00002.safetensors": Sparse(1_459 * MB),
             "model.safetensors.index.json": '{"metadata": {"total_size": 6425499648}}',
             "adapter_model.safetensors": Sparse(9 * MB),
             "adapter_config.json": '{"r": 8, "lora_alpha": 16, "peft_type": "LORA"}',
             "config.json": '{"model_type": "llama"}', "generation_config.json": "{}",
             "original_repo_id.json": '{"repo_id": "meta-llama/Llama-3.2-3B-Instruct"}',
             "tokenizer.json": Sparse(9_085_657), "tokenizer_config.json": "{}"}
    out = "output/llama3_2_3B/lora"
    return Labelled("torchtune LoRA run", {
        **as_category("checkpoint", under(out, {**under("epoch_0", epoch),
                                                **under("epoch_1", epoch),
                                                "recipe_state/recipe_state.pt": Sparse(38 * MB)})),
        **as_category("log", under(out, {"logs/log_1796059200.txt": "Step 1 | loss:1.43\n"})),
        **as_category("other", {"configs/3B_lora.yaml": "output_dir: output/llama3_2_3B/lora\n"}),
    })


def composer_run() -> Labelled:
    """Composer's CheckpointSaver defaults (docs/source/trainer/checkpointing.rst):
    ep{epoch}-ba{batch}-rank{rank}.pt in save_folder and the latest-rank{rank}.pt symlink."""
    saves = {f"ep{e}-ba{e * 500}-rank0.pt": Sparse(270 * MB) for e in (1, 2, 3)}
    return Labelled("Composer", {
        **as_category("checkpoint", under("runs/bert-mlm/checkpoints", {
            **saves, "latest-rank0.pt": Link("ep3-ba1500-rank0.pt")})),
        **as_category("other", {"train.py": "from composer import Trainer\n"}),
    })


def timm_top_k() -> Labelled:
    """The real timm run of tests/fixtures/timm (--checkpoint-hist 3) as train.py lays it
    out, hard links copied (make() writes no links)."""
    run = "output/train/20261130-172000-resnet50-224"
    files = {path.name: path.read_bytes() for path in sorted((TIMM / "top1").iterdir())}
    return Labelled("timm CheckpointSaver top-k", {
        **as_category("log", under(run, {n: files.pop(n) for n in ("args.yaml", "summary.csv")})),
        **as_category("checkpoint", under(run, files)),
    })


#: Labelled workspaces of these tools (added to layouts.LABELLED).
TOOL_LAYOUTS = (distributed_checkpoints, torchtune_run, composer_run, timm_top_k, ray_runs,
                *EXPORT_LAYOUTS, *TRACKER_LAYOUTS)
