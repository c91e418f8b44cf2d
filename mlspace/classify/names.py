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
from typing import Protocol

import numpy as np

#: _KEEP_LAST[k] keeps the last (highest) k bytes of a little-endian word.
_KEEP_LAST = np.array([((1 << (8 * k)) - 1) << (64 - 8 * k) for k in range(9)], dtype=np.uint64)
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


class NameSource(Protocol):
    """Names in one NUL-separated buffer with offsets: a Snapshot, or a Listing of one."""

    name_buffer: bytes | memoryview
    name_offsets: np.ndarray

    def names_of(self, entries: np.ndarray) -> list[str]: ...


class NameColumns:
    """Vectorised questions about every name of a snapshot, or of a stretch of one."""

    def __init__(self, snapshot: NameSource) -> None:
        # Written to touch little fresh memory: where page faults are dear (sandboxes, VMs),
        # every temporary array of a million entries costs milliseconds on its own.
        self._snapshot = snapshot
        raw = np.frombuffer(snapshot.name_buffer, dtype=np.uint8)
        self._raw = raw
        self._offsets = offsets = snapshot.name_offsets
        self._lengths = lengths = np.subtract(offsets[1:], offsets[:-1], dtype=np.int64)
        lengths -= 1
        if len(raw) < 8:  # a lone short root name: give the word view room
            raw = np.concatenate([raw, np.zeros(8 - len(raw), dtype=np.uint8)])
        # words[i] holds raw[i : i + 8], read in place (no copy of the buffer).
        self._words = words = np.ndarray((len(raw) - 7,), dtype="<u8", buffer=raw, strides=(1,))
        at = offsets[1:].astype(np.intp)
        at -= 9  # where the 8 bytes ending at each name's end start (its NUL is at end)
        early = np.flatnonzero(at < 0)  # only names ending within the buffer's first 8 bytes
        shifts = (-at[early]).astype(np.uint64) * np.uint64(8)
        at[early] = 0
        self._tails = tails = words[at]
        del at
        tails[early] <<= shifts  # those start at byte 0: move them up to end at byte 7
        self._outside = np.clip(8 - lengths, 0, 8).astype(np.uint8)  # word bytes before it
        np.bitwise_and(tails, _KEEP_LAST[8 - self._outside], out=tails)

    def extension_groups(self, needed: np.ndarray) -> ExtensionGroups:
        """Group every entry by extension. An extension longer than 7 characters is found by
        decoding the name, for the entries where ``needed`` (bool per entry) says it matters;
        elsewhere those entries get group -1."""
        tails, lengths = self._tails, self._lengths
        dots = tails ^ _DOTS  # a dot becomes a zero byte; then 0x80 marks each zero byte
        spare = dots & _LOW7
        spare += _LOW7
        spare |= dots
        spare |= _LOW7
        np.invert(spare, out=dots)
        del spare
        # The name's first byte is no extension's dot (".bashrc"); it is in the word only
        # when the whole name is.
        first_byte = self._outside + np.uint8(1)
        first_byte[lengths > 8] = 0
        np.bitwise_and(dots, _KEEP_LAST[8 - np.minimum(first_byte, 8)], out=dots)
        # The byte index of the last dot: count the byte boundaries its marker lies above.
        last_dot = np.zeros(len(dots), dtype=np.uint8)
        for byte in range(1, 8):
            last_dot += dots >= np.uint64(1 << (8 * byte))
        has_dot = dots != 0
        del dots
        keys = tails >> (last_dot.astype(np.uint64) << np.uint64(3))
        keys[~has_dot] = 0
        unknown = lengths > 8  # no dot in the word: it, if any, is further back
        unknown &= ~has_dot
        extensions, group = _group_runs(keys)
        group[unknown] = -1
        _decode_long(self._snapshot, np.flatnonzero(unknown & needed), extensions, group)
        return ExtensionGroups(extensions, group)

    def entries_named(self, wanted: NameSet) -> tuple[np.ndarray, np.ndarray]:
        """The entries (sorted) whose name is exactly one of ``wanted`` (case-sensitive), and
        for each the index into ``wanted.names`` of the one it is. Names are compared byte for
        byte in numpy; none is decoded."""
        if not wanted.names:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        candidates = np.flatnonzero(wanted.buckets[_bucket(self._tails)])
        # Which wanted name each candidate might be: same last 8 bytes and length. Several
        # wanted names can share both, so each is tried in turn.
        keys = _key(self._tails[candidates], self._lengths[candidates])
        first = np.searchsorted(wanted.sorted_keys, keys)
        which = np.full(len(candidates), -1, dtype=np.int64)
        last = len(wanted.order) - 1
        for step in range(wanted.most_sharing_a_key):
            at = np.minimum(first + step, last)
            trying = (which < 0) & (first + step <= last) & (wanted.sorted_keys[at] == keys)
            maybe = wanted.order[at[trying]]
            same = self._same_bytes(candidates[trying], wanted, maybe)
            which[np.flatnonzero(trying)[same]] = maybe[same]
        hit = which >= 0
        return candidates[hit], which[hit]

    def starting_with(self, entries: np.ndarray, prefix: bytes) -> np.ndarray:
        """Whether each entry's name starts with ``prefix`` (bool per entry), compared in
        8-byte words read from the buffer; no name decoded."""
        result = self._lengths[entries] >= len(prefix)
        fits = np.flatnonzero(result)
        starts = self._offsets[entries[fits]].astype(np.intp)
        same = np.ones(len(fits), dtype=bool)
        if len(prefix) >= 8:
            # Its whole words from the start, then the word ending where it ends (both lie
            # inside a name at least as long).
            for at in [*range(0, len(prefix) - 7, 8), len(prefix) - 8]:
                same &= self._words[starts + at] == int.from_bytes(prefix[at:at + 8], "little")
        else:
            for at, byte in enumerate(prefix):
                same &= self._raw[starts + at] == byte
        result[fits] = same
        return result

    def bytes_before_end(self, entries: np.ndarray, distance: np.ndarray, needle: bytes
                         ) -> np.ndarray:
        """Whether ``needle`` sits ``distance`` bytes before the end of each entry's name
        (bool per entry): a test of many names at one fixed place, none decoded."""
        result = (self._lengths[entries] >= distance) & (distance >= len(needle))
        fits = np.flatnonzero(result)  # names too short are out without a look
        at = self._offsets[entries[fits]].astype(np.intp) + self._lengths[entries[fits]]
        at -= distance[fits]
        found = self._raw[at[:, None] + np.arange(len(needle))]
        result[fits] = (found == np.frombuffer(needle, dtype=np.uint8)).all(axis=1)
        return result

    def tagged_before_end(self, entries: np.ndarray, ext_bytes: np.ndarray, tag: bytes,
                          most_digits: int) -> np.ndarray:
        """Whether each entry's name ends in ``tag``, 1 to ``most_digits`` ASCII digits, and then
        its extension of ``ext_bytes`` bytes (bool per entry), as "img_0001_aug2.jpg" does for
        tag "_aug". The 8 bytes before each extension are read as one word (a dataset folder
        has hundreds of thousands of names; a byte-by-byte table of them is megabytes)."""
        if len(tag) + most_digits > 8:
            raise ValueError("tag and digits must fit in the 8 bytes before the extension")
        stems = self._lengths[entries] - ext_bytes
        word_at = self._offsets[entries].astype(np.intp) + stems
        word_at -= 8  # the word ends where the extension starts
        readable = word_at >= 0
        words = self._words[np.where(readable, word_at, 0)]
        tag_word = np.uint64(int.from_bytes(tag, "little"))
        tag_mask = np.uint64((1 << (8 * len(tag))) - 1)
        # Where the tag sits before 1 to most_digits bytes: a few whole-array tests; the
        # digits are then looked at only there (a dataset's names rarely hold the tag).
        tagged_at = [((words >> np.uint64(8 * (8 - digits - len(tag)))) & tag_mask) == tag_word
                     for digits in range(1, most_digits + 1)]
        maybe = np.flatnonzero(np.logical_or.reduce(tagged_at) & readable)
        result = np.zeros(len(entries), dtype=bool)
        if not len(maybe):
            return result
        few, few_stems = words[maybe], stems[maybe]
        found = np.zeros(len(maybe), dtype=bool)
        digits_so_far = np.ones(len(maybe), dtype=bool)  # the last k bytes are all digits
        for digits in range(1, most_digits + 1):
            byte = (few >> np.uint64(8 * (8 - digits))) & np.uint64(0xFF)
            digits_so_far &= (byte >= np.uint64(ord("0"))) & (byte <= np.uint64(ord("9")))
            found |= digits_so_far & tagged_at[digits - 1][maybe] \
                & (few_stems >= len(tag) + digits)
        result[maybe] = found
        return result

    def _same_bytes(self, entries: np.ndarray, wanted: NameSet, which: np.ndarray
                    ) -> np.ndarray:
        """Whether each entry's name is byte for byte wanted name ``which``, their lengths
        and last 8 bytes being known equal: the rest is compared 8 bytes at a time from the
        start, one small array per step (a byte-by-byte table of every candidate would be
        megabytes of fresh memory in a stretch full of checkpoint folders)."""
        same = np.ones(len(entries), dtype=bool)
        starts = self._offsets[entries]
        full_words = wanted.full_words[which]
        for k in range(int(full_words.max(initial=0))):
            more = np.flatnonzero(full_words > k)
            same[more] &= self._words[starts[more] + 8 * k] == wanted.words[which[more], k]
        return same


