"""What a file *is*, from one bounded look at its bytes: its format by magic numbers and
structure, and what that says it holds (a model, a run's record, data).

This is how mlspace meets a tool nobody wrote a rule for: ``policy.zip`` holding
``policy.pth``, an extensionless ``snapshot_iter_100`` that is a torch archive, a CSV whose
columns are ``epoch,train_loss,valid_loss``. Everything is read through
:mod:`mlspace.safe_read` (regular files only, never a link, never blocking), at most
HEAD_BYTES from the start and, for a zip whose head does not list its members, TAIL_BYTES
of its central directory; nothing is decompressed, unpickled, imported or run. Formats:
safetensors, torch zip and legacy archives, pickle (protocol and the modules it names,
read as opcodes), HDF5 (and the Keras attributes in its head), NumPy ``.npy``/``.npz``,
ONNX, TensorFlow checkpoint indexes, Arrow IPC and Feather, Parquet, SQLite, gzip, bzip2,
xz, zstd, lz4, tar and zip (by member names), images, audio, text tables and JSON.
"""

from __future__ import annotations

import pickletools
import re
import struct
from dataclasses import dataclass

from mlspace.classify.metrics import direction
from mlspace.classify.name_meaning import (
    PROGRESS_WORDS,
    RUN_ID_WORDS,
    WHEN_WORDS,
    metric_like,
    says_model,
    says_record,
    words_of,
)
from mlspace.classify.readers.sniff_archive import (
    is_tar,
    tar_names_from_head,
    zip_names_from_head,
    zip_names_from_tail,
)
from mlspace.classify.readers.sniff_text import json_top_keys, table_columns, text_of
from mlspace.safe_read import Unreadable, read_head, read_tail

HEAD_BYTES = 64 * 1024
TAIL_BYTES = 64 * 1024

#: What a file holds, as far as its bytes tell.
MODEL = "model"  # weights or a trained estimator: a checkpoint
RECORD = "record"  # metrics, a history, a tracker's messages: a log
DATA = "data"  # arrays, tables, media: a dataset
TRACE = "trace"  # a profiler's or tracer's record of a program's run: debug output


@dataclass(frozen=True)
class Sniffed:
    """A file's format ("" when no magic fits) and what it holds (None when the format does
    not tell), with the evidence in a few words."""

    format: str
    holds: str | None = None
    evidence: str = ""


UNKNOWN = Sniffed("")


def sniff_file(path: str, size: int | None = None) -> Sniffed | None:
    """What the file at ``path`` is, or None when it cannot be read (gone, not a regular
    file, a link, no permission, a scan of another machine)."""
    try:
        head = read_head(path, HEAD_BYTES)
    except Unreadable:
        return None
    tail = head if len(head) < HEAD_BYTES else b""  # the whole file: its end is here too
    if head[:4] == b"PK\x03\x04" and not tail:
        names = zip_names_from_head(head)
        if not any(_archive_holds(names)):
            try:
                tail = read_tail(path, TAIL_BYTES)
            except Unreadable:
                tail = b""
    return sniff_bytes(head, tail)


def sniff_bytes(head: bytes, tail: bytes = b"") -> Sniffed:
    """What a file starting with ``head`` (and ending with ``tail``, for a zip) is."""
    for test in (_binary_magic, _zip, _pickle, _text):
        found = test(head, tail)
        if found is not None:
            return found
    return UNKNOWN


# ------------------------------------------------------------------------------ binaries
_IMAGES = ((b"\x89PNG\r\n\x1a\n", "png"), (b"\xff\xd8\xff", "jpeg"), (b"GIF87a", "gif"),
           (b"GIF89a", "gif"), (b"II*\x00", "tiff"), (b"MM\x00*", "tiff"))
_AUDIO = ((b"fLaC", "flac"), (b"OggS", "ogg"), (b"ID3", "mp3"))
_COMPRESSED = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"),
               (b"\x28\xb5\x2f\xfd", "zstd"), (b"\x04\x22\x4d\x18", "lz4"))
#: Model formats known by their magic (besides the ones tested by structure below).
_MODEL_MAGIC = ((b"GGUF", "gguf"), (b"CBM1", "catboost"), (b"lgbm", "lightgbm"),
                (b"tree\nversion=", "lightgbm"))
_TORCH_LEGACY = b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19"
_TF_TABLE_MAGIC = b"\x57\xfb\x80\x8b\x24\x75\x47\xdb"
#: Attributes Keras writes in an HDF5 model's root group, near the start of the file.
_KERAS_H5 = (b"model_config", b"keras_version", b"layer_names", b"model_weights",
             b"optimizer_weights")


