"""What a PyTorch Lightning ``.ckpt`` says about its run's checkpoints, read without unpickling.

Lightning's ``ModelCheckpoint`` callback records in every checkpoint it writes which file is the
best so far, the scores of the top-k files, the k-th worst of them and the path of
``last.ckpt`` (``checkpoint["callbacks"]["ModelCheckpoint{...}"]``). That is exactly what a
cleanup must know to never remove the best or latest checkpoint, and it is more trustworthy
than a metric parsed out of a file name. But a ``.ckpt`` is a pickle, and unpickling (or
``torch.load``) a user's file runs whatever code it names; mlspace also needs no ML framework.
So this module reads the pickle as *data*:

- the file is opened only through :func:`mlspace.safe_read.open_regular` (no FIFOs, devices
  or symlinks), and only the members it needs are read from the torch zip archive:
  ``<name>/data.pkl`` and the few ``<name>/data/<key>`` storages holding the scores;
- ``data.pkl`` is decoded by :func:`pickletools.genops` (a parser that never imports or
  calls anything) and fed to a small stack machine, :class:`_Machine`, that builds only plain
  values (str, bytes, int, float, bool, None, tuple, list, dict, set). Every reference to a
  global, every call (REDUCE, NEWOBJ, INST, OBJ, BUILD) and every persistent id becomes an
  inert placeholder (:class:`Opaque`, :class:`StorageRef`, :class:`TensorRef`): nothing is
  imported, constructed or called. ``torch._utils._rebuild_tensor_v2(storage, offset, size,
  ...)`` becomes a :class:`TensorRef`, and a one-element one is turned into a float by reading
  its bytes from the storage member with :mod:`struct`;
- everything is bounded (member sizes, bytes of pickle, opcodes, string lengths, nesting,
  number of archive members, scores read) and anything out of bounds or malformed makes the
  whole read answer ``None``, never raise: a checkpoint's record is a hint, not a reason to
  fail a scan.

Old formats: a torch file saved before torch 1.6 (or with
``_use_new_zipfile_serialization=False``) is a sequence of pickles (magic number, protocol
version, system info, the object, its storage keys) followed by the raw storages; a plain
pickle with no preamble is read as the object itself (its tensors' values are then unknown).
Lightning before 1.5 keyed ``callbacks`` by the callback class (a pickled global, read here
as an :class:`Opaque` named ``...ModelCheckpoint``), and Lightning 0.8-0.9 stored
``checkpoint_callback_best_model_path``/``_score`` at the top level: both are understood.

Paths in the state are as the training process saw them (absolute on the training machine,
or relative to its working directory): :func:`match_recorded_path` maps one to a file that is
actually here by comparing path suffixes.
"""

from __future__ import annotations

import io
import math
import os
import pickletools
import re
import stat
import struct
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from mlspace.safe_read import Unreadable, open_regular

# ---------------------------------------------------------------------------------------------
# Bounds. A real checkpoint's pickle is small (tensors live in separate storages): a 7B-param
# model with optimizer state has a data.pkl of a few MiB and well under a million opcodes.

#: Largest ``data.pkl`` (or legacy pickle stream) read, in bytes.
MAX_PICKLE_BYTES = 64 * 2**20
#: Most opcodes interpreted in one file (all its pickles together).
MAX_OPCODES = 2_000_000
#: Longest single str/bytes value in the pickle.
MAX_STRING_BYTES = 16 * 2**20
#: Largest integer kept (in bits); pickled ints in a checkpoint are small.
MAX_INT_BITS = 1024
#: Deepest nesting of containers (a real checkpoint nests a dozen levels).
MAX_DEPTH = 200
#: Deepest MARK nesting (pending ``(`` of the pickle stack machine).
MAX_MARKS = 2 * MAX_DEPTH
#: Most members in the zip archive, and largest central directory, in bytes.
MAX_MEMBERS = 200_000
MAX_CENTRAL_DIRECTORY = 32 * 2**20
#: Largest storage member a score is read from (a score's storage holds one element).
MAX_SCORE_STORAGE_BYTES = 16 * 2**20
#: Most scores read from storages in one file (a ``save_top_k=-1`` run records one per file).
MAX_SCORES = 10_000
#: Most ModelCheckpoint states kept from one file.
MAX_STATES = 64
#: Most ``.ckpt`` files :func:`read_folder_state` tries before giving up on a folder.
MAX_FOLDER_FILES = 8

