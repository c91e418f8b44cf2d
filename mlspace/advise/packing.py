"""How much packing a log folder into a .tar.gz would really free, before it is suggested.

Logs are often already compressed (W&B's ``.wandb`` records, TensorBoard event files,
images, ``.gz``) and a tarball of them frees nothing or grows. So a bounded sample of the
folder's own bytes is compressed as the packing would compress it, and only a folder whose
archive would take well under its size is suggested, with what it frees said as "about".
"""

from __future__ import annotations

import zlib
from functools import lru_cache

import numpy as np

from mlspace.classify import Inventory
from mlspace.safe_read import Unreadable, read_head
from mlspace.scan.walker import KIND_FILE

#: What one folder's sample reads at most, over its largest files, and from each.
SAMPLE_BYTES = 4 << 20
PER_FILE = 1 << 20
#: A tar header (and padding, on average) per entry.
TAR_ENTRY = 1024
#: Packing is suggested only when the archive would free at least this share of the folder.
WORTH = 0.2


def packed_share(inv: Inventory, folder: int) -> float | None:
    """The share of the folder's bytes on disk its .tar.gz would take (about), from a
    compressed sample of its largest files; None when nothing could be read."""
    snap = inv.snapshot
    entries = np.fromiter(snap.subtree(folder), dtype=np.int64)
    files = entries[snap.kind[entries] == KIND_FILE]
    if not len(files):
        return None
    sizes = snap.apparent[files]
    order = files[np.argsort(-sizes.astype(np.int64), kind="stable")]
    raw = packed = 0
    for entry in order.tolist():
        if raw >= SAMPLE_BYTES:
            break
        try:
            read, squeezed = _packed_head(snap.path(entry), int(snap.ino[entry]),
                                          int(snap.apparent[entry]), float(snap.mtime[entry]),
                                          min(PER_FILE, SAMPLE_BYTES - raw))
        except Unreadable:
            continue
        raw += read
        packed += squeezed
    if raw == 0:
        return None
    totals = snap.totals(folder)
    archive = packed / raw * int(sizes.sum()) + TAR_ENTRY * len(entries)
    return min(archive / max(totals.disk_usage, 1), 10.0)


@lru_cache(maxsize=4096)
def _packed_head(path: str, inode: int, size: int, mtime: float, limit: int
                 ) -> tuple[int, int]:
    """(bytes read, their gzip length) of the file's first ``limit`` bytes; Unreadable (never
    remembered) when it cannot be read. Compressing is the cost of the estimate (gzip at
    level 9, as tarfile's w:gz packs), so a file of the same inode, size and time keeps its
    figure between the plans of one process: an app's rescan re-estimates only what
    changed."""
    head = read_head(path, limit)
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip, as tarfile's w:gz
    return len(head), len(squeeze.compress(head)) + len(squeeze.flush())
