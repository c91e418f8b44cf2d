"""File headers: recognise a Linux core dump by its ELF header (``core`` is also a common
name for a source folder or module, so the name alone proves nothing)."""

from __future__ import annotations

from mlspace.safe_read import Unreadable, read_head

ELF_MAGIC = b"\x7fELF"
ET_CORE = 4


def is_core_dump(path: str) -> bool:
    """True if the file starts with an ELF header whose type is ET_CORE. Read through
    safe_read: a FIFO named ``core`` would block an open(), and a ``core`` that is a link
    is not followed (what it points at is not a dump in this tree), so both are no dump."""
    try:
        header = read_head(path, 18)
    except Unreadable:
        return False
    if len(header) < 18 or not header.startswith(ELF_MAGIC):
        return False
    byteorder = "little" if header[5] == 1 else "big"
    return int.from_bytes(header[16:18], byteorder) == ET_CORE