_LINE_BYTES = 64 * 2**10  # longest text line (protocol 0 opcodes) read from a stream
_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001
_ZIP_MAGIC = b"PK\x03\x04"


class _Malformed(Exception):
    """Out of bounds or not what a torch checkpoint looks like: the read answers None."""


# Data errors the parsers and zipfile raise on malformed input. Anything else (AttributeError,
# NameError, AssertionError) would be a bug here and is left to surface.
_DATA_ERRORS = (
    _Malformed, Unreadable, OSError, EOFError, ValueError, LookupError, TypeError,
    ArithmeticError, struct.error, zipfile.BadZipFile, RuntimeError, MemoryError, Warning,
)

# ---------------------------------------------------------------------------------------------
# Placeholders: what the pickle would have built, recorded and never built. eq=False keeps
# them hashable by identity, so they can be dict keys the way the real objects would be.


@dataclass(eq=False)
class Opaque:
    """A global (``module qualname``, ``is_global``) or what calling or constructing one
    would have given (its name, the arguments, and the state a BUILD would have set)."""

    name: str
    args: tuple = ()
    state: object = None
    is_global: bool = False


@dataclass(eq=False)
class StorageRef:
    """A persistent id naming a tensor storage: ``data/<key>`` in a zip archive, or the
    storage of that key in a legacy file. ``base`` is a legacy view's offset, in elements."""

    key: str
    dtype: str | None  # a key of _DTYPES, None when the storage type is not one we read
    element_size: int | None
    numel: int
    base: int = 0


@dataclass(eq=False)
class TensorRef:
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

_TENSOR_REBUILDERS = frozenset({
    "torch._utils _rebuild_tensor_v2", "torch._utils _rebuild_tensor",
    "torch._utils _rebuild_tensor_v3",
})
_PARAMETER_REBUILDERS = frozenset({
    "torch._utils _rebuild_parameter", "torch._utils _rebuild_parameter_with_state",
})
# Calls whose result is a container the pickle then fills (SETITEMS on an OrderedDict).
_DICT_FACTORIES = frozenset({
    "collections OrderedDict", "builtins dict", "__builtin__ dict", "collections defaultdict",
})
_SET_FACTORIES = frozenset({"builtins set", "__builtin__ set", "builtins frozenset",
                            "__builtin__ frozenset"})
_NUMPY_SCALARS = frozenset({"numpy.core.multiarray scalar", "numpy._core.multiarray scalar"})
_SMALL_INT = 2**61 - 1  # below this, distinct ints hash apart (see _key)

_CONTAINERS = (list, dict, tuple, set, frozenset, Opaque)


# ---------------------------------------------------------------------------------------------
# The stack machine


