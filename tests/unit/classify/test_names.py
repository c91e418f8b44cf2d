"""The vectorised name pass gives what plain string code gives, for any name: the extension
(last dot, not a leading one, any length) and exact-name lookups."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mlspace.classify.names import NameColumns, NameSet
from mlspace.scan import ScanOptions, scan


class _Names:
    """The part of a Snapshot that NameColumns reads, in the snapshot's own format: one
    NUL-separated buffer and offsets, decoded with surrogateescape."""

    def __init__(self, names: list[str]) -> None:
        raw = b"".join(n.encode("utf-8", "surrogateescape") + b"\0" for n in names)
        self.name_buffer = memoryview(bytearray(raw))
        lengths = [len(n.encode("utf-8", "surrogateescape")) + 1 for n in names]
        self.name_offsets = np.cumsum([0, *lengths]).astype(np.uint32)
        self._names = names

    def names_of(self, entries: np.ndarray) -> list[str]:
        return [self._names[int(e)] for e in entries]


def _extension(name: str) -> str:
    """The rule the classifier documents: from the last dot, unless that is the first char."""
    dot = name.rfind(".")
    return name[dot:] if dot > 0 else ""


def _check(names: list[str], needed: np.ndarray | None = None) -> None:
    columns = NameColumns(_Names(names))  # type: ignore[arg-type]
    needed = np.ones(len(names), dtype=bool) if needed is None else needed
    groups = columns.extension_groups(needed)
    for i, name in enumerate(names):
        group = int(groups.group[i])
        if group < 0:
            # not worked out: allowed only where not needed, beyond the 8-byte window
            tail = name.encode("utf-8", "surrogateescape")[-8:]
            assert not needed[i] and len(name.encode("utf-8", "surrogateescape")) > 8, name
            assert b"." not in tail, name
        else:
            assert groups.extensions[group] == _extension(name), name


_NAME_CHARS = st.sampled_from(list("abcXYZ019._-é ") + ["\udcff"])
_NAMES = st.text(_NAME_CHARS, min_size=1, max_size=30).filter(lambda n: n not in (".", ".."))
# Names that share their last 8 bytes and length: told apart only by earlier bytes, in the
# first 8-byte word or a later one.
_SAME_TAIL = st.sampled_from([
    "a_trainer_state.json", "b_trainer_state.json", "X.y", "Z.y",
    "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
    "model-00001-of-00003.safetensors",
])


@settings(max_examples=120, deadline=None)
@given(st.lists(_NAMES, min_size=1, max_size=40))
def test_extensions_match_plain_string_code(names: list[str]) -> None:
    _check(names)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(_NAMES, _SAME_TAIL), min_size=1, max_size=40), st.data())
def test_exact_names_are_found_and_nothing_else(names: list[str], data: st.DataObject) -> None:
    wanted = sorted(set(data.draw(
        st.lists(st.one_of(st.sampled_from(names), _NAMES, _SAME_TAIL), max_size=6))))
    entries, which = NameColumns(_Names(names)).entries_named(NameSet(wanted))  # type: ignore[arg-type]
    expected = [i for i, n in enumerate(names) if n in wanted]
    assert entries.tolist() == expected
    assert [wanted[w] for w in which] == [names[i] for i in expected]


def test_edge_cases_of_the_8_byte_window() -> None:
    _check([
        ".bashrc", "a.b", "a.", "Makefile", "IMG_0001.JPG", "model.safetensors",
        "12345678", "1234567.", ".1234567", "a.1234567", "ab.1234567", "abcdefgh.i",
        "events.out.tfevents.1700000000.host-name-01", "x" * 40, "y" * 40 + ".tar.gz",
        "data.tfrecord-00001-of-01024", "é.é", "café.JPEG", "a.b.c.d.e.f.g.h.i",
    ])


def test_long_extensions_are_decoded_only_where_needed() -> None:
    names = ["a.safetensors", "b.safetensors", "c.pt", "noext_but_long_name"]
    needed = np.array([True, False, True, False])
    _check(names, needed)
    groups = NameColumns(_Names(names)).extension_groups(needed)  # type: ignore[arg-type]
    assert int(groups.group[1]) == -1 and int(groups.group[3]) == -1


def test_on_a_scanned_folder_with_odd_names(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    names = ["checkpoint", "trainer_state.json", "IMG.PNG", ".hidden", "x.y.z", "README"]
    for name in names:
        (root / name).write_bytes(b"")
    os.mkdir(os.path.join(os.fsencode(root), b"bad\xffname.d"))
    snapshot = scan([root], ScanOptions(workers=1))
    all_names = snapshot.names_of(np.arange(len(snapshot)))
    columns = NameColumns(snapshot)
    groups = columns.extension_groups(np.ones(len(snapshot), dtype=bool))
    for entry, name in enumerate(all_names[1:], start=1):
        assert groups.extensions[int(groups.group[entry])] == _extension(name)
    wanted = ["checkpoint", "latest", "trainer_state.json"]
    entries, which = columns.entries_named(NameSet(wanted))
    assert sorted(wanted[w] for w in which) == ["checkpoint", "trainer_state.json"]
    assert [all_names[e] for e in entries] == [wanted[w] for w in which]


def test_names_containing_finds_each_entry_once(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    for name in ("a.rf.b.rf.c", "A.RF.x", "plain", "x.rf."):
        (root / name).write_bytes(b"")
    snapshot = scan([root], ScanOptions(workers=1))
    names = snapshot.names_of(np.arange(len(snapshot)))
    exact = [names[e] for e in snapshot.names_containing(b".rf.")]
    assert sorted(exact) == ["a.rf.b.rf.c", "x.rf."]
    folded = [names[e] for e in snapshot.names_containing(b".RF.", ignore_case=True)]
    assert sorted(folded) == ["A.RF.x", "a.rf.b.rf.c", "x.rf."]
    assert len(snapshot.names_containing(b"zzz")) == 0


@settings(max_examples=80, deadline=None)
@given(st.lists(_NAMES, min_size=1, max_size=30), st.integers(0, 12))
def test_bytes_before_end_matches_slicing(names: list[str], distance: int) -> None:
    needle = b".a"
    entries = np.arange(len(names))
    found = NameColumns(_Names(names)).bytes_before_end(  # type: ignore[arg-type]
        entries, np.full(len(names), distance), needle)
    for name, hit in zip(names, found.tolist(), strict=True):
        raw = name.encode("utf-8", "surrogateescape")
        at = len(raw) - distance
        assert hit == (distance >= len(needle) and at >= 0 and raw[at : at + 2] == needle)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(_NAMES, _SAME_TAIL), min_size=1, max_size=40),
       st.one_of(_NAMES, st.sampled_from(["events.out.tfevents.", "model-0000", "a_"])))
def test_starting_with_matches_str_startswith(names: list[str], prefix: str) -> None:
    columns = NameColumns(_Names(names))  # type: ignore[arg-type]
    encoded = prefix.encode("utf-8", "surrogateescape")
    found = columns.starting_with(np.arange(len(names)), encoded)
    assert found.tolist() == [n.encode("utf-8", "surrogateescape").startswith(encoded)
                              for n in names]
