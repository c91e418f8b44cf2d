"""Torch checkpoint files read as data: the pickle and the few storage bytes a reader needs.

``torch.save`` writes a zip archive (torch >= 1.6): ``<name>/data.pkl`` holds the pickled
object, whose tensors are persistent ids naming storages kept as ``<name>/data/<key>``
members. A file saved before torch 1.6 (or with ``_use_new_zipfile_serialization=False``) is
a sequence of pickles (magic number, protocol version, system info, the object, its storage
keys) followed by the raw storages; a plain pickle with no preamble is read as the object
itself (its tensors' values are then unknown).

:func:`open_torch_file` gives the top-level object as plain values and placeholders (see
:mod:`mlspace.classify.readers.inert_pickle`: nothing in the file is imported, constructed
or called) and a :data:`Storages` to read single elements of its tensors with
:mod:`struct`. Torch's own calls are recognised, not run: a persistent id becomes a
:class:`StorageRef`, ``torch._utils._rebuild_tensor_v2(storage, offset, size, ...)`` a
:class:`TensorRef`, and a numpy scalar (a metric logged as one) its float.

The file is opened only through :func:`mlspace.safe_read.open_regular` (no FIFOs, devices
or symlinks), only the members needed are read from the archive, and everything is bounded
(member sizes, number of members, central directory, bytes of pickle): anything out of
bounds or malformed raises one of :data:`DATA_ERRORS`.
"""

from __future__ import annotations

import io
import os
import re
import struct
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from mlspace.classify.readers.inert_pickle import (
    MAX_PICKLE_BYTES,
    PICKLE_ERRORS,
    Machine,
    Malformed,
)
from mlspace.classify.readers.pickle_values import Opaque, Placeholder
from mlspace.safe_read import Unreadable, open_regular

#: Most members in the zip archive, and largest central directory, in bytes.
MAX_MEMBERS = 200_000
MAX_CENTRAL_DIRECTORY = 32 * 2**20
#: Largest storage member an element is read from (a scalar's storage holds one element).
MAX_ELEMENT_STORAGE_BYTES = 16 * 2**20

_LINE_BYTES = 64 * 2**10  # longest text line (protocol 0 opcodes) read from a stream
_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001
ZIP_MAGIC = b"PK\x03\x04"

# What reading a malformed, hostile or vanished file raises. Anything else would be a bug.
DATA_ERRORS = (*PICKLE_ERRORS, Unreadable, OSError, zipfile.BadZipFile)

# ---------------------------------------------------------------------------------------------
# Torch's values in the pickle


@dataclass(eq=False)
class StorageRef(Placeholder):
    """A persistent id naming a tensor storage: ``data/<key>`` in a zip archive, or the
    storage of that key in a legacy file. ``base`` is a legacy view's offset, in elements."""

    key: str
    dtype: str | None  # a key of _DTYPES, None when the storage type is not one we read
    element_size: int | None
    numel: int
    base: int = 0


@dataclass(eq=False)
class TensorRef(Placeholder):
    """A tensor as ``torch._utils._rebuild_tensor_v2`` would rebuild it."""

    storage: StorageRef
    offset: int
    size: tuple[int, ...]


# storage class name -> (dtype, element size); dtype None = size known but value not read
_STORAGES: dict[str, tuple[str | None, int]] = {
    "FloatStorage": ("f4", 4), "DoubleStorage": ("f8", 8), "HalfStorage": ("f2", 2),
    "BFloat16Storage": ("bf16", 2), "LongStorage": ("i8", 8), "IntStorage": ("i4", 4),
    "ShortStorage": ("i2", 2), "CharStorage": ("i1", 1), "ByteStorage": ("u1", 1),
    "BoolStorage": ("b1", 1), "UntypedStorage": ("u1", 1),
    "ComplexFloatStorage": (None, 8), "ComplexDoubleStorage": (None, 16),
    "QInt8Storage": (None, 1), "QUInt8Storage": (None, 1), "QInt32Storage": (None, 4),
    "QUInt4x2Storage": (None, 1), "QUInt2x4Storage": (None, 1),
}
# dtype -> struct format of one element (bf16 is read as the top half of a float32)
_DTYPES = {"f4": "f", "f8": "d", "f2": "e", "bf16": "H", "i8": "q", "i4": "i", "i2": "h",
           "i1": "b", "u1": "B", "b1": "?"}
