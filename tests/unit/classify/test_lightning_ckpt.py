"""Reading Lightning's ModelCheckpoint state out of a ``.ckpt`` without unpickling it.

The checkpoints under tests/fixtures/lightning are real ones, written by Lightning (see
make_fixtures.py there for how); expected.json beside them is what ``torch.load`` says they
hold, so these tests need neither torch nor Lightning. Where both are installed, a live test
trains fresh runs and compares again, and checks expected.json against torch.load.

The hostile half feeds the reader arbitrary bytes, mutated real checkpoints, pickles whose
REDUCE would run ``os.system``/``exec``, and bombs (huge declared sizes, deep nesting, memo
reuse): it must answer None or a state, promptly, without importing or running anything.
"""

from __future__ import annotations

import ast
import builtins
import importlib.abc
import importlib.util
import io
import json
import math
import os
import pickle
import struct
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import ModuleType

import pytest
from hostile_helpers import answers_quickly
from hypothesis import given, settings
from hypothesis import strategies as st

from mlspace.classify.readers import inert_pickle, lightning_ckpt, torch_archive
from mlspace.classify.readers.inert_pickle import PICKLE_ERRORS, Machine
from mlspace.classify.readers.lightning_ckpt import (
    LightningCheckpointFile,
    LightningCheckpointState,
    read_checkpoint_file,
    read_folder_state,
    read_model_checkpoint_state,
)
from mlspace.classify.readers.recorded_paths import match_recorded_path

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "lightning"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
KEY_MIN = ("ModelCheckpoint{'monitor': 'val_loss', 'mode': 'min', 'every_n_train_steps': 0, "
           "'every_n_epochs': 1, 'train_time_interval': None}")
HAVE_LIGHTNING = all(importlib.util.find_spec(name) is not None
                     for name in ("torch", "lightning"))


def _float(value: object) -> float | None:
    """expected.json spells inf/nan as strings (JSON has no literal for them)."""
    if isinstance(value, str):
        return float(value)
    return None if value is None else float(value)  # type: ignore[arg-type]


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return a == b or (math.isnan(a) and math.isnan(b))


def assert_matches_lightning(found: LightningCheckpointFile, want: dict) -> None:
    """The reader's view of a file equals what torch.load + Lightning's state say."""
    if want.get("epoch") is not None:
        assert (found.epoch, found.global_step) == (want["epoch"], want["global_step"])
    by_key = {state.state_key: state for state in found.states}
    assert set(by_key) == set(want["callbacks"])
    for key, expected in want["callbacks"].items():
        state = by_key[key]
        assert state.best_model_path == (expected["best_model_path"] or None)
        assert _same(state.best_model_score, _float(expected["best_model_score"]))
        if "best_k_models" not in expected:  # Lightning 0.9 top-level record
            continue
        assert state.monitor == expected["monitor"]
        assert state.mode == expected["mode"]
        assert [path for path, _ in state.best_k_models] == list(expected["best_k_models"])
        for (_, score), want_score in zip(state.best_k_models,
                                          expected["best_k_models"].values(), strict=True):
            assert _same(score, _float(want_score))
        assert state.kth_best_model_path == (expected["kth_best_model_path"] or None)
        assert _same(state.kth_value, _float(expected["kth_value"]))
        assert _same(state.current_score, _float(expected["current_score"]))
        assert state.last_model_path == (expected["last_model_path"] or None)
        assert state.dirpath == (expected["dirpath"] or None)


# ---------------------------------------------------------------------------------------------
# Real checkpoints


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_every_fixture_reads_as_lightning_recorded_it(rel: str) -> None:
    found = read_checkpoint_file(str(FIXTURES / rel))
    assert found is not None
    assert_matches_lightning(found, EXPECTED[rel])


def test_min_run_best_latest_and_top_k() -> None:
    state = read_model_checkpoint_state(str(FIXTURES / "min" / "last.ckpt"))
    assert state is not None
    assert (state.state_key, state.monitor, state.mode) == (KEY_MIN, "val_loss", "min")
    assert os.path.basename(state.best_model_path or "") == "epoch=3-step=8.ckpt"
    assert state.best_model_score == pytest.approx(0.3)
    assert [(os.path.basename(p), round(s or 0, 6)) for p, s in state.best_k_models] == [
        ("epoch=3-step=8.ckpt", 0.3), ("epoch=5-step=12.ckpt", 0.4)]
    assert os.path.basename(state.kth_best_model_path or "") == "epoch=5-step=12.ckpt"
    assert os.path.basename(state.last_model_path or "") == "last.ckpt"
    assert state.dirpath is not None and state.dirpath.endswith(
        "lightning_logs/version_0/checkpoints")


