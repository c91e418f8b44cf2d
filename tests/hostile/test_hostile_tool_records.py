"""The readers of timm's and HF Trainer's records, of TorchScript archives and of Optuna
databases answer "nothing" for any bytes, never raise, and never run what a record names:
arbitrary bytes, and real records (tests/fixtures) mutated and cut short."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layouts_tools import HF, HF_RUN, TIMM
from layouts_trackers import OPTUNA_DB

from mlspace.classify.readers.headers import is_tracker_db
from mlspace.classify.readers.hf_training_args import TrainerRetention, read_training_args
from mlspace.classify.readers.timm_records import (
    TimmArgs,
    TimmCheckpoint,
    read_timm_args,
    read_timm_checkpoint,
    read_timm_summary,
)
from mlspace.classify.readers.torchscript import is_torchscript

_TIMM = (TIMM / "top1" / "last.pth.tar").read_bytes()
_ARGS = (HF / HF_RUN / "checkpoint-24" / "training_args.bin").read_bytes()
_SCRIPTED = (TIMM.parent / "exports" / "model_scripted.pt").read_bytes()

#: Each reader, and what it may answer besides None.
READERS: dict[str, tuple[Callable[[str], object], tuple[type, ...]]] = {
    "timm checkpoint": (read_timm_checkpoint, (TimmCheckpoint,)),
    "training_args.bin": (read_training_args, (TrainerRetention,)),
    "timm args.yaml": (read_timm_args, (TimmArgs,)),
    "timm summary.csv": (lambda path: read_timm_summary(path, "eval_top1") or None, (dict,)),
    "TorchScript": (is_torchscript, (bool,)),
    "Optuna db": (is_tracker_db, (bool,)),
}
BYTES = st.one_of(st.binary(max_size=2048),
                  st.binary(max_size=2048).map(lambda b: b"PK\x03\x04" + b),
                  st.binary(max_size=512).map(lambda b: b"SQLite format 3\0" + b),
                  st.text(max_size=512).map(lambda t: t.encode("utf-8", "surrogatepass")))


def _answers(folder: Path, data: bytes) -> None:
    path = folder / "record"
    path.write_bytes(data)
    for name, (read, kinds) in READERS.items():
        found = read(str(path))
        assert found is None or isinstance(found, kinds), name


@settings(max_examples=150, deadline=None)
@given(data=BYTES)
def test_arbitrary_bytes(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    _answers(tmp_path_factory.mktemp("fuzz"), data)


@settings(max_examples=150, deadline=None)
@given(base=st.sampled_from([_TIMM, _ARGS, _SCRIPTED, OPTUNA_DB[:8192]]),
       edits=st.lists(st.tuples(st.integers(min_value=0, max_value=10**6),
                                st.integers(min_value=0, max_value=255)), max_size=8),
       cut=st.one_of(st.none(), st.integers(min_value=0, max_value=10**6)))
def test_mutated_real_records(tmp_path_factory: pytest.TempPathFactory, base: bytes,
                              edits: list[tuple[int, int]], cut: int | None) -> None:
    data = bytearray(base)
    for at, value in edits:
        data[at % len(data)] = value
    _answers(tmp_path_factory.mktemp("mut"), bytes(data[:cut]))


def test_the_real_records_read(tmp_path: Path) -> None:
    assert read_timm_checkpoint(str(TIMM / "top1" / "last.pth.tar")) is not None
    assert read_training_args(str(HF / HF_RUN / "training_args.bin")) is not None
    assert is_torchscript(str(TIMM.parent / "exports" / "model_scripted.pt"))
    (tmp_path / "study.db").write_bytes(OPTUNA_DB)
    assert is_tracker_db(str(tmp_path / "study.db"))