_NUMPY_DTYPES = {"f8": "d", "f4": "f", "f2": "e", "i8": "q", "i4": "i", "i2": "h", "i1": "b",
                 "u8": "Q", "u4": "I", "u2": "H", "u1": "B"}
# Torch's calls that rebuild a tensor or parameter from a storage.
_TENSOR_REBUILDERS = frozenset({
    "torch._utils _rebuild_tensor_v2", "torch._utils _rebuild_tensor",
    "torch._utils _rebuild_tensor_v3",
})
_PARAMETER_REBUILDERS = frozenset({
    "torch._utils _rebuild_parameter", "torch._utils _rebuild_parameter_with_state",
})
_NUMPY_SCALARS = frozenset({"numpy.core.multiarray scalar", "numpy._core.multiarray scalar"})


class _TorchValues:
    """The hooks of :class:`Machine` for a torch pickle: its persistent ids are storages,
    its tensor and parameter rebuilds are tensors, numpy scalars are floats."""

    def __init__(self) -> None:
        self.storages: dict[str, StorageRef] = {}  # every storage a persistent id named

    def interpret(self, name: str, args: tuple) -> object | None:
        """What a call to the global ``name`` stands for, None when it is none of these."""
        if name in _TENSOR_REBUILDERS:
            return self._tensor(name, args)
        if name in _PARAMETER_REBUILDERS and args and isinstance(args[0], TensorRef):
            return args[0]
        if name in _NUMPY_SCALARS:
            return _numpy_scalar(args)
        return None

    @staticmethod
    def _tensor(name: str, args: tuple) -> object:
        if len(args) >= 4:
            storage, offset, size = args[0], args[1], args[2]
            if (isinstance(storage, StorageRef) and isinstance(offset, int)
                    and not isinstance(offset, bool) and offset >= 0
                    and isinstance(size, tuple) and len(size) <= 64
                    and all(isinstance(n, int) and n >= 0 for n in size)):
                return TensorRef(storage, offset, size)
        return Opaque(name, args)

    def persistent_load(self, pid: object) -> object:
        """A torch persistent id: ``('storage', StorageType, key, location, numel[, view])``."""
        if not (isinstance(pid, tuple) and len(pid) in (5, 6)
                and pid[0] in ("storage", b"storage")):
            return Opaque("persistent id", (pid,))
        storage_type, key, numel = pid[1], pid[2], pid[4]
        if isinstance(key, bytes):
            key = key.decode("ascii", "replace")
        if not (isinstance(storage_type, Opaque) and storage_type.is_global and isinstance(key, str)
                and isinstance(numel, int) and numel >= 0):
            return Opaque("persistent id", (pid,))
        dtype, size = _STORAGES.get(storage_type.name.rpartition(" ")[2].rpartition(".")[2],
                                    (None, None))
        base = 0
        view = pid[5] if len(pid) == 6 else None
        if view is not None:  # legacy (pre-1.0) storage view: (view_key, offset, view_size)
            if not (isinstance(view, tuple) and len(view) == 3 and isinstance(view[1], int)
                    and view[1] >= 0):
                return Opaque("persistent id", (pid,))
            base = view[1]
        ref = StorageRef(key, dtype, size, numel, base)
        self.storages.setdefault(key, ref)
        return ref


def _numpy_scalar(args: tuple) -> float | None:
    """``numpy.core.multiarray.scalar(dtype, bytes)`` as a float, for the dtypes of metrics.
    The dtype is itself a placeholder: ``numpy.dtype('f8', ...)`` with its BUILD state."""
    if len(args) != 2 or not isinstance(args[1], bytes):
        return None
    dtype = args[0]
    if not (isinstance(dtype, Opaque) and dtype.name.endswith(" dtype") and dtype.args
            and isinstance(dtype.args[0], str)):
        return None
    fmt = _NUMPY_DTYPES.get(dtype.args[0])
    state = dtype.state
    order = state[1] if isinstance(state, tuple) and len(state) > 1 else "<"
    if fmt is None or order not in ("<", ">", "|", "="):
        return None
    order = ">" if order == ">" else "<"
    if len(args[1]) != struct.calcsize(fmt):
        return None
    return float(struct.unpack(order + fmt, args[1])[0])