def test_max_run_on_val_acc() -> None:
    state = read_model_checkpoint_state(str(FIXTURES / "max" / "last.ckpt"))
    assert state is not None
    assert (state.monitor, state.mode) == ("val_acc", "max")
    assert os.path.basename(state.best_model_path or "") == "epoch=3-step=8.ckpt"
    assert state.best_model_score == pytest.approx(0.8)
    assert state.kth_value == pytest.approx(0.7)
    assert state.best_model_score is not None and state.kth_value is not None
    assert state.best_model_score > state.kth_value


def test_an_earlier_top_k_file_records_the_state_of_its_time() -> None:
    state = read_model_checkpoint_state(str(FIXTURES / "min" / "epoch=3-step=8.ckpt"))
    assert state is not None
    assert [os.path.basename(p) for p, _ in state.best_k_models] == [
        "epoch=1-step=4.ckpt", "epoch=3-step=8.ckpt"]
    assert state.kth_value == pytest.approx(0.5)


def test_score_dtypes_views_floats_and_the_legacy_format() -> None:
    exact = {"float64": 0.30000001192092896, "float": 0.30000001192092896,
             "view": 0.30000001192092896, "legacy": 0.30000001192092896,
             "float16": 0.300048828125, "bfloat16": 0.30078125, "int64": 300.0}
    for name, best in exact.items():
        state = read_model_checkpoint_state(str(FIXTURES / "variants" / f"{name}.ckpt"))
        assert state is not None, name
        assert (state.best_model_score, state.mode) == (best, "min"), name


def test_old_lightning_keys() -> None:
    # Lightning < 1.5 keyed the state by the class: no mode in the key, so it is inferred
    # from the scores (the best, 0.3, is below the k-th, 0.4).
    state = read_model_checkpoint_state(str(FIXTURES / "variants" / "class_key.ckpt"))
    assert state is not None
    assert (state.state_key, state.monitor, state.mode) == ("ModelCheckpoint", "val_loss", "min")
    old = read_model_checkpoint_state(str(FIXTURES / "variants" / "pl09.ckpt"))
    assert old is not None
    assert os.path.basename(old.best_model_path or "") == "epoch=3-step=8.ckpt"
    assert old.best_model_score == pytest.approx(0.3) and old.mode is None


def test_a_plain_torch_save_has_no_state() -> None:
    found = read_checkpoint_file(str(FIXTURES / "variants" / "no_callbacks.ckpt"))
    assert found is not None and found.states == () and found.epoch is None
    assert read_model_checkpoint_state(str(FIXTURES / "variants" / "no_callbacks.ckpt")) is None


def test_two_callbacks_are_both_returned() -> None:
    found = read_checkpoint_file(str(FIXTURES / "two_callbacks" / "last.ckpt"))
    assert found is not None
    assert [(s.monitor, s.mode) for s in found.states] == [("val_loss", "min"), ("val_acc", "max")]


def _listing(folder: Path) -> list[str]:
    return sorted(str(path) for path in folder.iterdir())


def test_folder_state_comes_from_last_ckpt() -> None:
    chosen = read_folder_state(_listing(FIXTURES / "min"))
    assert chosen is not None
    assert os.path.basename(chosen.source.path) == "last.ckpt"
    assert chosen.state.monitor == "val_loss" and chosen.source.global_step == 12


def test_folder_state_of_two_callbacks_is_the_one_naming_the_files_here() -> None:
    # last.ckpt holds both states; the val_acc one names acc-epoch=1.ckpt, long deleted
    # (save_last refreshes last.ckpt only when its own callback saves), the val_loss one
    # names loss-epoch=3.ckpt and last.ckpt, both here.
    chosen = read_folder_state(_listing(FIXTURES / "two_callbacks"))
    assert chosen is not None and chosen.state.monitor == "val_loss"


