"""The member names of a zip or tar archive, read from a bounded head (and, for a zip, a
bounded tail holding its central directory) as bytes: nothing is extracted or decompressed.

Why names: what an archive holds says what it is. A zip of ``policy.pth`` and
``policy.optimizer.pth`` is a model, one of ``experiment.json`` and ``messages.json`` is a
tracker's record waiting to be sent, one of ``.npy`` arrays is NumPy's ``.npz``. Every count
and length is bounded by the bytes at hand, so a crafted directory (a zip bomb's million
entries) costs at most one pass over the bytes read.
"""

from __future__ import annotations

import struct

#: Most member names kept from one archive.
MAX_MEMBERS = 256
_LOCAL = b"PK\x03\x04"
_CENTRAL = b"PK\x01\x02"
_END = b"PK\x05\x06"


def zip_names_from_head(head: bytes) -> list[str]:
    """The names of the members whose local headers lie in ``head``, in order. A member
    whose size its header does not give (a streamed write) ends the walk."""
    names: list[str] = []
    at = 0
    while len(names) < MAX_MEMBERS and head[at:at + 4] == _LOCAL and at + 30 <= len(head):
        flags, compressed, name_len, extra_len = struct.unpack_from("<2xH10xL4xHH", head, at + 4)
        name = head[at + 30:at + 30 + name_len]
        if len(name) < name_len:
            break
        names.append(name.decode("utf-8", "replace"))
        if flags & 0x08 and compressed == 0:
            break  # sizes follow the data: nothing tells where the next header starts
        at += 30 + name_len + extra_len + compressed
    return names


def zip_names_from_tail(tail: bytes) -> list[str]:
    """The member names the central directory in ``tail`` (a zip's last bytes) lists, as
    far as those bytes hold it. The end record's own counts are not trusted: entries are
    read while they are there, up to MAX_MEMBERS."""
    end = tail.rfind(_END)
    if end < 0 or len(tail) - end < 22:
        return []
    (size,) = struct.unpack_from("<L", tail, end + 12)
    at = max(0, end - size) if size <= end else tail.find(_CENTRAL)
    names: list[str] = []
    while 0 <= at < end and tail[at:at + 4] == _CENTRAL and len(names) < MAX_MEMBERS:
        if at + 46 > len(tail):
            break
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", tail, at + 28)
        name = tail[at + 46:at + 46 + name_len]
        if len(name) < name_len:
            break
        names.append(name.decode("utf-8", "replace"))
        at += 46 + name_len + extra_len + comment_len
    return names


_TAR_MAGIC_AT = 257


def tar_names_from_head(head: bytes) -> list[str]:
    """The names of the members whose 512-byte headers lie in ``head`` (ustar or GNU)."""
    names: list[str] = []
    at = 0
    while at + 512 <= len(head) and len(names) < MAX_MEMBERS:
        block = head[at:at + 512]
        if block[_TAR_MAGIC_AT:_TAR_MAGIC_AT + 5] != b"ustar":
            break
        name = block[:100].split(b"\0", 1)[0]
        prefix = block[345:500].split(b"\0", 1)[0]
        try:
            size = int(block[124:136].split(b"\0", 1)[0].strip() or b"0", 8)
        except ValueError:
            break
        full = (prefix + b"/" + name) if prefix else name
        if block[156:157] not in (b"L", b"x", b"g"):  # long-name and pax records are no members
            names.append(full.decode("utf-8", "replace"))
        at += 512 + (size + 511) // 512 * 512
    return names


def is_tar(head: bytes) -> bool:
    return head[_TAR_MAGIC_AT:_TAR_MAGIC_AT + 5] == b"ustar"