# ---------------------------------------------------------------------------------------------
# Sources of pickles and storages


class _BoundedStream:
    """A file read from its current position by :func:`pickletools.genops`, refusing to read
    more than ``budget`` bytes in all (a declared string length is never trusted)."""

    def __init__(self, f: io.BufferedReader, budget: int) -> None:
        self._f = f
        self._left = budget

    def read(self, n: int = -1) -> bytes:
        if n < 0 or n > self._left:
            raise Malformed("pickle larger than allowed")
        data = self._f.read(n)
        self._left -= len(data)
        return data

    def readline(self) -> bytes:
        line = self._f.readline(min(self._left, _LINE_BYTES))
        self._left -= len(line)
        return line

    def tell(self) -> int:
        return self._f.tell()


def _element(raw: bytes, dtype: str, big_endian: bool) -> float:
    order = ">" if big_endian else "<"
    value = struct.unpack(order + _DTYPES[dtype], raw)[0]
    if dtype == "bf16":
        value = struct.unpack("<f", struct.pack("<I", value << 16))[0]
    return float(value)


class _ZipStorages:
    """Elements of tensor storages held as ``<prefix>data/<key>`` members of a torch zip."""

    def __init__(self, archive: zipfile.ZipFile, prefix: str, big_endian: bool) -> None:
        self._archive = archive
        self._prefix = prefix
        self._big_endian = big_endian

    def element(self, ref: StorageRef, index: int) -> float | None:
        if ref.dtype is None or ref.element_size is None or index >= ref.numel:
            return None
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", ref.key) or ".." in ref.key:
            return None
        try:
            info = self._archive.getinfo(f"{self._prefix}data/{ref.key}")
        except KeyError:
            return None
        start = (ref.base + index) * ref.element_size
        if info.file_size > MAX_ELEMENT_STORAGE_BYTES or start + ref.element_size > info.file_size:
            return None
        with self._archive.open(info) as member:
            member.seek(start)
            raw = member.read(ref.element_size)
        if len(raw) != ref.element_size:
            return None
        return _element(raw, ref.dtype, self._big_endian)


class _LegacyStorages:
    """Elements of the storages that follow the pickles of a pre-1.6 torch file: one record
    per key, in the order of the pickled key list, each an int64 element count then the data.
    Records are walked (by seeking) only as far as a wanted key."""

    def __init__(self, f: io.BufferedReader, size: int, start: int, keys: list[str],
                 refs: dict[str, StorageRef], big_endian: bool) -> None:
        self._f = f
        self._size = size
        self._pos = start
        self._keys = iter(keys)
        self._refs = refs
        self._big_endian = big_endian
        self._found: dict[str, tuple[int, int]] = {}  # key -> (data offset, numel)
        self._stuck = False

    def _locate(self, key: str) -> tuple[int, int] | None:
        while key not in self._found and not self._stuck:
            following = next(self._keys, None)
            ref = self._refs.get(following) if following is not None else None
            if ref is None or ref.element_size is None or self._pos + 8 > self._size:
                self._stuck = True  # cannot tell how long an unknown storage is
                break
            self._f.seek(self._pos)
            numel = int.from_bytes(self._f.read(8), "big" if self._big_endian else "little",
                                   signed=True)
            if numel < 0:
                self._stuck = True
                break
            self._found[following] = (self._pos + 8, numel)
            self._pos += 8 + numel * ref.element_size
        return self._found.get(key)

    def element(self, ref: StorageRef, index: int) -> float | None:
        if ref.dtype is None or ref.element_size is None:
            return None
        where = self._locate(ref.key)
        if where is None:
            return None
        data, numel = where
        at = ref.base + index
        if at >= numel or data + (at + 1) * ref.element_size > self._size:
            return None
        self._f.seek(data + at * ref.element_size)
        raw = self._f.read(ref.element_size)
        if len(raw) != ref.element_size:
            return None
        return _element(raw, ref.dtype, self._big_endian)


class _NoStorages:
    """A plain pickle: tensors have no data to read."""

    def element(self, ref: StorageRef, index: int) -> float | None:
        return None


#: Where the elements of a file's tensors are read from.
Storages = _ZipStorages | _LegacyStorages | _NoStorages