def test_folder_state_skips_what_cannot_be_read(tmp_path: Path) -> None:
    for name in ("epoch=3-step=8.ckpt", "epoch=5-step=12.ckpt"):
        (tmp_path / name).write_bytes((FIXTURES / "min" / name).read_bytes())
    os.mkfifo(tmp_path / "last.ckpt")  # would block a reader that opened it
    (tmp_path / "broken.ckpt").write_bytes(b"PK\x03\x04 not really")
    os.utime(tmp_path / "broken.ckpt", (time.time() + 60,) * 2)  # the newest
    os.utime(tmp_path / "epoch=3-step=8.ckpt", (time.time() - 60,) * 2)
    chosen = answers_quickly(read_folder_state, _listing(tmp_path))
    assert chosen is not None
    assert os.path.basename(chosen.source.path) == "epoch=5-step=12.ckpt"
    assert read_folder_state([str(tmp_path / "broken.ckpt")]) is None
    assert read_folder_state([]) is None


@pytest.mark.parametrize(("name", "is_last"), [
    ("last.ckpt", True), ("last-v1.ckpt", True), ("LAST.ckpt", True), ("epoch=3-last.ckpt", True),
    ("lastly.ckpt", False), ("epoch=3.ckpt", False), ("last.ckpt.tmp", False)])
def test_last_checkpoint_names(name: str, is_last: bool) -> None:
    assert (lightning_ckpt._LAST_NAME.fullmatch(name) is not None) == is_last


def test_recorded_paths_match_the_files_here_by_suffix() -> None:
    state = read_model_checkpoint_state(str(FIXTURES / "min" / "last.ckpt"))
    assert state is not None
    here = _listing(FIXTURES / "min")
    assert {os.path.basename(match_recorded_path(p, here) or "")
            for p in state.recorded_paths()} == {
        "epoch=3-step=8.ckpt", "epoch=5-step=12.ckpt", "last.ckpt"}
    assert [os.path.basename(f) for _, f in lightning_ckpt.iter_recorded_files(state, here)] == [
        "epoch=3-step=8.ckpt", "epoch=5-step=12.ckpt", "last.ckpt"]


def test_match_recorded_path_by_longest_suffix() -> None:
    here = ["/data/a/version_0/checkpoints/last.ckpt", "/data/a/version_1/checkpoints/last.ckpt",
            "/data/a/version_1/checkpoints/epoch=2.ckpt"]
    assert match_recorded_path("C:\\runs\\version_1\\checkpoints\\last.ckpt", here) == here[1]
    assert match_recorded_path("/home/u/x/version_0/checkpoints/last.ckpt", here) == here[0]
    assert match_recorded_path("./checkpoints/epoch=2.ckpt", here) == here[2]
    assert match_recorded_path("checkpoints/last.ckpt", here) is None  # a tie
    assert match_recorded_path("/elsewhere/epoch=9.ckpt", here) is None
    assert match_recorded_path("", here) is None


@pytest.mark.parametrize(("key_mode", "best", "kth", "top_k", "mode"), [
    (None, 0.3, 0.4, (), "min"),
    (None, 0.8, 0.7, (), "max"),
    ("max", 0.3, 0.4, (), "max"),  # the configured mode wins
    (None, None, math.inf, (), "min"),  # Lightning's initial kth_value for "min"
    (None, None, -math.inf, (), "max"),
    (None, 0.3, 0.3, (), None),  # top 1: best is the k-th
    (None, 0.3, 0.3, (("a", 0.3), ("b", 0.5)), "min"),
    (None, math.nan, 0.3, (), None),
])
def test_mode_inference(key_mode: str | None, best: float | None, kth: float | None,
                        top_k: tuple, mode: str | None) -> None:
    assert lightning_ckpt._mode(key_mode, best, kth, top_k) == mode


# ---------------------------------------------------------------------------------------------
# Live: fresh runs with the real tools, where they are installed


@pytest.mark.skipif(not HAVE_LIGHTNING, reason="torch and lightning are not installed (the "
                    "committed fixtures cover the reader; this re-checks with fresh runs)")
