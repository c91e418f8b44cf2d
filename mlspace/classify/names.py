"""Every entry's name seen through numpy, straight from the snapshot's name buffer: which
extension it has, and whether it is one of a few exact names, without decoding a million names.

Why: a per-file Python loop costs ~0.35 µs a name just to cut the extension off, and decoding
each folder's children to look for marker files costs ~12 µs a folder; either alone is several
percent of a scan. Here the last 8 bytes of every name are read as one little-endian 64-bit
word (one gather over the buffer); the extension and a filter for exact names both come from
that word. Only names whose extension is longer than that window are decoded, and only when
asked for.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from mlspace.scan import Snapshot

#: _KEEP_FIRST[k] keeps the first (lowest) k bytes of a little-endian word.
_KEEP_FIRST = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_DOTS = np.uint64(0x2E2E2E2E2E2E2E2E)
_MIX = np.uint64(0x9E3779B97F4A7C15)
_BUCKET_BITS = 16


@dataclass(frozen=True)
class ExtensionGroups:
    """Entries grouped by extension: ``group[entry]`` indexes ``extensions`` (dot included,
    as written, "" for none), or is -1 where it was not worked out. Names whose only dot is
    their first character (hidden files) have no extension."""

    extensions: list[str]
    group: np.ndarray  # int64 per entry


class NameColumns:
    """Vectorised questions about every name of one snapshot."""

    def __init__(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot
        raw = np.frombuffer(snapshot.name_buffer, dtype=np.uint8)
        padded = np.zeros(len(raw) + 8, dtype=np.uint8)
        padded[8:] = raw
        # words[i] holds raw[i - 8 : i]: the 8 bytes ending just before position i.
        words = np.ndarray((len(raw) + 1,), dtype="<u8", buffer=padded, strides=(1,))
        offsets = snapshot.name_offsets.astype(np.int64)
        self._lengths = np.diff(offsets) - 1
        outside = np.clip(8 - self._lengths, 0, 8)  # bytes of the word before the name
        self._tails = words[offsets[1:] - 1] & ~_KEEP_FIRST[outside]
        self._outside = outside

    def extension_groups(self, needed: np.ndarray) -> ExtensionGroups:
        """Group every entry by extension. An extension longer than 7 characters is found by
        decoding the name, for the entries where ``needed`` (bool per entry) says it matters;
        elsewhere those entries get group -1."""
        tails, lengths = self._tails, self._lengths
        x = tails ^ _DOTS  # a dot becomes a zero byte
        dots = ~(((x & _LOW7) + _LOW7) | x | _LOW7)  # 0x80 in each byte that was a dot
        first_byte = np.where(lengths <= 8, self._outside + 1, 0)  # a leading dot is no extension
        dots &= ~_KEEP_FIRST[np.minimum(first_byte, 8)]
        highest_bit = np.frexp(dots.astype(np.float64))[1] - 1  # exact: bits are 8 apart
        has_dot = highest_bit >= 0
        shift = np.where(has_dot, highest_bit & ~7, 0).astype(np.uint64)
        keys = np.where(has_dot, tails >> shift, 0)
        unknown = ~has_dot & (lengths > 8)  # the dot, if any, is further back
        keys[unknown] = 0
        extensions, group = _group_runs(keys)
        group[unknown] = -1
        _decode_long(self._snapshot, np.flatnonzero(unknown & needed), extensions, group)
        return ExtensionGroups(extensions, group)

    def entries_named(self, names: Collection[str]) -> tuple[np.ndarray, list[str]]:
        """The entries (sorted) whose name is exactly one of ``names`` (case-sensitive), and
        their names."""
        if not names:
            return np.zeros(0, dtype=np.int64), []
        buckets = np.zeros(1 << _BUCKET_BITS, dtype=bool)
        buckets[_bucket(np.array([_tail(n) for n in names], dtype=np.uint64))] = True
        candidates = np.flatnonzero(buckets[_bucket(self._tails)])
        wanted = set(names)
        decoded = self._snapshot.names_of(candidates)
        hits = [i for i, name in enumerate(decoded) if name in wanted]
        return candidates[hits], [decoded[i] for i in hits]


def _bucket(tails: np.ndarray) -> np.ndarray:
    return ((tails * _MIX) >> np.uint64(64 - _BUCKET_BITS)).astype(np.intp)


def _tail(name: str) -> int:
    """A name's last 8 bytes as NameColumns holds them."""
    raw = name.encode("utf-8", "surrogateescape")
    return int.from_bytes(raw[-8:].rjust(8, b"\0"), "little")


def _group_runs(keys: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Group equal keys. Neighbours in a folder mostly share an extension, so only the first
    key of each run is looked at: a sort of thousands of run heads, not of every entry."""
    if not len(keys):
        return [], np.zeros(0, dtype=np.int64)
    heads = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    unique, head_group = np.unique(keys[heads], return_inverse=True)
    group = np.repeat(head_group.reshape(-1).astype(np.int64), np.diff(np.r_[heads, len(keys)]))
    extensions = [int(k).to_bytes(8, "little").rstrip(b"\0").decode("utf-8", "surrogateescape")
                  for k in unique]
    return extensions, group


def _decode_long(snapshot: Snapshot, entries: np.ndarray, extensions: list[str],
                 group: np.ndarray) -> None:
    """Extensions beyond the 8-byte window (``.safetensors``), from the decoded names."""
    index = {ext: i for i, ext in enumerate(extensions)}
    found = []
    for name in snapshot.names_of(entries):
        dot = name.rfind(".")
        ext = name[dot:] if dot > 0 else ""
        if ext not in index:
            index[ext] = len(extensions)
            extensions.append(ext)
        found.append(index[ext])
    group[entries] = found