class _Machine:
    """Interprets the opcodes :func:`pickletools.genops` decodes, with the semantics of
    :class:`pickle.Unpickler` for plain values and placeholders for everything else.

    It never recurses (so deep nesting cannot overflow anything) and never hashes a
    structured value: a dict key or set element that is not a str, bytes, small int, float,
    bool, None or placeholder is wrapped in a fresh :class:`Opaque`, so no crafted tuple can
    make hashing slow (colliding keys) or deep. Nesting depth is tracked as containers are
    filled and capped at :data:`MAX_DEPTH`."""

    def __init__(self) -> None:
        self.opcodes_left = MAX_OPCODES
        self.storages: dict[str, StorageRef] = {}  # every storage a persistent id named
        self._depth: dict[int, int] = {}
        self._pinned: list[object] = []  # keeps ids in _depth from being reused
        self._handlers: dict[str, Callable[[object], None]] = {
            **dict.fromkeys(("INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4"),
                            self.op_int),
            **dict.fromkeys(("FLOAT", "BINFLOAT"), self.op_float),
            **dict.fromkeys(("STRING", "BINSTRING", "SHORT_BINSTRING", "BINBYTES",
                             "SHORT_BINBYTES", "BINBYTES8", "UNICODE", "SHORT_BINUNICODE",
                             "BINUNICODE", "BINUNICODE8", "BYTEARRAY8"), self.op_string),
            "NONE": lambda arg: self.stack.append(None),
            "NEWTRUE": lambda arg: self.stack.append(True),
            "NEWFALSE": lambda arg: self.stack.append(False),
            "EMPTY_LIST": lambda arg: self.stack.append([]),
            "EMPTY_DICT": lambda arg: self.stack.append({}),
            "EMPTY_TUPLE": lambda arg: self.stack.append(()),
            "EMPTY_SET": lambda arg: self.stack.append(set()),
            "LIST": self.op_list, "TUPLE": self.op_tuple,
            "TUPLE1": lambda arg: self._tuple_n(1), "TUPLE2": lambda arg: self._tuple_n(2),
            "TUPLE3": lambda arg: self._tuple_n(3),
            "DICT": self.op_dict, "FROZENSET": self.op_frozenset,
            "APPEND": self.op_append, "APPENDS": self.op_appends, "ADDITEMS": self.op_additems,
            "SETITEM": self.op_setitem, "SETITEMS": self.op_setitems,
            "POP": self.op_pop, "POP_MARK": lambda arg: self._pop_mark(),
            "DUP": lambda arg: self.stack.append(self._top()), "MARK": self.op_mark,
            **dict.fromkeys(("GET", "BINGET", "LONG_BINGET"), self.op_get),
            **dict.fromkeys(("PUT", "BINPUT", "LONG_BINPUT"), self.op_put),
            "MEMOIZE": self.op_memoize,
            "GLOBAL": self.op_global, "STACK_GLOBAL": self.op_stack_global,
            **dict.fromkeys(("EXT1", "EXT2", "EXT4"),
                            lambda arg: self.stack.append(Opaque(f"extension {arg}"))),
            "REDUCE": self.op_reduce, "NEWOBJ": self.op_reduce,
            "NEWOBJ_EX": self.op_newobj_ex, "INST": self.op_inst, "OBJ": self.op_obj,
            "BUILD": self.op_build,
            "PERSID": lambda arg: self.stack.append(Opaque("persistent id", (arg,))),
            "BINPERSID": lambda arg: self.stack.append(self._persistent(self._pop())),
            "PROTO": self.op_proto, "FRAME": lambda arg: None,
            "READONLY_BUFFER": lambda arg: None, "NEXT_BUFFER": self.op_next_buffer,
            "STOP": self.op_stop,
        }

    # -- running ---------------------------------------------------------------------------

    def load(self, source: bytes | _BoundedStream) -> object:
        """The value of the next pickle in ``source``."""
        self.stack: list[object] = []
        self.metastack: list[list[object]] = []
        self.memo: dict[int, object] = {}
        self.result: object = _NOTHING
        handlers = self._handlers
        for opcode, arg, _pos in pickletools.genops(source):
            self.opcodes_left -= 1
            if self.opcodes_left < 0:
                raise _Malformed("too many opcodes")
            handler = handlers.get(opcode.name)
            if handler is None:
                raise _Malformed(f"opcode {opcode.name}")
            handler(arg)
        if self.result is _NOTHING:
            raise _Malformed("no STOP")
        return self.result

    # -- helpers ---------------------------------------------------------------------------

    def _pop(self) -> object:
        if not self.stack:
            raise _Malformed("stack underflow")
        return self.stack.pop()

    def _top(self) -> object:
        if not self.stack:
            raise _Malformed("stack underflow")
        return self.stack[-1]

    def _pop_mark(self) -> list[object]:
        if not self.metastack:
            raise _Malformed("no MARK")
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def _nest(self, parent: object, child: object) -> None:
        """Note that ``child`` now sits inside ``parent``; refuse too deep a nesting."""
        if not isinstance(child, _CONTAINERS):
            return
        depth = self._depth.get(id(child), 0) + 1
        if depth > self._depth.get(id(parent), 0):
            if depth > MAX_DEPTH:
                raise _Malformed("nested too deep")
            if id(parent) not in self._depth:
                self._pinned.append(parent)
            self._depth[id(parent)] = depth

    def _new(self, container: object, items: Iterable[object]) -> object:
        for item in items:
            self._nest(container, item)
        return container

    @staticmethod
    def _key(value: object) -> object:
        """``value`` as a dict key or set element that hashes in constant time."""
        if isinstance(value, (str, bytes, float, bool, Opaque, StorageRef, TensorRef)):
            return value
        if value is None or (isinstance(value, int) and -_SMALL_INT < value < _SMALL_INT):
            return value
        return Opaque("key", (value,))

    def _set_items(self, target: object, items: list[object]) -> None:
        if len(items) % 2:
            raise _Malformed("odd SETITEMS")
        if isinstance(target, dict):
            for i in range(0, len(items), 2):
                target[self._key(items[i])] = items[i + 1]
                self._nest(target, items[i + 1])
        elif not isinstance(target, Opaque):  # an object's __setitem__: not run
            raise _Malformed("SETITEM on a plain value")

    def _add_items(self, target: object, items: list[object]) -> None:
        if isinstance(target, list):
            target.extend(items)
            self._new(target, items)
        elif isinstance(target, set):
            target.update(self._key(item) for item in items)
        elif not isinstance(target, Opaque):
            raise _Malformed("APPEND to a plain value")

    def _call(self, func: object, args: object) -> object:
        """What calling ``func(*args)`` is recorded as. Nothing is called."""
        name = func.name if isinstance(func, Opaque) and func.is_global else ""
        if not isinstance(args, tuple):
            return Opaque(name, (args,))
        if name in _TENSOR_REBUILDERS:
            return self._tensor(name, args)
        if name in _PARAMETER_REBUILDERS and args and isinstance(args[0], TensorRef):
            return args[0]
        if name in _DICT_FACTORIES:
            return {}
        if name in _SET_FACTORIES and len(args) == 1 and isinstance(args[0], list):
            return {self._key(item) for item in args[0]}
        if (name == "_codecs encode" and len(args) == 2 and isinstance(args[0], str)
                and args[1] in ("latin1", "latin-1")):
            # how protocols 0-2 (torch.save uses 2) spell bytes: a pure conversion
            return args[0].encode("latin-1")
        if name in ("builtins bytes", "__builtin__ bytes") and not args:
            return b""
        if name in _NUMPY_SCALARS:
            value = _numpy_scalar(args)
            if value is not None:
                return value
        return self._new(Opaque(name, args), args)

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

    def _persistent(self, pid: object) -> object:
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

    # -- opcodes ---------------------------------------------------------------------------

    def op_int(self, arg: object) -> None:
        if isinstance(arg, int) and arg.bit_length() > MAX_INT_BITS:
            raise _Malformed("integer too large")
        self.stack.append(arg)

    def op_float(self, arg: object) -> None:
        self.stack.append(arg)

    def op_string(self, arg: object) -> None:
        if isinstance(arg, bytearray):
            arg = bytes(arg)
        if isinstance(arg, (str, bytes)) and len(arg) > MAX_STRING_BYTES:
            raise _Malformed("string too long")
        self.stack.append(arg)

    def op_list(self, arg: object) -> None:
        items = self._pop_mark()
        self.stack.append(self._new(list(items), items))

    def op_tuple(self, arg: object) -> None:
        items = self._pop_mark()
        self.stack.append(self._new(tuple(items), items))

    def _tuple_n(self, n: int) -> None:
        if len(self.stack) < n:
            raise _Malformed("stack underflow")
        items = self.stack[len(self.stack) - n:]
        del self.stack[len(self.stack) - n:]
        self.stack.append(self._new(tuple(items), items))

    def op_dict(self, arg: object) -> None:
        items = self._pop_mark()
        target: dict = {}
        self._set_items(target, items)
        self.stack.append(target)

    def op_frozenset(self, arg: object) -> None:
        items = self._pop_mark()  # before reading self.stack: popping the mark replaces it
        self.stack.append(frozenset(self._key(item) for item in items))

    def op_append(self, arg: object) -> None:
        value = self._pop()
        self._add_items(self._top(), [value])

    def op_appends(self, arg: object) -> None:
        items = self._pop_mark()
        self._add_items(self._top(), items)

    def op_additems(self, arg: object) -> None:
        items = self._pop_mark()
        target = self._top()
        if not isinstance(target, (set, Opaque)):
            raise _Malformed("ADDITEMS to a non-set")
        self._add_items(target, items)

    def op_setitem(self, arg: object) -> None:
        value = self._pop()
        key = self._pop()
        self._set_items(self._top(), [key, value])

    def op_setitems(self, arg: object) -> None:
        items = self._pop_mark()
        self._set_items(self._top(), items)

    def op_pop(self, arg: object) -> None:
        if self.stack:
            self.stack.pop()
        else:
            self._pop_mark()

    def op_mark(self, arg: object) -> None:
        if len(self.metastack) >= MAX_MARKS:
            raise _Malformed("MARKs nested too deep")
        self.metastack.append(self.stack)
        self.stack = []

    def op_get(self, arg: object) -> None:
        if not isinstance(arg, int) or arg not in self.memo:
            raise _Malformed("memo miss")
        self.stack.append(self.memo[arg])

    def op_put(self, arg: object) -> None:
        if not isinstance(arg, int) or arg < 0:
            raise _Malformed("bad memo index")
        self.memo[arg] = self._top()

    def op_memoize(self, arg: object) -> None:
        self.memo[len(self.memo)] = self._top()

    def op_global(self, arg: object) -> None:
        if not isinstance(arg, str):
            raise _Malformed("bad GLOBAL")
        self.stack.append(Opaque(arg, is_global=True))

    def op_stack_global(self, arg: object) -> None:
        name = self._pop()
        module = self._pop()
        if not (isinstance(module, str) and isinstance(name, str)):
            raise _Malformed("bad STACK_GLOBAL")
        self.stack.append(Opaque(f"{module} {name}", is_global=True))

    def op_reduce(self, arg: object) -> None:
        """REDUCE ``func(*args)`` and NEWOBJ ``cls.__new__(cls, *args)``: recorded only."""
        args = self._pop()
        func = self._pop()
        self.stack.append(self._call(func, args))

    def op_newobj_ex(self, arg: object) -> None:
        self._pop()  # kwargs
        self.op_reduce(arg)

    def op_inst(self, arg: object) -> None:
        if not isinstance(arg, str):
            raise _Malformed("bad INST")
        items = self._pop_mark()
        self.stack.append(self._call(Opaque(arg, is_global=True), tuple(items)))

    def op_obj(self, arg: object) -> None:
        items = self._pop_mark()
        if not items:
            raise _Malformed("empty OBJ")
        self.stack.append(self._call(items[0], tuple(items[1:])))

    def op_build(self, arg: object) -> None:
        state = self._pop()
        target = self._top()
        if isinstance(target, Opaque):  # __setstate__ is not run: the state is recorded
            target.state = state
            self._nest(target, state)

    def op_proto(self, arg: object) -> None:
        if not isinstance(arg, int) or not 0 <= arg <= 5:
            raise _Malformed("unknown protocol")

    def op_next_buffer(self, arg: object) -> None:
        raise _Malformed("out-of-band buffer")

    def op_stop(self, arg: object) -> None:
        self.result = self._pop()


