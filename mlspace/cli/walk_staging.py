"""The staging folder of a cluster scan saved as a dataset: the workers write their walks
into it (it lies in the output folder, on storage they all see), the client merges and
removes each part, and the folder goes at the end with whatever parts are left (of tasks
that never reported back).

It is removed through directory descriptors, checked to be the folder made for this scan:
if that was swapped for a link or another folder meanwhile, nothing outside it is touched.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator

#: The names the workers give their parts (mlspace.scan.cluster_task).
PART_PREFIX = "walk-"
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@contextlib.contextmanager
def walk_staging(folder: str) -> Iterator[str]:
    """Make a staging folder of a new name in ``folder``, give its path, remove it after."""
    name = f"_walk-{uuid.uuid4().hex[:8]}"
    parent = os.open(folder, _OPEN_DIR)
    try:
        os.mkdir(name, dir_fd=parent)
        made = os.stat(name, dir_fd=parent, follow_symlinks=False)
        try:
            yield os.path.join(folder, name)
        finally:
            _remove(parent, name, made)
    finally:
        os.close(parent)


def _remove(parent: int, name: str, made: os.stat_result) -> None:
    """Remove the parts left in the staging folder, then the folder, if it is still the
    one made (same device and inode, a folder, not a link)."""
    with contextlib.suppress(OSError):
        fd = os.open(name, _OPEN_DIR, dir_fd=parent)
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != (made.st_dev, made.st_ino):
                return
            for part in os.listdir(fd):
                if part.startswith(PART_PREFIX):
                    with contextlib.suppress(OSError):  # a link goes, never what it names
                        os.unlink(part, dir_fd=fd)
        finally:
            os.close(fd)
        os.rmdir(name, dir_fd=parent)
