"""What a checkpoint's name says: which tool wrote it, its step, epoch and metrics, and whether
the tool calls it the best, the last or the final one. Patterns from ml-layouts.md §1-3."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from mlspace.classify.name_meaning import protected_role, scores_in, without_scores
from mlspace.classify.readers.records import json_number


@dataclass(frozen=True)
class CheckpointName:
    tool: str
    step: int | None = None
    epoch: int | None = None
    metrics: tuple[tuple[str, float], ...] = ()
    #: What the tool's naming promises: "best", "last", "final", "partial", or "export" (a
    #: model exported for serving or sharing, no step of a training series to thin out).
    role: str | None = None
    group: str | None = None  # files that form one checkpoint share this key (shards, bundles)


_NUM = r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|nan|-?inf"
_LIGHTNING_TOKEN = re.compile(rf"(?:^|-)([A-Za-z_][\w.]*)=({_NUM})")
_SHARD = re.compile(r"(.+?)-\d{5}-of-\d{5}(\.[\w.]+)$")
_TF_BUNDLE = re.compile(r"(.+?)(?:-(\d+))?\.(?:index|data-\d{5}-of-\d{5}|meta)$")


def _int(value: str | None) -> int | None:
    return int(value) if value is not None else None


def _lightning(stem: str) -> CheckpointName:
    """Lightning ModelCheckpoint names: ``epoch=3-step=900-val_loss=0.12[-vN]`` and NeMo's
    ``<name>--val_loss=1.2345-epoch=3[-last]``."""
    role = None
    if stem == "last" or re.fullmatch(r"last(-v\d+)?", stem) or stem.endswith("-last"):
        role = "last"
    role = role or protected_role(stem)
    stem = re.sub(r"-v\d+$", "", stem.removesuffix("-last"))
    values = dict(_LIGHTNING_TOKEN.findall(stem))
    metrics = tuple(
        (k, float(v)) for k, v in values.items() if k not in ("epoch", "step")
    )
    hpc = re.fullmatch(r"hpc_ckpt_(\d+)", stem)
    tool = "NeMo" if "--" in stem else "Lightning"
    step = values.get("step") or (hpc.group(1) if hpc else None)
    # "epoch=nan" or "epoch=1e999" match the number pattern but are no epoch.
    epoch = json_number(float(values["epoch"])) if "epoch" in values else None
    return CheckpointName(
        tool=tool,
        step=_int(step),
        epoch=int(epoch) if epoch is not None else None,
        metrics=metrics,
        role=role,
    )


# (pattern on the full name, tool, how to read it)
_FIXED: tuple[tuple[re.Pattern[str], str, str | None, str | None, str | None], ...] = tuple(
    (re.compile(p), tool, step, epoch, role)
    for p, tool, step, epoch, role in (
        # pattern, tool, step group, epoch group, role
        (r"checkpoint_best(?:-shard\d+|-model_part-\d+)*\.pt", "fairseq", None, None, "best"),
        (r"checkpoint_last(?:-shard\d+|-model_part-\d+)*\.pt", "fairseq", None, None, "last"),
        (r"checkpoint(?P<e>\d+)(?:-shard\d+|-model_part-\d+)*\.pt", "fairseq", None, "e", None),
        (r"checkpoint_(?P<e>\d+)_(?P<s>\d+)(?:-shard\d+|-model_part-\d+)*\.pt", "fairseq", "s",
         "e", None),
        (r"checkpoint\.best_.+_\d+\.\d{3}\d?\.pt", "fairseq", None, None, "best"),
        (r"model_(?P<s>\d{7})\.pth", "Detectron2", "s", None, None),
        (r"model_final\.pth", "Detectron2", None, None, "final"),
        (r"model_best\.pth", "Detectron2", None, None, "best"),
        (r"epoch_(?P<e>\d+)\.pth", "MMEngine", None, "e", None),
        (r"iter_(?P<s>\d+)\.pth", "MMEngine", "s", None, None),
        (r"best_.+_(?:epoch_(?P<e>\d+)|iter_(?P<s>\d+))\.pth", "MMEngine", "s", "e", "best"),
        (r"last\.pt", "Ultralytics", None, None, "last"),
        (r"best\.pt", "Ultralytics", None, None, "best"),
        (r"epoch(?P<e>\d+)\.pt", "Ultralytics", None, "e", None),
        (r"last\.pth\.tar", "timm", None, None, "last"),
        (r"model_best\.pth\.tar", "timm", None, None, "best"),
        (r"checkpoint-(?P<e>\d+)\.pth\.tar", "timm", None, "e", None),
        (r"recovery-(?P<e>\d+)-(?P<s>\d+)\.pth\.tar", "timm", "s", "e", None),
        (r"(?:recovery_)?tmp\.pth\.tar", "timm", None, None, "partial"),
        (r"checkpoint_best\.pth", "nnU-Net", None, None, "best"),
        (r"checkpoint_latest\.pth", "nnU-Net", None, None, "last"),
        (r"checkpoint_final\.pth", "nnU-Net", None, None, "final"),
        (r"model_optim_rng\.pt|distrib_optim\.pt", "Megatron-LM", None, None, None),
        (r".+\.nemo", "NeMo", None, None, "final"),
        # Composer's CheckpointSaver: save_filename 'ep{epoch}-ba{batch}-rank{rank}.pt' and
        # the 'latest-rank{rank}.pt' symlink (docs/source/trainer/checkpointing.rst)
        (r"ep(?P<e>\d+)-ba(?P<s>\d+)(?:-rank\d+)?\.pt", "Composer", "s", "e", None),
        (r"latest-rank\d+\.pt", "Composer", None, None, "last"),
    )
)

#: Formats a model is exported to for serving or sharing (ONNX, torch.export, Keras 3,
#: TFLite, llama.cpp, TensorRT, Core ML), by suffix: an export, not a training save, unless
#: its name numbers it (model_03.keras, as Keras' ModelCheckpoint writes them).
_EXPORTS = {".onnx": "ONNX", ".pt2": "torch.export", ".keras": "Keras", ".tflite": "TFLite",
            ".gguf": "GGUF", ".engine": "TensorRT", ".mlmodel": "Core ML"}
#: A number at the end of a name's stem, after a separator: an epoch or step.
_ORDINAL = re.compile(r"[_\-.=]\d+$")
#: Folder checkpoints that are exported models (a rule's tool names them).
EXPORT_TOOLS = frozenset({"TensorFlow SavedModel", "diffusers", "sentence-transformers"})


#: Parsed names are immutable and repeat across runs (checkpoint-500 in each of them).
_PARSED_NAMES = 1 << 14


@lru_cache(maxsize=_PARSED_NAMES)
def parse_checkpoint_name(name: str) -> CheckpointName | None:
    """Read a checkpoint file's name, or None if it is not a weights file (records such as
    ``trainer_state.json`` or ``latest`` are part of a checkpoint, not one themselves)."""
    for pattern, tool, step, epoch, role in _FIXED:
        match = pattern.fullmatch(name)
        if match:
            groups = match.groupdict()
            return CheckpointName(
                tool=tool,
                step=_int(groups.get(step)) if step else None,
                epoch=_int(groups.get(epoch)) if epoch else None,
                role=role,
            )
    if name.endswith(".ckpt"):
        return _lightning(name[: -len(".ckpt")])
    stem, dot, suffix = name.rpartition(".")
    if dot and f".{suffix.lower()}" in _EXPORTS:
        exported = _generic(name)
        if exported.step is None and exported.epoch is None and exported.role is None \
                and not _ORDINAL.search(stem):
            return CheckpointName(tool=_EXPORTS[f".{suffix.lower()}"], role="export")
        return exported
    shard = _SHARD.fullmatch(name)
    if shard and shard.group(2) in (".safetensors", ".bin"):
        return CheckpointName(tool="Hugging Face", group=shard.group(1) + shard.group(2))
    bundle = _TF_BUNDLE.fullmatch(name)
    if bundle:
        prefix = bundle.group(1) + (f"-{bundle.group(2)}" if bundle.group(2) else "")
        return CheckpointName(tool="TensorFlow", step=_int(bundle.group(2)), group=prefix)
    if name.endswith((".safetensors", ".pt", ".pth", ".bin", ".keras", ".h5", ".onnx", ".msgpack",
                      ".pth.tar", ".gguf", ".tflite", ".distcp", ".pdparams", ".engine")):
        if name.endswith(".bin") and not name.startswith(("pytorch_model", "adapter_model")):
            return None  # optimizer.bin and friends are resume state, not a checkpoint
        if name.startswith(("optimizer", "scheduler", "scaler", "rng_state", "random_states",
                            "training_args")) or _PREFIXED_RESUME_STATE.search(name):
            return None
        return _generic(name)
    return None


def parse_unknown_weights(name: str) -> CheckpointName | None:
    """A file already judged a checkpoint whose suffix no reader knows (``epoch_08.npz``,
    ``best.npz``, a tool's own ``.msh``): a save of its series when a word in its name
    orders it (step, epoch) or protects it (best, last), else None. A lone number does not
    order such a save: ``agent-1.msh`` may be seed 1's, beside seed 0's ``agent-0.msh``. A
    name with no suffix is a tool's pointer or marker (DeepSpeed's ``latest``), not weights."""
    lower = name.lower()
    if "." not in lower.lstrip(".") or lower.endswith(_TEXT_SUFFIXES) or lower.startswith(
            ("optimizer", "scheduler", "scaler", "rng_state", "random_states")):
        return None
    parsed = _generic(name, ordinal=False)
    if parsed.step is None and parsed.epoch is None and parsed.role is None:
        return None
    return parsed


#: Text a run keeps beside its saves: records and configs, never weights of their own.
_TEXT_SUFFIXES = (".json", ".jsonl", ".yaml", ".yml", ".txt", ".csv", ".tsv", ".log", ".md",
                  ".toml", ".cfg", ".ini", ".xml")


#: Resume state under a prefix (``train_end_optimizer.pt``): part of a checkpoint, not one.
_PREFIXED_RESUME_STATE = re.compile(
    r"[_\-](?:optimizer|scheduler|scaler|rng_state)(?:_\d+)?\.(?:pt|pth|bin)$")
_GENERIC_STEP = re.compile(r"(?:^|[_\-.])(?:step|global_step|iter|iteration|it)[_\-=]?(\d+)", re.I)
#: A bare ``e`` orders a save only as a token of its own with a few digits (``_e27``): the
#: start of a hex digest (``e009700001_e3``, ``e12ee4c859``) is a config's id, no epoch.
_GENERIC_EPOCH = re.compile(
    r"(?:^|[_\-.])(?:epoch|ep|e(?=[_\-=]?\d{1,6}(?:$|[_\-.])))[_\-=]?(\d+)", re.I)
#: A number standing alone between separators (``ckpt_5``, ``model-0003``, ``net.12``): the
#: order of a save when no word names it. ``resnet50`` or ``model_v2`` are names, not orders.
_ORDINAL_TOKEN = re.compile(r"(?:^|[_\-.])(\d+)(?=$|[_\-.])")
#: Suffixes a weights file's name ends in, longest first: what is left is its stem.
_WEIGHT_SUFFIXES = (".pth.tar", ".weights.h5", ".safetensors", ".msgpack", ".pdparams",
                    ".tflite", ".engine", ".distcp", ".keras", ".onnx", ".gguf", ".ckpt",
                    ".pth", ".bin", ".pt", ".h5", ".tar", ".zip", ".pkl", ".npz")


def _stem(name: str) -> str:
    lower = name.lower()
    for suffix in _WEIGHT_SUFFIXES:
        if lower.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name.rsplit(".", 1)[0] if "." in name[1:] else name


def _generic(name: str, tool: str = "PyTorch", ordinal: bool = True) -> CheckpointName:
    """Any other checkpoint's name: step and epoch numbers (with ``ordinal``, a lone number
    between separators orders it when no word does), the scores it carries, and a word that
    protects it."""
    stem = _stem(name)
    step = _GENERIC_STEP.search(stem)
    epoch = _GENERIC_EPOCH.search(stem)
    step_number = _int(step.group(1)) if step else None
    if step is None and epoch is None and ordinal:
        ordinals = _ORDINAL_TOKEN.findall(without_scores(stem))
        step_number = int(ordinals[-1]) if ordinals and len(ordinals[-1]) <= 18 else None
    return CheckpointName(
        tool=tool,
        step=step_number,
        epoch=_int(epoch.group(1)) if epoch else None,
        metrics=scores_in(stem),
        role=protected_role(stem),
    )


# ------------------------------------------------------------------------- folder checkpoints
_DIR_PATTERNS = (
    (re.compile(r"checkpoint-(\d+)"), "HF Trainer", "step"),
    (re.compile(r"checkpoint_(\d+)"), "Accelerate", "step"),
    (re.compile(r"global_step(\d+)"), "DeepSpeed", "step"),
    (re.compile(r"iter_(\d{7})"), "Megatron-LM", "step"),
    (re.compile(r"epoch_(\d+)"), "torchtune", "epoch"),
    # A number alone or after a stem: Orbax's step folders (whose rule names the tool),
    # and any tool's numbered saves.
    (re.compile(r"(?:.+[_\-])?(\d+)"), "checkpoint", "step"),
)


@lru_cache(maxsize=_PARSED_NAMES)
def parse_checkpoint_dir(name: str, rule_tool: str | None) -> CheckpointName:
    """Read a checkpoint folder's name (``checkpoint-500``, ``global_step900``, a Lightning
    ``epoch=3-step=900.ckpt`` folder, an Orbax step folder...)."""
    if name.endswith((".ckpt", ".pth", ".pt")) and "." in name:
        parsed = parse_checkpoint_name(name)
        if parsed is not None:
            return parsed
    for pattern, tool, unit in _DIR_PATTERNS:
        match = pattern.fullmatch(name)
        if match:
            number = int(match.group(1))
            return CheckpointName(tool=rule_tool or tool, step=number if unit == "step" else None,
                                  epoch=number if unit == "epoch" else None)
    if rule_tool in EXPORT_TOOLS:
        return CheckpointName(tool=rule_tool, role="export")
    if name.endswith("-tmp") or "orbax-checkpoint-tmp" in name:
        return CheckpointName(tool=rule_tool or "checkpoint", role="partial")
    # A folder's other numbers are as often dates or versions as orders (Ray's
    # checkpoint_<date>/): only its words and scores are read.
    return _generic(name, rule_tool or "checkpoint", ordinal=False)
