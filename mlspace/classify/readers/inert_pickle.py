"""Read a pickle as data: a stack machine that never imports, constructs or calls anything.

A pickle is a program for :class:`pickle.Unpickler`, and unpickling a user's file runs
whatever code it names. This module walks the opcodes :func:`pickletools.genops` decodes (a
parser that never imports or calls anything) with :class:`Machine`, which builds only plain
values (str, bytes, int, float, bool, None, tuple, list, dict, set, frozenset). Every
reference to a global, every call (REDUCE, NEWOBJ, INST, OBJ, BUILD) and every persistent id
becomes an inert placeholder (:mod:`mlspace.classify.readers.pickle_values`): nothing is
imported, constructed or called.

A format built on pickle can recognise some of its own calls without running them, through
the two hooks :class:`pickle.Unpickler` also has: ``persistent_load`` (what a persistent id
stands for) and ``interpret`` (what a call to a named global stands for, when it is a pure
conversion of plain values). :mod:`mlspace.classify.readers.torch_archive` uses them for
torch's storages and tensors.

Everything is bounded (bytes read, opcodes, string lengths, integer sizes, nesting) and
anything out of bounds or malformed raises one of :data:`PICKLE_ERRORS`, never anything
else: callers treat the pickle as unreadable.
"""

from __future__ import annotations

import pickletools
import struct
from collections.abc import Callable, Iterable
from typing import Protocol

from mlspace.classify.readers.pickle_values import (
    CONTAINERS,
    NOT_CONVERTED,
    Opaque,
    converted,
    opaque_persistent_id,
    safe_key,
)

# Bounds. A real checkpoint's pickle is small (tensors live in separate storages): a 7B-param
# model with optimizer state has a data.pkl of a few MiB and well under a million opcodes.

#: Largest pickle (a ``data.pkl``, or a legacy file's pickle stream) read, in bytes.
MAX_PICKLE_BYTES = 64 * 2**20
#: Most opcodes interpreted by one machine (all the pickles of a file together).
MAX_OPCODES = 2_000_000
#: Longest single str/bytes value in the pickle.
MAX_STRING_BYTES = 16 * 2**20
#: Largest integer kept (in bits); pickled ints in a checkpoint are small.
MAX_INT_BITS = 1024
#: Deepest nesting of containers (a real checkpoint nests a dozen levels).
MAX_DEPTH = 200
#: Deepest MARK nesting (pending ``(`` of the pickle stack machine).
MAX_MARKS = 2 * MAX_DEPTH


class Malformed(Exception):
    """Out of bounds or not a pickle this machine reads: the read answers nothing."""


# Data errors pickletools and the machine raise on malformed input. Anything else
# (AttributeError, NameError, AssertionError) would be a bug here and is left to surface.
PICKLE_ERRORS = (
    Malformed, EOFError, ValueError, LookupError, TypeError, ArithmeticError, struct.error,
    RuntimeError, MemoryError, Warning,
)


class PickleStream(Protocol):
    """What :func:`pickletools.genops` reads a pickle from, besides bytes."""

    def read(self, n: int = -1) -> bytes: ...

    def readline(self) -> bytes: ...

    def tell(self) -> int: ...


# ---------------------------------------------------------------------------------------------
# The stack machine