def check_zip_directory(f: io.BufferedReader, size: int) -> None:
    """Refuse an archive whose central directory is too large *before* zipfile reads it (a
    crafted end record can claim millions of members). Finds the end record the way zipfile
    does: at the very end, else the last one in the trailing 64 KiB comment."""
    tail_len = min(size, 22 + 65535 + 20)
    f.seek(size - tail_len)
    tail = f.read(tail_len)
    at = len(tail) - 22 if tail[-22:-18] == b"PK\x05\x06" else tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        raise Malformed("no zip end record")
    entries, directory = struct.unpack("<10xHL6x", tail[at:at + 22])
    if at >= 20 and tail[at - 20:at - 16] == b"PK\x06\x07":  # zip64 end record locator
        (offset,) = struct.unpack("<8xQ4x", tail[at - 20:at])
        if offset + 56 > size:
            raise Malformed("bad zip64 locator")
        f.seek(offset)
        record = f.read(56)
        if record[:4] != b"PK\x06\x06":
            raise Malformed("bad zip64 end record")
        entries, directory = struct.unpack("<32xQQ8x", record)
    if entries > MAX_MEMBERS or directory > MAX_CENTRAL_DIRECTORY:
        raise Malformed("archive directory too large")


def _read_zip(f: io.BufferedReader, size: int, machine: Machine) -> tuple[object, Storages]:
    check_zip_directory(f, size)
    f.seek(0)
    archive = zipfile.ZipFile(f)
    names = archive.namelist()
    if not names or "/" not in names[0]:
        raise Malformed("not a torch archive")
    prefix = names[0].split("/", 1)[0] + "/"
    info = archive.getinfo(prefix + "data.pkl")
    if info.file_size > MAX_PICKLE_BYTES:
        raise Malformed("data.pkl too large")
    with archive.open(info) as member:
        data = member.read(MAX_PICKLE_BYTES + 1)
    if len(data) > MAX_PICKLE_BYTES:
        raise Malformed("data.pkl too large")
    big_endian = False
    if prefix + "byteorder" in names:
        order = archive.getinfo(prefix + "byteorder")
        if order.file_size <= 16:
            big_endian = archive.read(order).strip() == b"big"
    top = machine.load(data)
    return top, _ZipStorages(archive, prefix, big_endian)


def _read_legacy(f: io.BufferedReader, size: int, machine: Machine,
                 refs: dict[str, StorageRef]) -> tuple[object, Storages]:
    f.seek(0)
    stream = _BoundedStream(f, MAX_PICKLE_BYTES)
    first = machine.load(stream)
    if not (isinstance(first, int) and first == _LEGACY_MAGIC):
        return first, _NoStorages()
    if machine.load(stream) != _LEGACY_PROTOCOL:
        raise Malformed("unknown legacy protocol")
    info = machine.load(stream)
    big_endian = isinstance(info, dict) and info.get("little_endian") is False
    top = machine.load(stream)
    keys = machine.load(stream)
    if (not isinstance(keys, list) or len(keys) > MAX_MEMBERS
            or not all(isinstance(key, str) for key in keys)):
        raise Malformed("bad storage keys")
    return top, _LegacyStorages(f, size, f.tell(), keys, refs, big_endian)


# ---------------------------------------------------------------------------------------------
# Public API


@contextmanager
def open_torch_file(path: str) -> Iterator[tuple[object, Storages]]:
    """The object ``torch.save`` wrote to ``path``, as plain values and placeholders, and
    the storages its tensors' elements are read from while the context is open. Raises one
    of :data:`DATA_ERRORS` when the file is not a regular file, malformed or out of bounds."""
    with open_regular(path) as (fd, info), os.fdopen(os.dup(fd), "rb") as f:
        values = _TorchValues()
        machine = Machine(persistent_load=values.persistent_load, interpret=values.interpret)
        if f.read(4) == ZIP_MAGIC:
            top, storages = _read_zip(f, info.st_size, machine)
        else:
            top, storages = _read_legacy(f, info.st_size, machine, values.storages)
        yield top, storages


__all__ = [
    "DATA_ERRORS", "MAX_ELEMENT_STORAGE_BYTES", "StorageRef", "Storages", "TensorRef",
    "ZIP_MAGIC", "check_zip_directory", "open_torch_file",
]