def test_fresh_lightning_runs_read_as_lightning_recorded_them(tmp_path: Path) -> None:
    script = FIXTURES / "make_fixtures.py"
    subprocess.run([sys.executable, str(script), str(tmp_path)], check=True,
                   capture_output=True, timeout=300)
    fresh = json.loads((tmp_path / "expected.json").read_text())
    assert set(fresh) == set(EXPECTED)
    for rel, want in fresh.items():
        found = read_checkpoint_file(str(tmp_path / rel))
        assert found is not None, rel
        assert_matches_lightning(found, want)
    chosen = read_folder_state(_listing(tmp_path / "max"))
    assert chosen is not None and (chosen.state.monitor, chosen.state.mode) == ("val_acc", "max")


@pytest.mark.skipif(not HAVE_LIGHTNING, reason="torch and lightning are not installed")
def test_committed_expected_json_is_what_torch_load_says() -> None:
    result = subprocess.run([sys.executable, str(FIXTURES / "make_fixtures.py"), "--check",
                             str(FIXTURES)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


# ---------------------------------------------------------------------------------------------
# Hostile input


class _ImportSpy(importlib.abc.MetaPathFinder):
    """Records every module an import statement looks for (and finds none itself)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        self.asked.append(fullname)


@contextmanager
def _no_imports() -> Iterator[None]:
    spy = _ImportSpy()
    before = set(sys.modules)
    sys.meta_path.insert(0, spy)
    try:
        yield
    finally:
        sys.meta_path.remove(spy)
    assert spy.asked == []
    assert set(sys.modules) - before == set()


def _torch_zip(data_pkl: bytes, storages: dict[str, bytes] | None = None,
               compression: int = zipfile.ZIP_STORED) -> bytes:
    """An archive laid out as torch.save lays it out, around any data.pkl."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as archive:
        archive.writestr("archive/data.pkl", data_pkl)
        archive.writestr("archive/byteorder", "little")
        for key, raw in (storages or {}).items():
            archive.writestr(f"archive/data/{key}", raw)
        archive.writestr("archive/version", "3\n")
    return out.getvalue()


def _read_bytes_as_ckpt(folder: Path, data: bytes) -> LightningCheckpointFile | None:
    path = folder / "x.ckpt"
    path.write_bytes(data)
    return read_checkpoint_file(str(path))


@pytest.fixture(scope="module")
def warmed_up() -> None:
    """Whatever the stdlib imports lazily on a first read (codecs for protocol 0 strings,
    decompressors) is imported before the checks that nothing is imported."""
    sample = ["\u00e9t\u00e9", b"x", 1.5, 2**70, {"a"}, frozenset({1}), ("t",)]
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        Machine().load(pickle.dumps(sample, protocol=protocol))
    Machine().load(b"S'a\\x00'\nS\"b\"\n0.")
    read_checkpoint_file(str(FIXTURES / "min" / "last.ckpt"))
    read_checkpoint_file(str(FIXTURES / "variants" / "legacy.ckpt"))
    for method in (zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        with zipfile.ZipFile(io.BytesIO(_torch_zip(b"N.", compression=method))) as z:
            z.read("archive/data.pkl")


class _Call:
    """Pickles as ``func(*args)``: what a malicious checkpoint's REDUCE would run."""

    def __init__(self, func: object, *args: object) -> None:
        self.func, self.args = func, args

    def __reduce__(self) -> tuple:
        return self.func, self.args


def _payloads(marker: Path) -> list[tuple[str, object]]:
    command = f"touch {marker}"
    code = f"open({str(marker)!r}, 'w').close()"
    return [
        ("os.system", _Call(os.system, command)),
        ("posix.system", _Call(os.system, command)),  # os.system pickles as posix.system
        ("builtins.exec", _Call(builtins.exec, code)),
        ("builtins.eval", _Call(builtins.eval, code)),
        ("subprocess.call", _Call(subprocess.call, ["touch", str(marker)])),
        ("importlib.import_module", _Call(importlib.import_module, "antigravity")),
    ]


def _hand_made(marker: Path) -> list[bytes]:
    """Pickles no pickler writes: INST, OBJ, a module nobody has, BUILD with a setstate."""
    cmd = f"touch {marker}".encode()
    return [
        b"(S'" + cmd + b"'\nios\nsystem\n.",  # protocol 0 INST
        b"(cos\nsystem\nS'" + cmd + b"'\no.",  # OBJ
        b"cmlspace_no_such_module_xyz\nrun\n(S'x'\ntR.",  # would import a module
        b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x8c\x06system\x93\x8c\x01x"
        b"\x85R.",  # STACK_GLOBAL, with a FRAME
        b"cos\nsystem\n)R}S'x'\nsb.",  # BUILD with a dict state
        b"(cbuiltins\nexec\nS'open(\"" + str(marker).encode() + b"\", \"w\")'\ntR.",
        b"\x80\x02cos\nsystem\nq\x00X\x01\x00\x00\x00xq\x01\x85q\x02Q.",  # persistent id
    ]


def _as_checkpoint(payload: object) -> dict:
    """A Lightning-shaped dict with ``payload`` wherever a value is read."""
    return {"epoch": payload, "callbacks": {KEY_MIN: {
        "monitor": payload, "best_model_path": payload, "best_model_score": payload,
        "best_k_models": {"a.ckpt": payload}, "kth_value": payload, "dirpath": "/x",
        "last_model_path": "/x/last.ckpt"}}, "hyper_parameters": payload}


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
@pytest.mark.usefixtures("warmed_up")
def test_malicious_pickles_run_nothing_and_import_nothing(tmp_path: Path,
                                                          protocol: int) -> None:
    marker = tmp_path / "pwned"
    blobs = []
    for _name, payload in _payloads(marker):
        blobs.append(pickle.dumps(payload, protocol=protocol))
        blobs.append(pickle.dumps(_as_checkpoint(payload), protocol=protocol))
    blobs += _hand_made(marker)
    with _no_imports():
        for blob in blobs:
            for data in (_torch_zip(blob), blob):  # in an archive, and as a legacy pickle
                found = answers_quickly(_read_bytes_as_ckpt, tmp_path, data)
                assert found is None or isinstance(found, LightningCheckpointFile)
    assert not marker.exists()
    assert "antigravity" not in sys.modules and "mlspace_no_such_module_xyz" not in sys.modules


def test_a_malicious_checkpoint_still_gives_its_plain_values(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    ckpt = _as_checkpoint(_Call(os.system, f"touch {marker}"))
    ckpt["callbacks"][KEY_MIN]["monitor"] = "val_loss"
    found = _read_bytes_as_ckpt(tmp_path, _torch_zip(pickle.dumps(ckpt, protocol=2)))
    assert found is not None and not marker.exists()
    (state,) = found.states
    assert (state.monitor, state.mode, state.best_model_path, state.best_model_score) == (
        "val_loss", "min", None, None)
    assert state.best_k_models == (("a.ckpt", None),)


_REAL = (FIXTURES / "min" / "last.ckpt").read_bytes()
_LEGACY = (FIXTURES / "variants" / "legacy.ckpt").read_bytes()


@settings(max_examples=150, deadline=None)
@given(data=st.one_of(st.binary(max_size=2048),
                      st.binary(max_size=2048).map(lambda b: b"PK\x03\x04" + b),
                      st.binary(max_size=2048).map(lambda b: b"\x80\x02" + b)))
def test_arbitrary_bytes(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    found = _read_bytes_as_ckpt(tmp_path_factory.mktemp("fuzz"), data)
    assert found is None or isinstance(found, LightningCheckpointFile)


@settings(max_examples=200, deadline=None)
@given(base=st.sampled_from([_REAL, _LEGACY]),
       edits=st.lists(st.tuples(st.integers(min_value=0, max_value=len(_REAL) - 1),
                                st.integers(min_value=0, max_value=255)),
                      min_size=1, max_size=8),
       cut=st.one_of(st.none(), st.integers(min_value=0, max_value=len(_REAL))))
def test_mutated_real_checkpoints(tmp_path_factory: pytest.TempPathFactory, base: bytes,
                                  edits: list[tuple[int, int]], cut: int | None) -> None:
    data = bytearray(base)
    for at, value in edits:
        data[at % len(data)] = value
    found = _read_bytes_as_ckpt(tmp_path_factory.mktemp("mut"), bytes(data[:cut]))
    assert found is None or isinstance(found, LightningCheckpointFile)
    for state in found.states if found else ():
        assert isinstance(state, LightningCheckpointState)


@settings(max_examples=200, deadline=None)
@given(edits=st.lists(st.tuples(st.integers(min_value=0, max_value=10**6),
                                st.integers(min_value=0, max_value=255)),
                      min_size=1, max_size=6))
def test_mutated_data_pkl_inside_a_valid_archive(tmp_path_factory: pytest.TempPathFactory,
                                                 edits: list[tuple[int, int]]) -> None:
    # Mutating the archive mostly breaks its CRCs; this mutates the pickle and re-zips it, so
    # the stack machine sees wrong opcodes, memo indexes and persistent ids.
    with zipfile.ZipFile(FIXTURES / "min" / "last.ckpt") as archive:
        pkl = bytearray(archive.read("archive/data.pkl"))
        storages = {name.rsplit("/", 1)[1]: archive.read(name) for name in archive.namelist()
                    if "/data/" in name}
    for at, value in edits:
        pkl[at % len(pkl)] = value
    found = _read_bytes_as_ckpt(tmp_path_factory.mktemp("pkl"), _torch_zip(bytes(pkl), storages))
    assert found is None or isinstance(found, LightningCheckpointFile)


# Opcode soup: random sequences of real opcodes with plausible arguments.
_OPS = st.sampled_from([
    b"(", b")", b"]", b"}", b"t", b"l", b"d", b"a", b"e", b"s", b"u", b"R", b"b", b"0", b"1",
    b"2", b"N", b"\x88", b"\x89", b"\x85", b"\x86", b"\x87", b"\x8f", b"\x90", b"\x91", b"\x93",
    b"\x94", b"Q", b"\x81", b"\x92", b"o", b"K\x01", b"K\xff", b"J\xff\xff\xff\xff",
    b"h\x00", b"h\x01", b"q\x00", b"q\x01", b"X\x03\x00\x00\x00abc", b"C\x02hi",
    b"\x8c\x07storage", b"\x8c\x05torch", b"\x8c\x0cFloatStorage", b"\x8c\x010",
    b"ctorch._utils\n_rebuild_tensor_v2\n", b"ctorch\nFloatStorage\n",
    b"ccollections\nOrderedDict\n", b"cos\nsystem\n", b"G?\xd3333333",
    b"\x8a\x01\x05", b"\x95\x01\x00\x00\x00\x00\x00\x00\x00",
])


@settings(max_examples=300, deadline=None)
@given(ops=st.lists(_OPS, max_size=60), protocol=st.integers(min_value=0, max_value=5))
def test_opcode_soup(tmp_path_factory: pytest.TempPathFactory, ops: list[bytes],
                     protocol: int) -> None:
    blob = bytes([0x80, protocol]) + b"".join(ops) + b"."
    machine = Machine()
    with suppress(*PICKLE_ERRORS):
        machine.load(blob)
    found = _read_bytes_as_ckpt(tmp_path_factory.mktemp("soup"),
                                _torch_zip(blob, {"0": b"\0" * 4}))
    assert found is None or isinstance(found, LightningCheckpointFile)


# Plain values round-trip through the stack machine exactly as through pickle.loads. (Keys
# and set members are kept to what the machine hashes as is: an int beyond 2**61 there, or a
# tuple, is wrapped in an Opaque so no crafted key can make hashing slow.)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**60, max_value=2**60),
                     st.floats(allow_nan=False), st.text(max_size=20))
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.tuples(inner, inner),
        st.dictionaries(st.one_of(st.text(max_size=8), st.integers(-1000, 1000)), inner,
                        max_size=4),
        st.sets(st.text(max_size=5), max_size=4),
        st.frozensets(st.integers(-2**60, 2**60), max_size=4)),
    max_leaves=25)


@settings(max_examples=200, deadline=None)
@given(value=_VALUES, protocol=st.integers(min_value=0, max_value=5))
def test_plain_values_are_what_pickle_loads_gives(value: object, protocol: int) -> None:
    blob = pickle.dumps(value, protocol=protocol)
    assert Machine().load(blob) == pickle.loads(blob)


@settings(max_examples=50, deadline=None)
@given(value=st.binary(max_size=50), protocol=st.integers(min_value=0, max_value=5))
def test_bytes_round_trip(value: bytes, protocol: int) -> None:
    # protocols 0-2 spell bytes as _codecs.encode(str, "latin1"): converted, not called
    assert Machine().load(pickle.dumps(value, protocol=protocol)) == value


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_numpy_scalar_scores(tmp_path: Path, protocol: int) -> None:
    # A metric logged as a numpy scalar pickles as numpy's scalar(dtype, bytes): its value is
    # read from the bytes; numpy is neither imported for it nor called.
    import numpy as np

    ckpt = _as_checkpoint(np.float64(0.25))
    ckpt["callbacks"][KEY_MIN].update(monitor="val_loss", best_model_path="/r/a.ckpt",
                                      kth_value=np.float32(0.5), current_score=np.int64(3))
    found = _read_bytes_as_ckpt(tmp_path, _torch_zip(pickle.dumps(ckpt, protocol=protocol)))
    assert found is not None
    (state,) = found.states
    assert (state.best_model_score, state.kth_value, state.current_score) == (0.25, 0.5, 3.0)
    assert state.best_k_models == (("a.ckpt", 0.25),) and state.mode == "min"


# ---------------------------------------------------------------------------------------------
# Bounds: each of these answers None (or a harmless state) at once


def _patch_sizes(data: bytes, name: bytes, size: int) -> bytes:
    """Make the zip's local and central headers of member ``name`` claim ``size`` bytes."""
    out = bytearray(data)
    at = 0
    while (at := out.find(name, at + 1)) > 0:
        if out[at - 30:at - 26] == b"PK\x03\x04":
            struct.pack_into("<L", out, at - 30 + 22, size)
        elif out[at - 46:at - 42] == b"PK\x01\x02":
            struct.pack_into("<L", out, at - 46 + 24, size)
    return bytes(out)


def test_a_huge_declared_data_pkl_is_not_read(tmp_path: Path) -> None:
    data = _patch_sizes(_REAL, b"archive/data.pkl", 0xFFFFFFF0)
    assert answers_quickly(_read_bytes_as_ckpt, tmp_path, data, seconds=2) is None


def test_a_zip_bomb_member_is_not_inflated(tmp_path: Path) -> None:
    bomb = b"\x80\x02]" + b"\0" * (inert_pickle.MAX_PICKLE_BYTES + 10)
    data = _torch_zip(bomb, compression=zipfile.ZIP_DEFLATED)
    assert len(data) < 200_000
    assert answers_quickly(_read_bytes_as_ckpt, tmp_path, data, seconds=2) is None
    # ... and one that declares a small size but inflates to far more
    lying = _patch_sizes(data, b"archive/data.pkl", 1000)
    assert answers_quickly(_read_bytes_as_ckpt, tmp_path, lying, seconds=2) is None


def test_a_huge_score_storage_is_not_read(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch_archive, "MAX_ELEMENT_STORAGE_BYTES", 2)
    state = read_model_checkpoint_state(str(FIXTURES / "min" / "last.ckpt"))
    assert state is not None and state.monitor == "val_loss"
    assert state.best_model_score is None and state.kth_value is None


def test_too_many_archive_members_are_refused_before_listing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch_archive, "MAX_MEMBERS", 5)
    assert _read_bytes_as_ckpt(tmp_path, _REAL) is None
    listed: list[object] = []
    monkeypatch.setattr(torch_archive.zipfile, "ZipFile",
                        lambda *a, **k: listed.append(a))  # must not even be reached
    assert _read_bytes_as_ckpt(tmp_path, _REAL) is None and listed == []


def test_the_opcode_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inert_pickle, "MAX_OPCODES", 100)
    assert read_checkpoint_file(str(FIXTURES / "min" / "last.ckpt")) is None


