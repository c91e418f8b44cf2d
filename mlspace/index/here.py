"""Which folders of a saved scan are on this machine: only there can a cleanup check each
item against the disk before moving it, as every cleanup does.

A folder is here when it exists here, whichever host scanned it, as ``mlspace clean FILE``
has it: a lab's shared storage is the same folder on every node, and a scan made on a
compute node is cleaned from the login node. Where the same name holds another folder (a
laptop's /home/me/project against the server's), the check before each move finds items of
another size, time or inode and skips them, saying so: nothing is ever moved on the word of
another machine's scan alone. A folder that is not here, or no longer, offers no cleanup.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence

from mlspace.index.info import ScanInfo


def folders_not_here(info: ScanInfo, roots: Sequence[str], host: str | None = None
                     ) -> dict[str, str]:
    """The scanned folders of ``roots`` not on this machine (``host``, by default this
    one's name), each with why, in words: "scanned on gpu-node3; /scratch/lab is not on
    this machine". Reads the disk (one stat per folder): call it off the GUI thread."""
    here = platform.node() if host is None else host
    missing = {}
    for root in roots:
        if os.path.isdir(root):
            continue
        if info.host and info.host != here:
            missing[root] = f"scanned on {info.host}; {root} is not on this machine"
        else:
            missing[root] = (f"{root} is no longer on this machine" if info.host else
                             f"{root} is not on this machine")
    return missing
