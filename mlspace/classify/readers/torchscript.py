"""Recognise a TorchScript archive (``torch.jit.save``) by its zip directory alone.

A TorchScript file is named like any torch checkpoint (``model.pt``), and a folder of
exported models must not be thinned out as if it were a training series. Its archive holds
the model's code (``<name>/code/...``) and ``constants.pkl``, which ``torch.save`` never
writes: the member names tell, and nothing in the archive is read, let alone run.
"""

from __future__ import annotations

import os
import zipfile

from mlspace.classify.readers.torch_archive import DATA_ERRORS, ZIP_MAGIC, check_zip_directory
from mlspace.safe_read import open_regular


def is_torchscript(path: str) -> bool:
    """True if ``path`` is a TorchScript archive; False for anything else or unreadable (a
    FIFO, a link, a malformed or oversized zip directory)."""
    try:
        with open_regular(path) as (fd, info), os.fdopen(os.dup(fd), "rb") as f:
            if f.read(4) != ZIP_MAGIC:
                return False
            check_zip_directory(f, info.st_size)
            f.seek(0)
            names = zipfile.ZipFile(f).namelist()
    except DATA_ERRORS:
        return False
    return any("/code/" in name for name in names) and any(
        name.endswith("/constants.pkl") for name in names)