_NOTHING = object()


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
            raise _Malformed("pickle larger than allowed")
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
        if info.file_size > MAX_SCORE_STORAGE_BYTES or start + ref.element_size > info.file_size:
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


_Storages = _ZipStorages | _LegacyStorages | _NoStorages


def _check_zip_directory(f: io.BufferedReader, size: int) -> None:
    """Refuse an archive whose central directory is too large *before* zipfile reads it (a
    crafted end record can claim millions of members). Finds the end record the way zipfile
    does: at the very end, else the last one in the trailing 64 KiB comment."""
    tail_len = min(size, 22 + 65535 + 20)
    f.seek(size - tail_len)
    tail = f.read(tail_len)
    at = len(tail) - 22 if tail[-22:-18] == b"PK\x05\x06" else tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        raise _Malformed("no zip end record")
    entries, directory = struct.unpack("<10xHL6x", tail[at:at + 22])
    if at >= 20 and tail[at - 20:at - 16] == b"PK\x06\x07":  # zip64 end record locator
        (offset,) = struct.unpack("<8xQ4x", tail[at - 20:at])
        if offset + 56 > size:
            raise _Malformed("bad zip64 locator")
        f.seek(offset)
        record = f.read(56)
        if record[:4] != b"PK\x06\x06":
            raise _Malformed("bad zip64 end record")
        entries, directory = struct.unpack("<32xQQ8x", record)
    if entries > MAX_MEMBERS or directory > MAX_CENTRAL_DIRECTORY:
        raise _Malformed("archive directory too large")