class Machine:
    """Interprets the opcodes :func:`pickletools.genops` decodes, with the semantics of
    :class:`pickle.Unpickler` for plain values and placeholders for everything else.

    It never recurses (so deep nesting cannot overflow anything) and never hashes a
    structured value: a dict key or set element that is not a str, bytes, small int, float,
    bool, None or placeholder is wrapped in a fresh :class:`Opaque`, so no crafted tuple can
    make hashing slow (colliding keys) or deep. Nesting depth is tracked as containers are
    filled and capped at :data:`MAX_DEPTH`."""

    def __init__(self, *, persistent_load: Callable[[object], object] | None = None,
                 interpret: Callable[[str, tuple], object | None] | None = None) -> None:
        self.opcodes_left = MAX_OPCODES
        self._persistent_load = persistent_load or opaque_persistent_id
        self._interpret = interpret
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
            "BINPERSID": lambda arg: self.stack.append(self._persistent_load(self._pop())),
            "PROTO": self.op_proto, "FRAME": lambda arg: None,
            "READONLY_BUFFER": lambda arg: None, "NEXT_BUFFER": self.op_next_buffer,
            "STOP": self.op_stop,
        }

    # -- running ---------------------------------------------------------------------------

    def load(self, source: bytes | PickleStream) -> object:
        """The value of the next pickle in ``source``."""
        self.stack: list[object] = []
        self.metastack: list[list[object]] = []
        self.memo: dict[int, object] = {}
        self.result: object = _NOTHING
        handlers = self._handlers
        for opcode, arg, _pos in pickletools.genops(source):
            self.opcodes_left -= 1
            if self.opcodes_left < 0:
                raise Malformed("too many opcodes")
            handler = handlers.get(opcode.name)
            if handler is None:
                raise Malformed(f"opcode {opcode.name}")
            handler(arg)
        if self.result is _NOTHING:
            raise Malformed("no STOP")
        return self.result

    # -- helpers ---------------------------------------------------------------------------

    def _pop(self) -> object:
        if not self.stack:
            raise Malformed("stack underflow")
        return self.stack.pop()

    def _top(self) -> object:
        if not self.stack:
            raise Malformed("stack underflow")
        return self.stack[-1]

    def _pop_mark(self) -> list[object]:
        if not self.metastack:
            raise Malformed("no MARK")
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def _nest(self, parent: object, child: object) -> None:
        """Note that ``child`` now sits inside ``parent``; refuse too deep a nesting."""
        if not isinstance(child, CONTAINERS):
            return
        depth = self._depth.get(id(child), 0) + 1
        if depth > self._depth.get(id(parent), 0):
            if depth > MAX_DEPTH:
                raise Malformed("nested too deep")
            if id(parent) not in self._depth:
                self._pinned.append(parent)
            self._depth[id(parent)] = depth

    def _new(self, container: object, items: Iterable[object]) -> object:
        for item in items:
            self._nest(container, item)
        return container

    def _set_items(self, target: object, items: list[object]) -> None:
        if len(items) % 2:
            raise Malformed("odd SETITEMS")
        if isinstance(target, dict):
            for i in range(0, len(items), 2):
                target[safe_key(items[i])] = items[i + 1]
                self._nest(target, items[i + 1])
        elif not isinstance(target, Opaque):  # an object's __setitem__: not run
            raise Malformed("SETITEM on a plain value")

    def _add_items(self, target: object, items: list[object]) -> None:
        if isinstance(target, list):
            target.extend(items)
            self._new(target, items)
        elif isinstance(target, set):
            target.update(safe_key(item) for item in items)
        elif not isinstance(target, Opaque):
            raise Malformed("APPEND to a plain value")

    def _call(self, func: object, args: object) -> object:
        """What calling ``func(*args)`` is recorded as. Nothing is called: ``interpret`` may
        name a plain value for a call it knows (``name`` is "module qualname", "" when
        ``func`` is not a global), and a few are pure conversions of plain values
        (:func:`~mlspace.classify.readers.pickle_values.converted`)."""
        name = func.name if isinstance(func, Opaque) and func.is_global else ""
        if not isinstance(args, tuple):
            return Opaque(name, (args,))
        if self._interpret is not None:
            value = self._interpret(name, args)
            if value is not None:
                return value
        value = converted(name, args)
        if value is not NOT_CONVERTED:
            return value
        return self._new(Opaque(name, args), args)

    # -- opcodes ---------------------------------------------------------------------------

    def op_int(self, arg: object) -> None:
        if isinstance(arg, int) and arg.bit_length() > MAX_INT_BITS:
            raise Malformed("integer too large")
        self.stack.append(arg)

    def op_float(self, arg: object) -> None:
        self.stack.append(arg)

    def op_string(self, arg: object) -> None:
        if isinstance(arg, bytearray):
            arg = bytes(arg)
        if isinstance(arg, (str, bytes)) and len(arg) > MAX_STRING_BYTES:
            raise Malformed("string too long")
        self.stack.append(arg)

    def op_list(self, arg: object) -> None:
        items = self._pop_mark()
        self.stack.append(self._new(list(items), items))

    def op_tuple(self, arg: object) -> None:
        items = self._pop_mark()
        self.stack.append(self._new(tuple(items), items))

    def _tuple_n(self, n: int) -> None:
        if len(self.stack) < n:
            raise Malformed("stack underflow")
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
        self.stack.append(frozenset(safe_key(item) for item in items))

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
            raise Malformed("ADDITEMS to a non-set")
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
            raise Malformed("MARKs nested too deep")
        self.metastack.append(self.stack)
        self.stack = []

    def op_get(self, arg: object) -> None:
        if not isinstance(arg, int) or arg not in self.memo:
            raise Malformed("memo miss")
        self.stack.append(self.memo[arg])

    def op_put(self, arg: object) -> None:
        if not isinstance(arg, int) or arg < 0:
            raise Malformed("bad memo index")
        self.memo[arg] = self._top()

    def op_memoize(self, arg: object) -> None:
        self.memo[len(self.memo)] = self._top()

    def op_global(self, arg: object) -> None:
        if not isinstance(arg, str):
            raise Malformed("bad GLOBAL")
        self.stack.append(Opaque(arg, is_global=True))

    def op_stack_global(self, arg: object) -> None:
        name = self._pop()
        module = self._pop()
        if not (isinstance(module, str) and isinstance(name, str)):
            raise Malformed("bad STACK_GLOBAL")
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
            raise Malformed("bad INST")
        items = self._pop_mark()
        self.stack.append(self._call(Opaque(arg, is_global=True), tuple(items)))

    def op_obj(self, arg: object) -> None:
        items = self._pop_mark()
        if not items:
            raise Malformed("empty OBJ")
        self.stack.append(self._call(items[0], tuple(items[1:])))

    def op_build(self, arg: object) -> None:
        state = self._pop()
        target = self._top()
        if isinstance(target, Opaque):  # __setstate__ is not run: the state is recorded
            target.state = state
            self._nest(target, state)

    def op_proto(self, arg: object) -> None:
        if not isinstance(arg, int) or not 0 <= arg <= 5:
            raise Malformed("unknown protocol")

    def op_next_buffer(self, arg: object) -> None:
        raise Malformed("out-of-band buffer")

    def op_stop(self, arg: object) -> None:
        self.result = self._pop()


_NOTHING = object()


__all__ = [
    "MAX_PICKLE_BYTES", "PICKLE_ERRORS", "Machine", "Malformed", "PickleStream",
]
