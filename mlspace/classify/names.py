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

from collections.abc import Sequence
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
        offsets = snapshot.name_offsets.astype(np.int64)
        self._raw = raw
        self._starts = offsets[:-1]
        self._lengths = np.diff(offsets) - 1
        ends = offsets[1:] - 1
        if len(raw) < 8:  # a lone short root name: give the word view room
            raw = np.concatenate([raw, np.zeros(8 - len(raw), dtype=np.uint8)])
        # words[i] holds raw[i : i + 8], read in place (no copy of the buffer).
        words = np.ndarray((len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))
        # The 8 bytes ending at each name's end; a name ending before byte 8 is shifted up.
        before_start = np.maximum(8 - ends, 0).astype(np.uint64) * np.uint64(8)
        tails = words[np.maximum(ends - 8, 0)] << before_start
        outside = np.clip(8 - self._lengths, 0, 8)  # bytes of the word before the name
        self._tails = tails & ~_KEEP_FIRST[outside]
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

    def entries_named(self, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """The entries (sorted) whose name is exactly one of ``names`` (case-sensitive), and
        for each the index into ``names`` of the one it is. Names are compared byte for byte
        in numpy; none is decoded."""
        encoded = [n.encode("utf-8", "surrogateescape") for n in names]
        if not encoded:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        wanted_tails = np.array([_tail(e) for e in encoded], dtype=np.uint64)
        buckets = np.zeros(1 << _BUCKET_BITS, dtype=bool)
        buckets[_bucket(wanted_tails)] = True
        candidates = np.flatnonzero(buckets[_bucket(self._tails)])
        # Which wanted name each candidate might be: same last 8 bytes and length. Several
        # wanted names can share both, so each is tried in turn.
        wanted_keys = _key(wanted_tails, np.array([len(e) for e in encoded]))
        order = np.argsort(wanted_keys, kind="stable")
        sorted_keys = wanted_keys[order]
        keys = _key(self._tails[candidates], self._lengths[candidates])
        first = np.searchsorted(sorted_keys, keys)
        which = np.full(len(candidates), -1, dtype=np.int64)
        for step in range(int(np.unique(sorted_keys, return_counts=True)[1].max())):
            at = np.minimum(first + step, len(order) - 1)
            trying = (which < 0) & (first + step < len(order)) & (sorted_keys[at] == keys)
            same = self._same_bytes(candidates[trying], encoded, order[at[trying]])
            which[np.flatnonzero(trying)[same]] = order[at[trying]][same]
        hit = which >= 0
        return candidates[hit], which[hit]

    def _same_bytes(self, entries: np.ndarray, encoded: list[bytes], which: np.ndarray
                    ) -> np.ndarray:
        """Whether each entry's name is byte for byte ``encoded[which]`` (lengths equal)."""
        width = max(len(e) for e in encoded)
        table = np.zeros((len(encoded), width), dtype=np.uint8)
        for i, raw in enumerate(encoded):
            table[i, : len(raw)] = np.frombuffer(raw, dtype=np.uint8)
        columns = np.arange(width)
        positions = np.minimum(self._starts[entries][:, None] + columns, len(self._raw) - 1)
        inside = columns < self._lengths[entries][:, None]
        return ((self._raw[positions] == table[which]) | ~inside).all(axis=1)


def _key(tails: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    return tails ^ (lengths.astype(np.uint64) * _MIX)


def _bucket(tails: np.ndarray) -> np.ndarray:
    return ((tails * _MIX) >> np.uint64(64 - _BUCKET_BITS)).astype(np.intp)


def _tail(raw: bytes) -> int:
    """A name's last 8 bytes as NameColumns holds them."""
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