def _read_zip(f: io.BufferedReader, size: int, machine: _Machine) -> tuple[object, _Storages]:
    _check_zip_directory(f, size)
    f.seek(0)
    archive = zipfile.ZipFile(f)
    names = archive.namelist()
    if not names or "/" not in names[0]:
        raise _Malformed("not a torch archive")
    prefix = names[0].split("/", 1)[0] + "/"
    info = archive.getinfo(prefix + "data.pkl")
    if info.file_size > MAX_PICKLE_BYTES:
        raise _Malformed("data.pkl too large")
    with archive.open(info) as member:
        data = member.read(MAX_PICKLE_BYTES + 1)
    if len(data) > MAX_PICKLE_BYTES:
        raise _Malformed("data.pkl too large")
    big_endian = False
    if prefix + "byteorder" in names:
        order = archive.getinfo(prefix + "byteorder")
        if order.file_size <= 16:
            big_endian = archive.read(order).strip() == b"big"
    top = machine.load(data)
    return top, _ZipStorages(archive, prefix, big_endian)


def _read_legacy(f: io.BufferedReader, size: int, machine: _Machine) -> tuple[object, _Storages]:
    f.seek(0)
    stream = _BoundedStream(f, MAX_PICKLE_BYTES)
    first = machine.load(stream)
    if not (isinstance(first, int) and first == _LEGACY_MAGIC):
        return first, _NoStorages()
    if machine.load(stream) != _LEGACY_PROTOCOL:
        raise _Malformed("unknown legacy protocol")
    info = machine.load(stream)
    big_endian = isinstance(info, dict) and info.get("little_endian") is False
    top = machine.load(stream)
    keys = machine.load(stream)
    if (not isinstance(keys, list) or len(keys) > MAX_MEMBERS
            or not all(isinstance(key, str) for key in keys)):
        raise _Malformed("bad storage keys")
    return top, _LegacyStorages(f, size, f.tell(), keys, machine.storages, big_endian)


