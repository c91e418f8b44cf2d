"""The ncdu reader against what a hostile or broken file can hold: whatever the bytes, it
opens the scan or says why it cannot (CannotOpen), never anything else; valid trees open
with the sizes they hold."""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mlspace.index.errors import CannotOpen
from mlspace.index.ncdu_read import MAX_DEPTH, read_ncdu
from mlspace.index.saved import open_saved

VALID = (b'[1,2,{"progname":"ncdu","progver":"1.18","timestamp":1700000000},\n'
         b'[{"name":"/data/ws","asize":4096,"dsize":4096,"dev":2049},\n'
         b'{"name":"caf\xe9.bin","asize":5,"dsize":4096},\n'
         b'{"name":"link","asize":4,"notreg":true},\n'
         b'[{"name":"run","asize":4096,"dsize":4096,"mtime":1700000000},\n'
         b'{"name":"a.pt","asize":10000,"dsize":12288,"ino":77,"hlnkc":true,"nlink":2},\n'
         b'{"name":"b.pt","asize":10000,"dsize":12288,"ino":77,"hlnkc":true,"nlink":2}],\n'
         b'[{"name":"locked","read_error":true}],\n'
         b'{"name":"mnt","excluded":"otherfs"},\n'
         b'{"name":"skipped","excluded":"pattern"}]]\n')
FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def _file(data: bytes, suffix: str = ".json") -> Iterator[str]:
    fd, path = tempfile.mkstemp(suffix=suffix)
    try:
        os.write(fd, data)
        os.close(fd)
        yield path
    finally:
        os.unlink(path)


def _opens_or_refuses(data: bytes) -> None:
    with _file(data) as path:
        try:
            read_ncdu(path)
        except CannotOpen as err:
            assert str(err)


def test_the_valid_sample_opens() -> None:
    with _file(VALID) as path:
        snapshot, info = read_ncdu(path)
    totals = snapshot.grand_totals()
    assert totals.disk_usage == 4096 * 3 + 12288  # root, run, café, one of the two links
    assert totals.files == 4 and totals.dirs == 4  # skipped is left out, as --exclude does
    assert [e.path for e in snapshot.errors] == ["/data/ws/locked"]
    assert snapshot.other_filesystems == ("/data/ws/mnt",)
    assert info.program == "ncdu 1.18"
    assert snapshot.name_bytes(snapshot.find("/data/ws/" + os.fsdecode(b"caf\xe9.bin"))) \
        == b"caf\xe9.bin"


@FUZZ
@given(st.binary(max_size=400))
def test_any_bytes(data: bytes) -> None:
    _opens_or_refuses(data)


@FUZZ
@given(st.lists(st.tuples(st.integers(0, len(VALID)), st.integers(0, 8), st.binary(max_size=6)),
                min_size=1, max_size=4))
def test_a_damaged_export(edits: list[tuple[int, int, bytes]]) -> None:
    data = VALID
    for at, cut, insert in edits:
        data = data[:at] + insert + data[at + cut:]
    _opens_or_refuses(data)


_VALUES = st.one_of(st.integers(-2**70, 2**70), st.floats(allow_nan=True), st.booleans(),
                    st.none(), st.text(max_size=8), st.lists(st.integers(), max_size=2))
_KEYS = st.sampled_from(["name", "asize", "dsize", "dev", "ino", "hlnkc", "nlink", "notreg",
                         "read_error", "excluded", "uid", "mode", "mtime", "other"])


@st.composite
def _trees(draw: st.DrawFn, depth: int = 0) -> list:
    info = draw(st.dictionaries(_KEYS, _VALUES, max_size=6))
    if depth == 0:
        info["name"] = "/root"
    children: list = [draw(_trees(depth=depth + 1)) if depth < 3 and draw(st.booleans())
                      else draw(st.dictionaries(_KEYS, _VALUES, max_size=6))
                      for _ in range(draw(st.integers(0, 3)))]
    return [info, *children]


@FUZZ
@given(_trees(), st.integers(-1, 3), st.integers(-1, 3))
def test_absurd_values(tree: list, major: int, minor: int) -> None:
    text = json.dumps([major, minor, {"progname": "gdu"}, tree])
    _opens_or_refuses(text.encode())


_NAMES = st.text(st.characters(blacklist_characters="/\0", blacklist_categories=("Cs",)),
                 min_size=1, max_size=12).filter(lambda n: n not in (".", ".."))


@FUZZ
@given(st.lists(st.tuples(_NAMES, st.integers(0, 2**40), st.integers(0, 2**30)),
                min_size=1, max_size=30, unique_by=lambda t: t[0]))
def test_valid_files_add_up(files: list[tuple[str, int, int]]) -> None:
    tree = [{"name": "/root", "asize": 0, "dsize": 0},
            *({"name": n, "asize": a, "dsize": d} for n, a, d in files)]
    data = json.dumps([1, 2, {}, tree]).encode()
    with _file(gzip.compress(data), ".json.gz") as path:
        snapshot = open_saved(path).snapshot
    totals = snapshot.grand_totals()
    assert totals.apparent_size == sum(a for _, a, _ in files)
    assert totals.disk_usage == sum((d + 511) // 512 * 512 for _, _, d in files)
    assert totals.files == len(files)


def test_nesting_is_bounded() -> None:
    deep = b'[1,2,{},[{"name":"/r"},' + b'[{"name":"d"},' * MAX_DEPTH + b'{"name":"f"}' \
        + b"]" * (MAX_DEPTH + 2)
    with _file(deep) as path, pytest.raises(CannotOpen, match="nested more than"):
        read_ncdu(path)
    fine = b'[1,2,{},[{"name":"/r"},' + b'[{"name":"d"},' * 2000 + b'{"name":"f"}' \
        + b"]" * 2002
    with _file(fine) as path:
        assert read_ncdu(path)[0].grand_totals().dirs == 2001


def test_deeply_nested_metadata_is_refused() -> None:
    with _file(b"[1,2," + b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b",[]]") as path, \
            pytest.raises(CannotOpen):
        read_ncdu(path)


def test_a_gzip_bomb_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from mlspace.index import ncdu_read

    monkeypatch.setattr(ncdu_read, "MAX_BYTES", 1 << 20)
    with _file(gzip.compress(b"[" + b" " * (2 << 20) + b"]"), ".json.gz") as path, \
            pytest.raises(CannotOpen, match="larger than"):
        read_ncdu(path)