def _binary_magic(head: bytes, tail: bytes) -> Sniffed | None:
    for magic, name in _MODEL_MAGIC:
        if head.startswith(magic):
            return Sniffed(name, MODEL, f"{name} model header")
    if head.startswith(_TORCH_LEGACY):
        return Sniffed("torch-legacy", MODEL, "torch.save (legacy format)")
    if _is_safetensors(head):
        return Sniffed("safetensors", MODEL, "safetensors header")
    if any(head[at:at + 8] == b"\x89HDF\r\n\x1a\n" for at in (0, 512, 1024, 2048)):
        if any(marker in head for marker in _KERAS_H5):
            return Sniffed("hdf5", MODEL, "HDF5 with Keras model attributes")
        return Sniffed("hdf5", None, "HDF5")
    if head.startswith(b"\x93NUMPY"):
        return Sniffed("npy", DATA, "NumPy array")
    if head.startswith(b"PAR1"):
        return Sniffed("parquet", DATA, "Parquet")
    if head.startswith(b"ARROW1") or head.startswith(b"FEA1"):
        return Sniffed("arrow", DATA, "Arrow IPC / Feather")
    if head[:4] == b"\xff\xff\xff\xff" and len(head) > 8 and head[8:9] != b"\xff":
        return Sniffed("arrow-stream", DATA, "Arrow IPC stream")
    if head.startswith(b"SQLite format 3\0"):
        return Sniffed("sqlite", None, "SQLite database")
    if head[:4] == b"TFL3" or head[4:8] == b"TFL3":
        return Sniffed("tflite", MODEL, "TFLite flatbuffer")
    if _is_onnx(head):
        return Sniffed("onnx", MODEL, "ONNX protobuf")
    if len(head) < HEAD_BYTES and head.endswith(_TF_TABLE_MAGIC):
        return Sniffed("tf-index", MODEL, "TensorFlow checkpoint index")
    for magic, name in _IMAGES:
        if head.startswith(magic):
            return Sniffed(name, DATA, "image")
    if head[:4] == b"RIFF" and head[8:12] in (b"WEBP", b"WAVE", b"AVI "):
        return Sniffed(head[8:12].decode().strip().lower(), DATA, "media")
    for magic, name in _AUDIO:
        if head.startswith(magic):
            return Sniffed(name, DATA, "audio")
    if is_tar(head):
        return _archive("tar", tar_names_from_head(head))
    for magic, name in _COMPRESSED:
        if head.startswith(magic):
            return Sniffed(name, None, f"{name}-compressed")
    return None


def _is_safetensors(head: bytes) -> bool:
    if len(head) < 10:
        return False
    (length,) = struct.unpack_from("<Q", head)
    return 2 <= length <= 100 * 2**20 and head[8:9] == b"{" and (
        b'"dtype"' in head[8:8 + length] or b'"__metadata__"' in head[8:8 + length])


def _is_onnx(head: bytes) -> bool:
    """ModelProto: field 1 (ir_version, a small varint), then a producer name or a graph;
    the names of ONNX's exporters appear in the first bytes."""
    if len(head) < 8 or head[0] != 0x08 or not 1 <= head[1] <= 20:
        return False
    return head[2] in (0x12, 0x1a, 0x22, 0x3a, 0x42) and any(
        producer in head[:256] for producer in (b"pytorch", b"tf2onnx", b"skl2onnx", b"onnx",
                                                b"keras2onnx", b"paddle"))


# ---------------------------------------------------------------------------------- zips
_WEIGHT_SUFFIXES = (".pth", ".pt", ".bin", ".safetensors", ".h5", ".ckpt", ".onnx", ".pkl",
                    ".msgpack", ".joblib", ".weights.h5", ".pdparams")
_RECORD_SUFFIXES = (".json", ".jsonl", ".log", ".txt", ".csv", ".tsv", ".yaml", ".yml")
_MEDIA_SUFFIXES = (".jpg", ".jpeg", ".png", ".wav", ".flac", ".mp3", ".webp", ".txt", ".cls",
                   ".json")


def _zip(head: bytes, tail: bytes) -> Sniffed | None:
    if head[:4] != b"PK\x03\x04" and head[:4] != b"PK\x05\x06":
        return None
    names = zip_names_from_head(head)
    more = zip_names_from_tail(tail) if tail else []
    return _archive("zip", list(dict.fromkeys(names + more)))