# ---------------------------------------------------------------------------------------------
# What is read


@dataclass(frozen=True)
class LightningCheckpointState:
    """One ``ModelCheckpoint`` callback's state as saved in a checkpoint. Paths are as the
    training process recorded them (see :func:`match_recorded_path`), None when empty or
    absent (Lightning records "" for a last.ckpt it never wrote); scores are floats (possibly
    inf or nan), None when absent or unreadable (not a one-element tensor or number, or a
    dtype not read)."""

    state_key: str  # "ModelCheckpoint{'monitor': ...}", or the class name (Lightning < 1.5)
    monitor: str | None
    mode: str | None  # "min" or "max"; None when neither the key nor the scores tell
    best_model_path: str | None
    best_model_score: float | None
    current_score: float | None
    best_k_models: tuple[tuple[str, float | None], ...]  # in the order they were recorded
    kth_best_model_path: str | None
    kth_value: float | None
    last_model_path: str | None
    dirpath: str | None

    def recorded_paths(self) -> tuple[str, ...]:
        """Every checkpoint path this state names, best first, without repeats."""
        paths = [self.best_model_path, *(path for path, _ in self.best_k_models),
                 self.kth_best_model_path, self.last_model_path]
        return tuple(dict.fromkeys(path for path in paths if path))


@dataclass(frozen=True)
class LightningCheckpointFile:
    """What one ``.ckpt`` holds that mlspace uses: every ModelCheckpoint state in it (in the
    order the file lists them; several when a run had several ModelCheckpoint callbacks,
    none for a checkpoint written without one or by plain ``torch.save``)."""

    path: str
    epoch: int | None
    global_step: int | None
    lightning_version: str | None
    states: tuple[LightningCheckpointState, ...]

    def state_for(self, folder: str | None = None,
                  files: Iterable[str] = ()) -> LightningCheckpointState | None:
        """The state that describes ``folder`` (default: the folder of this file). With
        several callbacks it is the one whose ``dirpath`` shares the longest path suffix with
        the folder, then the one naming most of ``files`` (paths of the files that are there),
        then one that monitors a metric, then the first."""
        if not self.states:
            return None
        folder_parts = _parts(folder if folder is not None else os.path.dirname(self.path))
        present = _by_basename(files)

        def rank(state: LightningCheckpointState) -> tuple[int, int, int]:
            suffix = _common_suffix(_parts(state.dirpath or ""), folder_parts)
            named = sum(1 for _ in _matches(state, present))
            return suffix, named, state.monitor is not None

        return max(self.states, key=rank)  # max keeps the first of equals


@dataclass(frozen=True)
class FolderState:
    """The ModelCheckpoint state chosen for a folder, and the file it was read from."""

    source: LightningCheckpointFile
    state: LightningCheckpointState


_KEY_MODE = re.compile(r"""['"]mode['"]\s*:\s*['"](min|max)['"]""")
_KEY_MONITOR = re.compile(r"""['"]monitor['"]\s*:\s*'((?:[^'\\]|\\.)*)'""")
_STATE_FIELDS = ("best_model_path", "best_k_models", "best_model_score", "kth_best_model_path",
                 "last_model_path")


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class _Scores:
    """Turns recorded scores into floats, reading at most :data:`MAX_SCORES` elements."""

    def __init__(self, storages: _Storages) -> None:
        self._storages = storages
        self._left = MAX_SCORES

    def __call__(self, value: object) -> float | None:
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, float):
            return value
        if isinstance(value, int):
            return float(value) if abs(value) < 2**1000 else None
        if not isinstance(value, TensorRef) or math.prod(value.size) != 1:
            return None
        self._left -= 1
        if self._left < 0:
            raise _Malformed("too many scores")
        return self._storages.element(value.storage, value.offset)


