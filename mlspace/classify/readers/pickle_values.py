"""The values an inert pickle read stands for: placeholders for the objects it would have
built, keys that hash in constant time, and the few calls that are pure conversions of
plain values.

The stack machine of :mod:`mlspace.classify.readers.inert_pickle` builds only plain values
(str, bytes, int, float, bool, None, tuple, list, dict, set, frozenset) and these: every
global, call and persistent id becomes an :class:`Opaque` (eq=False keeps placeholders
hashable by identity, so they can be dict keys the way the real objects would be, and a
crafted one cannot make hashing slow).
"""

from __future__ import annotations

from dataclasses import dataclass


class Placeholder:
    """Base of the values that stand for an object the pickle would have built: each is
    hashed by identity (a crafted one cannot make hashing slow) and built by no code of the
    pickle's choosing."""

    __slots__ = ()


@dataclass(eq=False)
class Opaque(Placeholder):
    """A global (``module qualname``, ``is_global``) or what calling or constructing one
    would have given (its name, the arguments, and the state a BUILD would have set)."""

    name: str
    args: tuple = ()
    state: object = None
    is_global: bool = False


def opaque_persistent_id(pid: object) -> object:
    """What a persistent id stands for when the format reading it knows none."""
    return Opaque("persistent id", (pid,))


#: The containers whose nesting the machine counts (a placeholder holds its arguments).
CONTAINERS = (list, dict, tuple, set, frozenset, Opaque)
_SMALL_INT = 2**61 - 1  # below this, distinct ints hash apart (see safe_key)
# Calls whose result is a container the pickle then fills (SETITEMS on an OrderedDict).
_DICT_FACTORIES = frozenset({
    "collections OrderedDict", "builtins dict", "__builtin__ dict", "collections defaultdict",
})
_SET_FACTORIES = frozenset({"builtins set", "__builtin__ set", "builtins frozenset",
                            "__builtin__ frozenset"})
#: What :func:`converted` answers for a call that is no pure conversion.
NOT_CONVERTED = object()


def safe_key(value: object) -> object:
    """``value`` as a dict key or set element that hashes in constant time."""
    if isinstance(value, (str, bytes, float, bool, Placeholder)):
        return value
    if value is None or (isinstance(value, int) and -_SMALL_INT < value < _SMALL_INT):
        return value
    return Opaque("key", (value,))


def converted(name: str, args: tuple) -> object:
    """The plain value a call of the global ``name`` ("module qualname") with ``args`` gives
    when it is a pure conversion of plain values (an empty dict a pickle fills, a set, bytes
    as protocols 0-2 spell them); else :data:`NOT_CONVERTED`. Nothing is called."""
    if name in _DICT_FACTORIES:
        return {}
    if name in _SET_FACTORIES and len(args) == 1 and isinstance(args[0], list):
        return {safe_key(item) for item in args[0]}
    if (name == "_codecs encode" and len(args) == 2 and isinstance(args[0], str)
            and args[1] in ("latin1", "latin-1")):
        # how protocols 0-2 (torch.save uses 2) spell bytes: a pure conversion
        return args[0].encode("latin-1")
    if name in ("builtins bytes", "__builtin__ bytes") and not args:
        return b""
    return NOT_CONVERTED