def _timed_none_or_file(tmp_path: Path, blob: bytes) -> LightningCheckpointFile | None:
    found = None
    for data in (_torch_zip(blob), blob):
        found = answers_quickly(_read_bytes_as_ckpt, tmp_path, data)
        assert found is None or isinstance(found, LightningCheckpointFile)
    return found


def test_deeply_nested_lists(tmp_path: Path) -> None:
    n = 100_000
    assert _timed_none_or_file(tmp_path, b"\x80\x02" + b"]" * n + b"a" * (n - 1) + b".") is None
    # nesting with a constant stack: L = [L] through the memo, over and over
    chain = b"\x80\x02]q\x00" + b"]h\x00aq\x00" * n + b"."
    assert _timed_none_or_file(tmp_path, chain) is None
    assert _timed_none_or_file(tmp_path, b"\x80\x02" + b"(" * n + b"N.") is None
    shallow = b"\x80\x02" + b"]" * 50 + b"a" * 49 + b"."
    assert Machine().load(shallow) == pickle.loads(shallow)


def test_billion_laughs_through_the_memo(tmp_path: Path) -> None:
    # level i is a list of ten references to level i-1: 10**30 strings, 350 opcodes
    blob = b"\x80\x02X\x03\x00\x00\x00lolq\x00"
    for level in range(1, 31):
        blob += b"(" + b"h" + bytes([level - 1]) + (b"h" + bytes([level - 1])) * 9
        blob += b"lq" + bytes([level])
    top = blob + b"."
    assert _timed_none_or_file(tmp_path, top) is not None  # a list, not a checkpoint
    # the same inside a checkpoint's state, as a score, a path and a dict key
    ckpt = (b"\x80\x02" + blob[2:] + b"}(X\t\x00\x00\x00callbacks}(X" + struct.pack(
        "<L", len(KEY_MIN)) + KEY_MIN.encode() + b"}(X\x10\x00\x00\x00best_model_scoreh\x1e"
        b"X\x0f\x00\x00\x00best_model_pathh\x1eX\r\x00\x00\x00best_k_models}(h\x1eh\x1e"
        b"X\x01\x00\x00\x00ah\x1euX\x07\x00\x00\x00monitorX\x03\x00\x00\x00accuuu.")
    found = _timed_none_or_file(tmp_path, ckpt)
    assert found is not None
    (state,) = found.states
    assert (state.monitor, state.mode, state.best_model_score) == ("acc", "min", None)
    assert state.best_model_path is None and state.best_k_models == (("a", None),)