def _mode(key_mode: str | None, best: float | None, kth: float | None,
          best_k: tuple[tuple[str, float | None], ...]) -> str | None:
    """The configured mode: from the state key when it says; else from the scores (the best
    is below the k-th for "min"; before top-k fills up, kth_value is still +inf for "min"
    and -inf for "max", as Lightning initialises it)."""
    if key_mode is not None:
        return key_mode
    if kth is not None and not math.isnan(kth):
        if best is not None and not math.isnan(best) and best != kth:
            return "min" if best < kth else "max"
        if best is None and math.isinf(kth):
            return "min" if kth > 0 else "max"
    scores = {score for _, score in best_k if score is not None and not math.isnan(score)}
    if best is not None and len(scores) > 1:
        if best == min(scores):
            return "min"
        if best == max(scores):
            return "max"
    return None


def _state(key: object, value: dict, score: _Scores) -> LightningCheckpointState:
    if isinstance(key, str):
        state_key = key
    elif isinstance(key, Opaque):
        state_key = key.name.rpartition(" ")[2]
    else:
        state_key = "ModelCheckpoint"
    key_text = state_key[:4096]
    mode_match = _KEY_MODE.search(key_text)
    monitor = _text(value.get("monitor"))
    if monitor is None and (found := _KEY_MONITOR.search(key_text)):
        monitor = found.group(1)
    best_k: list[tuple[str, float | None]] = []
    recorded = value.get("best_k_models")
    if isinstance(recorded, dict):
        for path, recorded_score in recorded.items():
            if isinstance(path, str):
                best_k.append((path, score(recorded_score)))
    best = score(value.get("best_model_score"))
    kth = score(value.get("kth_value"))
    top_k = tuple(best_k)
    return LightningCheckpointState(
        state_key=state_key,
        monitor=monitor,
        mode=_mode(mode_match.group(1) if mode_match else None, best, kth, top_k),
        best_model_path=_text(value.get("best_model_path")) or None,
        best_model_score=best,
        current_score=score(value.get("current_score")),
        best_k_models=top_k,
        kth_best_model_path=_text(value.get("kth_best_model_path")) or None,
        kth_value=kth,
        last_model_path=_text(value.get("last_model_path")) or None,
        dirpath=_text(value.get("dirpath")) or None,
    )


def _is_checkpoint_key(key: object) -> bool:
    if isinstance(key, Opaque):
        return key.is_global and key.name.endswith("ModelCheckpoint")
    return isinstance(key, str)


def _states(top: dict, score: _Scores) -> tuple[LightningCheckpointState, ...]:
    states: list[LightningCheckpointState] = []
    callbacks = top.get("callbacks")
    if isinstance(callbacks, dict):
        for key, value in callbacks.items():
            if (isinstance(value, dict) and _is_checkpoint_key(key)
                    and any(name in value for name in _STATE_FIELDS)):
                states.append(_state(key, value, score))
                if len(states) >= MAX_STATES:
                    break
    if not states and ("checkpoint_callback_best_model_path" in top
                       or "checkpoint_callback_best_model_score" in top
                       or "checkpoint_callback_best" in top):  # Lightning 0.7-0.9
        best = score(top.get("checkpoint_callback_best_model_score",
                             top.get("checkpoint_callback_best")))
        states.append(LightningCheckpointState(
            state_key="ModelCheckpoint", monitor=None, mode=None,
            best_model_path=_text(top.get("checkpoint_callback_best_model_path")) or None,
            best_model_score=best, current_score=None, best_k_models=(),
            kth_best_model_path=None, kth_value=None, last_model_path=None, dirpath=None))
    return tuple(states)


def _read(path: str) -> LightningCheckpointFile | None:
    with open_regular(path) as (fd, info), os.fdopen(os.dup(fd), "rb") as f:
        size = info.st_size
        machine = _Machine()
        if f.read(4) == _ZIP_MAGIC:
            top, storages = _read_zip(f, size, machine)
        else:
            top, storages = _read_legacy(f, size, machine)
        if not isinstance(top, dict):
            return LightningCheckpointFile(path, None, None, None, ())
        version = top.get("pytorch-lightning_version")
        return LightningCheckpointFile(
            path=path,
            epoch=_int(top.get("epoch")),
            global_step=_int(top.get("global_step")),
            lightning_version=version[:64] if isinstance(version, str) else None,
            states=_states(top, _Scores(storages)),
        )


