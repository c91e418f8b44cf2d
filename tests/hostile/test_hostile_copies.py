"""The copies that protect a checkpoint (classify.series_copies) are read through the one
bounded reader: a copy swapped after the scan for a FIFO or a link to /dev/zero hangs
nothing and protects nothing."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from layouts import make

from mlspace.classify import Inventory, classify
from mlspace.scan import scan


def _save(k: int) -> bytes:
    ends = f"PK-{k:02d}-".encode() * 300
    return ends + bytes(2000) + ends


def test_a_copy_swapped_for_a_fifo_or_a_device_link_hangs_nothing(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {**{f"run/ckpt/epoch_{k}.pt": _save(k) for k in range(6)},
                                  "dl/epoch_3.pt": _save(3), "dl2/epoch_4.pt": _save(4)})
    snap = scan([str(root)])
    os.remove(root / "dl/epoch_3.pt")
    os.mkfifo(root / "dl/epoch_3.pt")
    os.remove(root / "dl2/epoch_4.pt")
    os.symlink("/dev/zero", root / "dl2/epoch_4.pt")
    done: list[Inventory] = []
    worker = threading.Thread(target=lambda: done.append(classify(snap)), daemon=True)
    worker.start()
    worker.join(30)
    assert done, "classification hung on a swapped copy"
    (series,) = [s for s in done[0].series if s.path.endswith("run/ckpt")]
    assert "copied out" not in series.best_reason