def test_colliding_keys_do_not_make_a_slow_dict(tmp_path: Path) -> None:
    # ints that all hash alike (multiples of 2**61 - 1) would make each insert scan them all
    # (written opcode by opcode: building that dict here would itself take minutes)
    body = b"".join(pickle.dumps(k * (2**61 - 1), protocol=2)[2:-1] + b"K\x00"
                    for k in range(1, 20_001))
    blob = b"\x80\x02}(" + body + b"u."
    assert _timed_none_or_file(tmp_path, blob) is not None


def test_huge_declared_strings_in_a_legacy_stream(tmp_path: Path) -> None:
    for blob in (b"\x80\x04\x8d" + struct.pack("<Q", 2**40) + b"abc",  # BINUNICODE8
                 b"\x80\x04\x8e" + struct.pack("<Q", 2**62) + b"abc",  # BINBYTES8
                 b"\x80\x02\x8b" + struct.pack("<l", 2**31 - 1) + b"\xff",  # LONG4
                 b"S'" + b"a" * 200_000):  # a text line with no end
        assert _timed_none_or_file(tmp_path, blob) is None


def test_not_regular_files_are_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.ckpt")
    (tmp_path / "link.ckpt").symlink_to(FIXTURES / "min" / "last.ckpt")
    for name in ("fifo.ckpt", "link.ckpt", "missing.ckpt"):
        assert answers_quickly(read_checkpoint_file, str(tmp_path / name)) is None
    assert read_checkpoint_file("/dev/zero") is None


# ---------------------------------------------------------------------------------------------
# House rules for this reader


@pytest.mark.parametrize("module", [inert_pickle, torch_archive, lightning_ckpt])
def test_the_reader_opens_files_only_through_safe_read_and_imports_no_framework(
        module: ModuleType) -> None:
    source = Path(str(module.__file__)).read_text()
    tree = ast.parse(source)
    calls = {ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    assert not calls & {"open", "io.open", "builtins.open", "pickle.load", "pickle.loads",
                        "pickle.Unpickler", "eval", "exec", "__import__",
                        "importlib.import_module"}
    if module is torch_archive:  # the one that opens files
        assert "open_regular" in calls
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom))
                for alias in (node.names if isinstance(node, ast.Import)
                              else [ast.alias(node.module or "")])}
    assert imported <= set(sys.stdlib_module_names) | {"__future__", "mlspace"}
    assert "pickle" not in imported
