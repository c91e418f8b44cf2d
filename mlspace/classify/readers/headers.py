"""File headers: recognise a Linux core dump by its ELF header (``core`` is also a common
name for a source folder or module, so the name alone proves nothing)."""

from __future__ import annotations

ELF_MAGIC = b"\x7fELF"
ET_CORE = 4


def is_core_dump(path: str) -> bool:
    """True if the file starts with an ELF header whose type is ET_CORE."""
    try:
        with open(path, "rb") as f:
            header = f.read(18)
    except OSError:
        return False
    if len(header) < 18 or not header.startswith(ELF_MAGIC):
        return False
    byteorder = "little" if header[5] == 1 else "big"
    return int.from_bytes(header[16:18], byteorder) == ET_CORE
