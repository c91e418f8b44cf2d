"""The content sniffer (issue 27): what a file is, from one bounded look at real headers
written by the libraries themselves where they are installed (numpy, pyarrow, sqlite3,
zipfile, tarfile, gzip) and byte-exact headers per the formats' specs elsewhere; and what
it does with hostile input: truncated, a FIFO, a huge sparse file, a zip bomb's directory."""

from __future__ import annotations

import gzip
import io
import json
import os
import pickle
import sqlite3
import struct
import tarfile
import threading
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest

from mlspace.classify.readers.sniff import (
    DATA,
    HEAD_BYTES,
    MODEL,
    RECORD,
    TAIL_BYTES,
    sniff_bytes,
    sniff_file,
)
from mlspace.classify.readers.sniff_archive import MAX_MEMBERS, zip_names_from_tail


def _zip(members: dict[str, bytes], stored: bool = True) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


def _write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


# ------------------------------------------------------------------- real files, real libs
def test_numpy_npy_and_npz_by_what_their_arrays_are_named(tmp_path: Path) -> None:
    np.save(tmp_path / "a.npy", np.zeros((4, 4), dtype=np.float32))
    np.savez(tmp_path / "evals.npz", timesteps=np.arange(3), results=np.zeros(3),
             ep_lengths=np.ones(3))
    np.savez(tmp_path / "weights.npz", **{"model/l1/W": np.zeros(3), "model/l1/b": np.zeros(3)})
    np.savez(tmp_path / "data.npz", x_train=np.zeros(3), y_train=np.zeros(3))
    assert sniff_file(str(tmp_path / "a.npy")).format == "npy"
    assert (sniff_file(str(tmp_path / "evals.npz")).format,
            sniff_file(str(tmp_path / "evals.npz")).holds) == ("npz", RECORD)
    assert sniff_file(str(tmp_path / "weights.npz")).holds == MODEL
    assert sniff_file(str(tmp_path / "data.npz")).holds == DATA


def test_arrow_feather_parquet_and_sqlite(tmp_path: Path) -> None:
    table = pa.table({"x": [1, 2, 3], "label": ["a", "b", "c"]})
    pq.write_table(table, tmp_path / "t.parquet")
    feather.write_feather(table, tmp_path / "t.feather")
    with pa.OSFile(str(tmp_path / "t.arrows"), "wb") as sink, \
            pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    db = sqlite3.connect(tmp_path / "t.db")
    db.execute("CREATE TABLE runs (id INTEGER)")
    db.commit()
    db.close()
    assert sniff_file(str(tmp_path / "t.parquet")).format == "parquet"
    assert sniff_file(str(tmp_path / "t.feather")).format == "arrow"
    assert sniff_file(str(tmp_path / "t.arrows")).format == "arrow-stream"
    assert sniff_file(str(tmp_path / "t.db")).format == "sqlite"
    for name in ("t.parquet", "t.feather", "t.arrows"):
        assert sniff_file(str(tmp_path / name)).holds == DATA


def test_a_zip_tells_by_its_members_even_past_its_head(tmp_path: Path) -> None:
    """A zipped RL policy: its first member is JSON, its weights come after a member larger
    than the head, so the central directory at its end tells."""
    policy = _zip({"data": b"{" + b" " * (HEAD_BYTES + 10) + b"}", "policy.pth": b"\0" * 100,
                   "policy.optimizer.pth": b"\0" * 100, "system_info.txt": b"x"})
    found = sniff_file(_write(tmp_path, "best_model.zip", policy))
    assert (found.format, found.holds) == ("zip", MODEL)
    queued = _zip({"tmpab12": b"\0" * 100, "experiment.json": b"{}", "messages.json": b"[]"})
    assert sniff_file(_write(tmp_path, "run.zip", queued)).holds == RECORD
    images = _zip({f"{i:05d}.jpg": b"\xff\xd8\xff" for i in range(6)})
    assert sniff_file(_write(tmp_path, "imgs.zip", images)).holds == DATA
    torch_zip = _zip({"archive/data.pkl": b"\x80\x02}q\x00.", "archive/version": b"3\n",
                      "archive/data/0": b"\0" * 16})
    assert sniff_file(_write(tmp_path, "snapshot_iter_100", torch_zip)).format == "torch-zip"


def test_tar_and_gzip(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name in ("000001.jpg", "000001.cls", "000002.jpg", "000002.cls"):
            info = tarfile.TarInfo(name)
            info.size = 3
            tar.addfile(info, io.BytesIO(b"abc"))
    found = sniff_bytes(buf.getvalue())
    assert (found.format, found.holds) == ("tar", DATA)
    assert sniff_bytes(gzip.compress(b"hello")).format == "gzip"


def test_pickles_by_the_modules_they_name_never_loaded() -> None:
    plain = pickle.dumps({"success": (0.1, 0.2)}, protocol=5)
    assert (sniff_bytes(plain).format, sniff_bytes(plain).holds) == ("pickle", None)
    # protocol 4: STACK_GLOBAL of sklearn's class, as joblib/pickle write an estimator
    name = b"sklearn.linear_model._logistic"
    estimator = (b"\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x00\x8c" + bytes([len(name)]) + name
                 + b"\x94\x8c\x12LogisticRegression\x94\x93\x94)\x81\x94}\x94b.")
    assert sniff_bytes(estimator).holds == MODEL
    legacy = b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.\x80\x02M\xe9\x03."
    assert sniff_bytes(legacy).format == "torch-legacy"


def test_byte_exact_headers_of_model_formats() -> None:
    header = json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode()
    safetensors = struct.pack("<Q", len(header)) + header + b"\0" * 8
    assert sniff_bytes(safetensors).format == "safetensors"
    hdf5 = b"\x89HDF\r\n\x1a\n" + b"\0" * 200 + b"keras_version" + b"\0" * 20
    assert (sniff_bytes(hdf5).format, sniff_bytes(hdf5).holds) == ("hdf5", MODEL)
    assert sniff_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 200).holds is None
    onnx = b"\x08\x07\x12\x07pytorch\x1a\x052.1.0:\x00"
    assert sniff_bytes(onnx).format == "onnx"
    assert sniff_bytes(b"CBM1" + b"\0" * 20).holds == MODEL
    assert sniff_bytes(b'{L\x00\x00\x00\x00\x00\x00\x00\x07learner{').holds == MODEL
    tf_index = b"\0" * 40 + b"\x57\xfb\x80\x8b\x24\x75\x47\xdb"
    assert sniff_bytes(tf_index).format == "tf-index"


