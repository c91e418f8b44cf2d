"""Every record reader, fed arbitrary bytes and arbitrary JSON (huge integers, inf and NaN,
text, lists and objects nested anyhow): each returns a value or None, never raises, and what
it returns holds only finite numbers."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hostile_helpers import finite, sane_record
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from layouts import Link, inventory_of, make

from mlspace.advise import advise
from mlspace.classify.readers.headers import is_core_dump
from mlspace.classify.readers.hf_hub import (
    MAX_REF_BYTES,
    DetachedRevision,
    detached_revisions,
)
from mlspace.classify.readers.records import (
    read_best_k_models,
    read_pointer,
    read_tf_checkpoint_state,
    read_trainer_state,
)
from mlspace.report.story import inventory_story

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

#: Keys the readers look for, so that arbitrary values land where they are used.
KEYS = st.sampled_from(["epoch", "global_step", "best_metric", "best_model_checkpoint",
                        "log_history", "step", "eval_loss", "eval_accuracy", "loss",
                        "eval_runtime"])
NUMBERS = (st.integers(min_value=-(10**400), max_value=10**400)
           | st.floats(allow_nan=True, allow_infinity=True)
           | st.sampled_from([10**400, -(10**309), 2**1024, 1e308, 0, -1]))
SCALARS = st.none() | st.booleans() | NUMBERS | st.text(max_size=12)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS | st.text(max_size=6),
                                                               inner, max_size=5),
    max_leaves=30)
TRAINER_LIKE = st.fixed_dictionaries({}, optional={
    "epoch": JSON, "global_step": JSON, "best_metric": JSON,
    "best_model_checkpoint": JSON | st.just("outputs/run/checkpoint-2"),
    "log_history": st.lists(st.dictionaries(KEYS, JSON, max_size=5), max_size=5) | JSON,
})
#: Raw record text: JSON as Python writes it (NaN, Infinity), or any bytes at all.
CONTENT = (JSON | TRAINER_LIKE).map(lambda doc: json.dumps(doc).encode()) | st.binary(
    max_size=400)
#: Text shaped like the line records (pointers, TF state, best_k_models.yaml).
LINE_VALUES = st.sampled_from(["1e999", "-inf", "nan", "0.25", "1_000", "9" * 400, "²", "",
                               '"ckpt-2"', "'a.ckpt'"]) | st.text(max_size=10)
LINES = st.lists(st.tuples(st.sampled_from(["model_checkpoint_path", "epoch=1.ckpt", "", "/x/"])
                           | st.text(max_size=10), st.sampled_from([": ", ":", " "]),
                           LINE_VALUES), max_size=6).map(
    lambda rows: "\n".join(f"{k}{sep}{v}" for k, sep, v in rows).encode("utf-8",
                                                                       "surrogateescape"))


@contextmanager
def _file(content: bytes, name: str = "record") -> Iterator[str]:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.write(content)
        yield path


@FUZZ
@given(CONTENT)
def test_read_trainer_state(content: bytes) -> None:
    """Any bytes / JSON as trainer_state.json: a record of finite numbers, or None."""
    with _file(content) as path:
        state = read_trainer_state(path)
    if state is not None:
        sane_record(state)


@FUZZ
@given(CONTENT | LINES)
def test_the_line_readers(content: bytes) -> None:
    """Any bytes / JSON / lines as a pointer, a TF checkpoint state, best_k_models.yaml or a
    core header: a value of the promised type or None."""
    with _file(content) as path:
        pointer = read_pointer(path)
        tf_state = read_tf_checkpoint_state(path)
        best_k = read_best_k_models(path)
        dumped = is_core_dump(path)
    assert pointer is None or (isinstance(pointer, str) and pointer)
    assert tf_state is None or isinstance(tf_state, str)
    assert best_k is None or all(isinstance(k, str) and type(v) is float and finite(v)
                                 for k, v in best_k.items())
    assert isinstance(dumped, bool)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CONTENT | LINES)
def test_hub_refs(content: bytes) -> None:
    """Any bytes as a hub cache's refs/main: a list of detached revisions, never an error."""
    with tempfile.TemporaryDirectory() as folder:
        repo = Path(folder) / "models--org--name"
        make(repo, {"blobs/b": 10, "refs/main": content,
                    "snapshots/aaaa/f": Link("../../blobs/b")})
        found = detached_revisions(str(repo))
        named = content.decode("utf-8", "replace").strip()
        # an empty ref, or one too large to read, may name anything: nothing is detached;
        # any other names one revision, and "aaaa", the only snapshot, is detached (with its
        # blob) unless that one is it
        unknown = not named or len(content) > MAX_REF_BYTES
        expected = [] if unknown or named == "aaaa" else [
            DetachedRevision(str(repo), "aaaa", str(repo / "snapshots" / "aaaa"),
                             (str(repo / "blobs" / "b"),))]
        assert found == expected, named


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CONTENT, CONTENT | LINES)
@example(state=b'{"log_history": [{"step": 2, "epoch": NaN, "eval_loss": 1e999}]}',
         pointer="\u00b2".encode())  # superscript two: isdigit() but not int()
@example(state=b'{"log_history": [{"step": 2, "epoch": 1e999}], "best_metric": 1' + b"0" * 400
         + b"}", pointer=b"9" * 5000)
def test_classify_and_advise_with_arbitrary_records(state: bytes, pointer: bytes) -> None:
    """Arbitrary content in an HF run's trainer_state.json files and in the pointer files
    of DeepSpeed, Megatron, TensorFlow and Lightning: classifying and advising never fail."""
    with tempfile.TemporaryDirectory() as folder:
        root = make(Path(folder), {
            "hf/checkpoint-1/model.safetensors": 10, "hf/checkpoint-1/trainer_state.json": state,
            "hf/checkpoint-2/model.safetensors": 10, "hf/checkpoint-2/trainer_state.json": state,
            "ds/global_step1/mp_rank_00_model_states.pt": 10, "ds/latest": pointer,
            "mg/iter_0000001/mp_rank_00/model_optim_rng.pt": 10,
            "mg/latest_checkpointed_iteration.txt": pointer,
            "tf/ckpt-1.index": 10, "tf/ckpt-1.data-00000-of-00001": 10, "tf/checkpoint": pointer,
            "pl/checkpoints/epoch=1-step=10-val_loss=0.5.ckpt": 10,
            "pl/checkpoints/epoch=2-step=20-val_loss=0.4.ckpt": 10,
            "pl/checkpoints/best_k_models.yaml": pointer,
        })
        inv = inventory_of(root)
        advise(inv)
        assert inventory_story(inv)
