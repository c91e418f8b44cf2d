"""Compact JSON made a slice at a time, so a thread making it lets others run.

json.dumps encodes a whole document in one C call and holds the interpreter throughout: the
saved scan's metadata document of a million-entry scan (3 MB, thousands of artifacts) took
25 to 50 ms, and the app's window, waiting for the interpreter, froze for that long while
the scan was kept in the history. Encoded by the objects' keys and by slices of their long
lists, each call takes a millisecond or two, and between calls another thread may take the
interpreter. The text is the same as json.dumps(value, separators=(",", ":")) gives.
"""

from __future__ import annotations

import json
from typing import Any

#: Items of a long list encoded in one call (about a millisecond for artifacts' records).
SLICE = 256

_compact = json.JSONEncoder(separators=(",", ":")).encode


def dumps_in_slices(value: Any, slice_items: int = SLICE) -> str:
    """``value`` as compact JSON; objects are encoded by key and lists longer than
    ``slice_items`` by slices, each in a call of its own (a long list inside one item of a
    list is encoded with that item)."""
    if isinstance(value, dict) and all(type(key) is str for key in value):
        return "{" + ",".join(f"{_compact(key)}:{dumps_in_slices(item, slice_items)}"
                              for key, item in value.items()) + "}"
    if isinstance(value, (list, tuple)) and len(value) > slice_items:
        return "[" + ",".join(_compact(list(value[at:at + slice_items]))[1:-1]
                              for at in range(0, len(value), slice_items)) + "]"
    return _compact(value)