# ---------------------------------------------------------------------------------------------
# Public API


def read_checkpoint_file(path: str) -> LightningCheckpointFile | None:
    """What ``path`` records, or None when it is not a readable torch checkpoint (not a
    regular file, malformed, out of bounds). A readable checkpoint without a ModelCheckpoint
    state gives a file with no states."""
    try:
        return _read(path)
    except _DATA_ERRORS:
        return None


def read_model_checkpoint_state(path: str) -> LightningCheckpointState | None:
    """The ModelCheckpoint state ``path`` records for its own folder (see
    :meth:`LightningCheckpointFile.state_for` for which one when there are several)."""
    found = read_checkpoint_file(path)
    return found.state_for() if found is not None else None


# Lightning's CHECKPOINT_NAME_LAST, with the -vN it adds when the name is taken.
_LAST_NAME = re.compile(r"(?:.*[-_])?last(?:-v\d+)?\.ckpt", re.IGNORECASE)


def _newest_first(paths: Iterable[str]) -> list[str]:
    """``.ckpt`` regular files, ``last*.ckpt`` first, then newest first (by mtime)."""
    found: list[tuple[bool, float, str]] = []
    for path in paths:
        if not path.lower().endswith(".ckpt"):
            continue
        try:
            info = os.stat(path, follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            is_last = _LAST_NAME.fullmatch(os.path.basename(path)) is not None
            found.append((not is_last, -info.st_mtime, path))
    return [path for *_, path in sorted(found)]


def read_folder_state(paths: Iterable[str], *,
                      max_files: int = MAX_FOLDER_FILES) -> FolderState | None:
    """The ModelCheckpoint state of a folder, given the paths of the files in it: read from
    ``last.ckpt`` when it is readable (it is written after the top-k files, so it is the
    latest), else from the newest ``.ckpt`` that holds one; at most ``max_files`` files are
    tried. The state picked is the one that names the most of these files (see
    :meth:`LightningCheckpointFile.state_for`)."""
    listed = list(paths)
    for path in _newest_first(listed)[:max_files]:
        found = read_checkpoint_file(path)
        if found is not None and found.states:
            chosen = found.state_for(os.path.dirname(path), listed)
            if chosen is not None:
                return FolderState(found, chosen)
    return None


def _parts(path: str) -> list[str]:
    """Components of a path from any OS (``/`` or ``\\``), without empty and ``.`` parts."""
    return [part for part in re.split(r"[\\/]", path) if part not in ("", ".")]


def _common_suffix(a: list[str], b: list[str]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def match_recorded_path(recorded: str, candidates: Iterable[str]) -> str | None:
    """The candidate that is the file a recorded path names: the one with the same basename,
    and among several, the one sharing the longest path suffix with it (parent folder, then
    grandparent, ...). None when no basename matches or the best match is a tie."""
    wanted = _parts(recorded)
    if not wanted:
        return None
    best: str | None = None
    best_len, tie = 0, False
    for candidate in candidates:
        length = _common_suffix(wanted, _parts(candidate))
        if length > best_len:
            best, best_len, tie = candidate, length, False
        elif length == best_len and length > 0 and candidate != best:
            tie = True
    return None if tie else best


def _by_basename(paths: Iterable[str]) -> dict[str, list[str]]:
    index: dict[str, list[str]] = {}
    for path in paths:
        parts = _parts(path)
        if parts:
            index.setdefault(parts[-1], []).append(path)
    return index


def _matches(state: LightningCheckpointState,
             index: dict[str, list[str]]) -> Iterator[tuple[str, str]]:
    for recorded in state.recorded_paths():
        parts = _parts(recorded)
        found = match_recorded_path(recorded, index.get(parts[-1], ())) if parts else None
        if found is not None:
            yield recorded, found


def iter_recorded_files(state: LightningCheckpointState,
                        candidates: Iterable[str]) -> Iterator[tuple[str, str]]:
    """``(recorded path, file here)`` for each path of ``state`` that matches one of
    ``candidates`` (see :func:`match_recorded_path`), best first."""
    yield from _matches(state, _by_basename(candidates))


__all__ = [
    "MAX_PICKLE_BYTES", "FolderState", "LightningCheckpointFile", "LightningCheckpointState",
    "Opaque", "StorageRef", "TensorRef", "iter_recorded_files", "match_recorded_path",
    "read_checkpoint_file", "read_folder_state", "read_model_checkpoint_state",
]