class NameSet:
    """Names to find among a snapshot's, prepared once (a classification looks for the same
    marker and rule names in every stretch of a scan)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        encoded = [n.encode("utf-8", "surrogateescape") for n in self.names]
        tails = np.array([_tail(e) for e in encoded], dtype=np.uint64)
        self.buckets = np.zeros(1 << _BUCKET_BITS, dtype=bool)
        self.buckets[_bucket(tails)] = True
        keys = _key(tails, np.array([len(e) for e in encoded], dtype=np.int64))
        self.order = np.argsort(keys, kind="stable")
        self.sorted_keys = keys[self.order]
        self.most_sharing_a_key = int(np.unique(keys, return_counts=True)[1].max(initial=0))
        # Each name's whole 8-byte words from its start (the last 8 bytes are in the keys).
        self.full_words = np.array([len(e) // 8 for e in encoded], dtype=np.int64)
        self.words = np.zeros((len(encoded), int(self.full_words.max(initial=0))),
                              dtype=np.uint64)
        for i, raw in enumerate(encoded):
            for k in range(len(raw) // 8):
                self.words[i, k] = int.from_bytes(raw[8 * k : 8 * k + 8], "little")


def _key(tails: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    return tails ^ (lengths.astype(np.uint64) * _MIX)


def _bucket(tails: np.ndarray) -> np.ndarray:
    """The top 16 bits of a multiplicative hash, as uint16."""
    mixed = tails * _MIX
    mixed >>= np.uint64(64 - _BUCKET_BITS)
    return mixed.astype(np.uint16)


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


def _decode_long(snapshot: NameSource, entries: np.ndarray, extensions: list[str],
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