def _archive_holds(names: list[str]) -> list[str]:
    """What the member names say (model, record, data, npz), most telling first."""
    if not names:
        return []
    lowered = [n.lower() for n in names]
    leaves = [n.rsplit("/", 1)[-1] for n in lowered]
    said = []
    if any(n.endswith("/data.pkl") or n == "data.pkl" for n in lowered):
        said.append("torch")
    if all(n.endswith(".npy") for n in leaves if n):
        said.append("npz")
    if any(n.endswith(_WEIGHT_SUFFIXES) and (says_model(n) or n.endswith(_WEIGHT_SUFFIXES[:6]))
           for n in leaves):
        said.append(MODEL)
    if any(n.endswith(_RECORD_SUFFIXES) and says_record(n) for n in leaves):
        said.append(RECORD)
    if sum(n.endswith(_MEDIA_SUFFIXES) for n in leaves) >= max(2, len(leaves) // 2):
        said.append(DATA)
    return said


def _archive(kind: str, names: list[str]) -> Sniffed:
    said = _archive_holds(names)
    shown = ", ".join(names[:3]) + ("…" if len(names) > 3 else "")
    if "torch" in said:
        return Sniffed("torch-zip", MODEL, "torch.save archive")
    if "npz" in said:
        return Sniffed("npz", _npz_holds(names), f"NumPy .npz of {shown}")
    for holds in (MODEL, RECORD, DATA):
        if holds in said:
            return Sniffed(kind, holds, f"{kind} of {shown}")
    return Sniffed(kind, None, f"{kind} of {shown}" if names else kind)


def _npz_holds(names: list[str]) -> str:
    """Arrays named like weights make a model, like metrics a record; others are data."""
    stems = [n.rsplit("/", 1)[-1].removesuffix(".npy") for n in names]
    if any(says_model(n) or n in ("W", "b") for n in names) or \
            all(s in ("W", "b", "gamma", "beta") for s in stems):
        return MODEL
    if stems and sum(metric_like(s) or says_record(s) for s in stems) * 2 >= len(stems):
        return RECORD
    return DATA


# ------------------------------------------------------------------------------- pickles
#: Top-level packages whose classes in a pickle mean a trained model or training state.
_ML_PACKAGES = frozenset({
    "torch", "sklearn", "xgboost", "lightgbm", "catboost", "keras", "tensorflow", "jax",
    "flax", "optax", "stable_baselines3", "sb3_contrib", "fastai", "transformers", "timm",
    "lightning", "pytorch_lightning", "gensim", "skorch", "statsmodels", "prophet", "joblib",
    "tabnet", "pytorch_tabnet", "autogluon", "river", "spacy", "thinc", "gymnasium", "gym",
})
_STRING_OPS = frozenset({"SHORT_BINUNICODE", "BINUNICODE", "UNICODE", "BINUNICODE8",
                         "SHORT_BINSTRING", "BINSTRING", "STRING"})
_MAX_OPS = 4000


def _pickle(head: bytes, tail: bytes) -> Sniffed | None:
    if len(head) < 2 or head[0] != 0x80 or not 2 <= head[1] <= 5:
        return None
    names = _pickled_globals(head)
    modules = {module for module, _ in names}
    ml = sorted({m.split(".", 1)[0] for m in modules} & _ML_PACKAGES)
    if ml:
        return Sniffed("pickle", MODEL, f"pickle of {ml[0]} objects")
    # A class named for what a fitted thing does (SDV's CTGANSynthesizer, a
    # ForestClassifier of a library nobody listed): a trained model, whoever wrote it.
    fitted = sorted(f"{module}.{name}" for module, name in names if says_model(name))
    if fitted:
        return Sniffed("pickle", MODEL, f"pickle of a {fitted[0]}")
    if modules:
        return Sniffed("pickle", None, f"pickle of {sorted(modules)[0]} objects")
    return Sniffed("pickle", None, "pickle of plain values")


def _pickled_globals(head: bytes) -> set[tuple[str, str]]:
    """The (module, name) of each global a pickle names, as far as its first opcodes go in
    ``head`` (decoded by pickletools, which imports and calls nothing)."""
    names: set[tuple[str, str]] = set()
    strings: list[str] = []
    try:
        for count, (op, arg, _) in enumerate(pickletools.genops(head)):
            if count > _MAX_OPS:
                break
            if op.name == "GLOBAL" and isinstance(arg, str):
                module, _, name = arg.partition(" ")
                names.add((module, name))
            elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
                names.add((strings[-2], strings[-1]))
            elif op.name in _STRING_OPS and isinstance(arg, str | bytes):
                strings.append(arg if isinstance(arg, str) else arg.decode("latin-1"))
                del strings[:-2]
    except (ValueError, EOFError, UnicodeDecodeError, struct.error, OverflowError,
            MemoryError, RecursionError):
        pass  # the head ends mid-pickle, or it is no pickle past its first bytes
    return names


# ---------------------------------------------------------------------------------- text
_MODEL_KEYS = frozenset({"learner", "trees", "tree_info", "booster", "state_dict",
                         "model_state_dict", "model_config", "coef_", "weights", "layers",
                         "feature_importances", "oblivious_trees"})


def _text(head: bytes, tail: bytes) -> Sniffed | None:
    if head.startswith(b"{L") and b"learner" in head[:64]:
        return Sniffed("ubjson", MODEL, "UBJSON booster")
    text = text_of(head)
    if text is None:
        return None
    stripped = text.lstrip()
    if stripped[:15].lower().startswith(("<!doctype html", "<html")):
        found = _PROFILE_VOCABULARY.search(text)
        if found:
            return Sniffed("html", TRACE, f"HTML profile viewer ({found.group(0)})")
        return Sniffed("html", None, "HTML document")
    if stripped[:1] == "<" and _NETWORK_XML.search(stripped[:_TRACE_HEAD]):
        return Sniffed("xml", MODEL, "network description (an IR's graph, weights beside)")
    if stripped[:1] in ("{", "[") and _TRACE_KEYS.search(stripped[:_TRACE_HEAD]):
        return Sniffed("json", TRACE, "trace events (Chrome trace format)")
    keys = json_top_keys(text)
    if keys is not None:
        return _json_holds(keys)
    columns = table_columns(text)
    if columns is not None:
        metrics = [c for c in columns if metric_like(c)]
        # A table that counts a run's progress in its first column, or is mostly metrics.
        if metrics and (metrics[0] == columns[0] and _counts_progress(columns[0])
                        or len(metrics) * 2 >= len(columns)):
            return Sniffed("table", RECORD, f"a table of {', '.join(metrics[:3])}")
        return Sniffed("table", DATA, f"a table of {', '.join(columns[:3])}")
    return Sniffed("text", None, "text")


#: A page that shows a program's profile: profilers' viewers say so in their markup or
#: scripts (flame graphs, call trees, trace events, the viewers they embed).
#: An XML whose root is a network of layers (OpenVINO's IR, ``<net name=... version="11">``):
#: a model's graph, its weights in the binary of the same stem.
_NETWORK_XML = re.compile(r"<net\s[^>]*\bversion=")
_PROFILE_VOCABULARY = re.compile(
    r"(?i)flame ?graph|flamechart|call ?tree|traceEvents|speedscope|perfetto|trace ?viewer"
    r"|\bprofiler?\b|\bprofiling\b|\bsampling profile")
#: The Chrome trace-event format every tracer writes (torch.profiler, JAX, tracers of
#: Python): an object with ``traceEvents``, or a list of events with phase and timestamp.
_TRACE_KEYS = re.compile(r'^\{\s*"(traceEvents|displayTimeUnit)"|^\[\s*\{\s*"(name|ph|pid)"'
                         r'[^}]{0,200}"ph"\s*:\s*"[A-Za-z]"')
_TRACE_HEAD = 4096


def _counts_progress(column: str) -> bool:
    """A column that counts a run's progress (``iter``, ``epoch``, ``time/total_timesteps``)."""
    return not PROGRESS_WORDS.isdisjoint(words_of(column.rsplit("/", 1)[-1]))


def _json_holds(keys: list[str]) -> Sniffed:
    lowered = {k.lower() for k in keys}
    if lowered & _MODEL_KEYS:
        return Sniffed("json", MODEL, f"JSON model ({sorted(lowered & _MODEL_KEYS)[0]})")
    run_words = {w for k in keys for w in words_of(k)}
    named_run = sorted(run_words & RUN_ID_WORDS)
    if len(named_run) >= 2 and not run_words.isdisjoint(WHEN_WORDS):
        # It names the run it belongs to and when: a pipeline's or tuner's bookkeeping
        # (Metaflow's per-artifact metadata, a trial's result line).
        return Sniffed("json", RECORD, f"JSON record of a {named_run[0]} "
                       f"({', '.join(keys[:3])})")
    # Scores or a split's results make a record; counters (epoch, batch_size) only join them.
    scored = [k for k in keys if direction(k) is not None or says_record(k)
              or not {"train", "valid", "validation", "test"}.isdisjoint(words_of(k))]
    metrics = scored + [k for k in keys if k not in scored and metric_like(k)]
    if scored and len(metrics) * 3 >= len(keys):
        return Sniffed("json", RECORD, f"JSON record of {', '.join(metrics[:3])}")
    return Sniffed("json", None, "JSON")
