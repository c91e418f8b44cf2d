"""A folder's children's names, decoded and as stored: growth matching compares the stored
bytes of two scans' listings and decodes only those that differ."""

from __future__ import annotations

import os
from pathlib import Path

from trees import NON_UTF8_NAME

from mlspace.scan import ScanOptions, scan


def test_names_decoded_and_as_stored_agree(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "empty").mkdir(parents=True)
    for name in ("checkpoint-2", "checkpoint-10", "ünï"):
        (root / name).write_text("x")
    odd = os.fsencode(root) + b"/" + NON_UTF8_NAME
    with open(odd, "wb") as f:
        f.write(b"y")
    snap = scan([root], ScanOptions(workers=1))
    row = snap.row_of(snap.find(str(root)))
    names = snap.child_names(row)
    assert sorted(names) == sorted(["empty", "checkpoint-2", "checkpoint-10", "ünï",
                                    os.fsdecode(NON_UTF8_NAME)])
    stored = snap.child_name_bytes(row)
    assert stored.endswith(b"\0") and stored.count(b"\0") == len(names)
    assert stored[:-1].split(b"\0") == [os.fsencode(n) for n in names]
    empty = snap.row_of(snap.find(str(root / "empty")))
    assert snap.child_names(empty) == [] and snap.child_name_bytes(empty) == b""
    again = scan([root], ScanOptions(workers=1))
    assert again.child_name_bytes(again.row_of(again.find(str(root)))) == stored