def test_media_headers() -> None:
    assert sniff_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 8).holds == DATA
    assert sniff_bytes(b"\xff\xd8\xff\xe0" + b"\0" * 8).format == "jpeg"
    assert sniff_bytes(b"RIFF\x24\x00\x00\x00WAVEfmt ").format == "wave"
    assert sniff_bytes(b"fLaC\x00\x00\x00\x22").format == "flac"


@pytest.mark.parametrize(("text", "holds"), [
    ("epoch,train_loss,valid_loss,accuracy,time\n0,0.5,0.4,0.8,00:01\n1,0.4,0.3,0.85,00:01\n"
     "2,0.3,0.3,0.9,00:01\n", RECORD),
    ("iter\tPassed\tRemaining\n0\t56\t16910\n1\t64\t9574\n2\t72\t7209\n", RECORD),
    ("f0,f1,f2,f10,label\n1,2,3,4,0\n1,2,3,4,1\n1,2,3,4,0\n", DATA),
    ('text,label\n"great, really",1\n"bad",0\n"fine",1\n', DATA),
    ('{"train": {"logloss": [0.6, 0.5]}, "valid": {"logloss": [0.7, 0.6]}}', RECORD),
    ('{"learner": {"attributes": {}}, "version": [3, 2, 0]}', MODEL),
    ('{"lr": 0.01, "batch_size": 32}', None),
])
def test_text_tables_and_json_records(text: str, holds: str | None) -> None:
    assert sniff_bytes(text.encode()).holds == holds


# ------------------------------------------------------------------------------ hostile
def test_truncated_and_garbage_input_is_only_unknown() -> None:
    policy = _zip({"policy.pth": b"\0" * 5000})
    for cut in (3, 10, 31, 60, 200, len(policy) - 10):
        sniff_bytes(policy[:cut], policy[-cut:])  # never raises
    for head in (b"", b"\x80", b"\x80\x05\x95", b"PK\x03\x04", b"\x93NUMPY", b"{", b"[{\"a\":"):
        sniff_bytes(head)
    assert sniff_bytes(os.urandom(4096)).holds in (None, MODEL, DATA, RECORD)


def test_a_fifo_a_link_and_a_folder_are_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "result.pkl"
    os.mkfifo(fifo)
    (tmp_path / "link.zip").symlink_to("/dev/zero")
    (tmp_path / "dir.zip").mkdir()
    done = []
    thread = threading.Thread(target=lambda: done.extend(
        sniff_file(str(tmp_path / n)) for n in ("result.pkl", "link.zip", "dir.zip")))
    thread.start()
    thread.join(5)
    assert done == [None, None, None]


def test_a_huge_sparse_file_costs_one_bounded_head(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A terabyte claiming to be a zip is judged on a head and a tail: the bytes read are
    counted (not timed), and so is the memory."""
    path = tmp_path / "huge.bin"
    with open(path, "wb") as f:
        f.write(b"PK\x03\x04")
        f.truncate(1 << 40)  # a terabyte that takes no disk
    read = []
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: read.append(n) or real_read(fd, n))
    tracemalloc.start()
    sniff_file(str(path))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    monkeypatch.undo()
    assert 0 < sum(read) <= HEAD_BYTES + TAIL_BYTES
    assert peak < 4 * (HEAD_BYTES + (64 << 10))


def test_a_zip_bombs_directory_is_read_within_its_bytes() -> None:
    """An end record claiming 65,535 members and a directory of gigabytes, over a tail full
    of central headers with absurd lengths: at most MAX_MEMBERS names, each one really
    there; a header whose lengths run past the bytes ends the list."""
    entry = b"PK\x01\x02" + b"\0" * 24 + struct.pack("<HHH", 4, 0, 0) + b"\0" * 12 + b"a.pt"
    tail = entry * 3000 + b"PK\x05\x06" + struct.pack("<4xHHLLH", 65535, 65535,
                                                      0xFFFFFFFF, 0, 0)
    names = zip_names_from_tail(tail[-(64 << 10):])
    assert 0 < len(names) <= MAX_MEMBERS and set(names) == {"a.pt"}
    hostile = b"PK\x01\x02" + b"\0" * 24 + struct.pack("<HHH", 65535, 65535, 65535)
    size = struct.pack("<L", 46 * 1000)  # the directory: all 1000 headers
    assert zip_names_from_tail(hostile * 1000 + b"PK\x05\x06" + b"\0" * 8 + size
                               + b"\0" * 6) == []
