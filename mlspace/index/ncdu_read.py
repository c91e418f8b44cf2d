"""Open an ncdu JSON export, as ``ncdu -o`` or ``gdu -o`` write it (plain or gzip), as a
Snapshot: the format is ``[1, minor, {metadata}, [{root info}, child, [{dir info}, ...]]]``
(https://dev.yorhel.nl/ncdu/jsonfmt).

Names are raw bytes in the file, not necessarily UTF-8, so the file is decoded with
``surrogateescape`` and names encoded back the same way: they round-trip byte for byte.
Folders nest as arrays; the nesting is walked with a stack, never recursion, and bounded
(MAX_DEPTH), as are the file's size and every number, so a hostile or absurd file is a
CannotOpen with the reason, not a crash. Info objects are flat, so each is cut out with one
regular expression and thousands are parsed by one json.loads call.

Two exporters, two readings: ncdu gives every path of a hard-linked file (``hlnkc``) with its
inode, and counts each inode once; gdu marks only the second and later paths, and leaves
folders' own sizes out (gdu counts 4096 bytes for each, which it then also does here).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from mlspace.index.errors import CannotOpen
from mlspace.index.info import ScanInfo
from mlspace.index.rebuild import EntryColumns, ScanFacts, blocks_of, rebuild_snapshot
from mlspace.index.sniff import GZIP_MAGIC
from mlspace.safe_read import Unreadable, iter_blocks, read_bytes, read_head
from mlspace.scan import ScanError, Snapshot
from mlspace.scan.walker import KIND_DIR, KIND_FILE, NLINK_CAP

#: Folders nested deeper than this are refused (real trees stay far below).
MAX_DEPTH = 10_000
#: Exports larger than this (uncompressed) are refused: they are read into memory.
MAX_BYTES = 8 << 30
#: A gzip export inflating to more than MAX_RATIO times the bytes read so far is a bomb
#: (real ones compress 10 to 25 times), checked once RATIO_FROM bytes came out.
MAX_RATIO = 200
RATIO_FROM = 64 << 20
_CHUNK = 1 << 20  # bytes inflated at a time
_GZIP_WBITS = 16 + zlib.MAX_WBITS  # a gzip header and trailer around deflate data
#: The owner of an entry whose export does not say (ncdu writes uid only with -e).
UNKNOWN_UID = 0xFFFFFFFF
#: What gdu counts for a folder's own size; its exports leave it out.
GDU_FOLDER_SIZE = 4096

_LARGEST = 2**63 - 1
_OBJECT = r'\{(?:[^"{}\[\]]|"(?:[^"\\]|\\.)*")*\}'
#: One entry: an optional "[" opening a folder, its info object, the "]"s closing folders
#: after it, and the comma before the next entry.
_ITEM = re.compile(r'\s*(\[)?\s*(' + _OBJECT + r')\s*((?:\]\s*)*)(,)?')
_SPACE = re.compile(r"\s*")
_BATCH = 50_000


@dataclass
class _Parsed:
    """The entries in the order of the file (depth first), with their folder's index."""

    objects: list[str]
    parents: list[int]
    arrays: list[bool]  # written as a folder array


def read_ncdu(path: str) -> tuple[Snapshot, ScanInfo]:
    """The scan an ncdu or gdu export describes, and who wrote it when."""
    text = _load(path).decode("utf-8", "surrogateescape")
    pos, major, minor, meta = _header(text)
    if major != 1:
        raise CannotOpen(f"ncdu export format {major}.{minor}: only major version 1 is known")
    parsed = _tree(text, pos)
    program = _program(meta)
    snapshot = _snapshot(parsed, gdu=program.split(" ")[0] == "gdu")
    stamp = meta.get("timestamp")
    when = float(stamp) if isinstance(stamp, (int, float)) and not isinstance(stamp, bool) \
        and 0 <= stamp < _LARGEST else 0.0
    return snapshot, ScanInfo(host="", user="", started=when, finished=when, program=program)


def _load(path: str) -> bytes | bytearray:
    """The export's bytes, gunzipped if need be, read through safe_read (a link the user
    named is followed; a FIFO or device is refused, not opened) and bounded in size."""
    real = os.path.realpath(path)
    try:
        if not read_head(real, len(GZIP_MAGIC)).startswith(GZIP_MAGIC):
            return read_bytes(real, MAX_BYTES)
        return _inflate(real)
    except Unreadable as err:
        raise CannotOpen(str(err)) from None


def _inflate(path: str) -> bytearray:
    """A gzip file's content, inflated as a stream a chunk at a time, so a bomb (a few MB
    that inflate to GiBs) is refused in bounded time and memory: past RATIO_FROM bytes out,
    no more than MAX_RATIO times what was read in, and never more than MAX_BYTES. Files of
    several gzip members (pigz, concatenated) and zero padding after the end are read as
    gzip reads them."""
    out = bytearray()
    member = zlib.decompressobj(_GZIP_WBITS)
    taken, ended = 0, False  # compressed bytes inflated so far
    try:
        for block in iter_blocks(path, 1 << 20):
            data = block
            while True:
                if ended:
                    data = data.lstrip(b"\0")  # padding after the last member
                    if not data:
                        break
                    if data[0] != GZIP_MAGIC[0]:
                        raise CannotOpen("damaged gzip data (something else after its end)")
                    member, ended = zlib.decompressobj(_GZIP_WBITS), False
                chunk = member.decompress(data, _CHUNK)
                out += chunk
                left = member.unused_data if member.eof else member.unconsumed_tail
                taken += len(data) - len(left)
                _check_inflated(len(out), taken)
                if member.eof:
                    ended, data = True, left
                    continue
                data = left
                if not data and len(chunk) < _CHUNK:
                    break  # wants the next block
    except zlib.error as err:
        raise CannotOpen(f"damaged gzip data ({err})") from None
    if not ended:
        raise CannotOpen("damaged gzip data (cut short)")
    return out


def _check_inflated(inflated: int, compressed: int) -> None:
    if inflated > MAX_BYTES:
        raise CannotOpen(f"larger than {MAX_BYTES >> 30} GiB uncompressed")
    if inflated > RATIO_FROM and inflated > MAX_RATIO * compressed:
        raise CannotOpen(f"its gzip data inflates to more than {MAX_RATIO} times its size "
                         "(ncdu's exports compress 10 to 25 times): not read any further, "
                         "so it cannot fill the memory")


def _fail(text: str, pos: int, what: str) -> CannotOpen:
    line = text.count("\n", 0, pos) + 1
    return CannotOpen(f"not a valid ncdu export: {what} (line {line})")


def _header(text: str) -> tuple[int, int, int, dict[str, Any]]:
    """``[major, minor, {metadata},``: returns where the tree starts and the three values."""
    decoder = json.JSONDecoder()
    pos = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    if text.startswith("{", pos):  # mlspace's own JSON listing or report, most likely
        raise CannotOpen("a JSON document, not ncdu's export: mlspace's `scan --format json` "
                         "listing and its reports are for reading; to open a scan again, "
                         "save it with `mlspace scan PATH -o FILE.parquet` (or --save)")
    if not text.startswith("[", pos):
        raise _fail(text, pos, "it does not start with '['")
    values = []
    pos += 1
    for what in ("a format version", "a format version", "a metadata object"):
        pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
        try:
            value, pos = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):
            raise _fail(text, pos, f"expected {what}") from None
        pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
        if not text.startswith(",", pos):
            raise _fail(text, pos, f"expected ',' after {what}")
        values.append(value)
        pos += 1
    major, minor, meta = values
    for version in (major, minor):
        if not isinstance(version, int) or isinstance(version, bool) or not 0 <= version <= 10000:
            raise _fail(text, 0, "the format version is not a number from 0 to 10000")
    if not isinstance(meta, dict):
        raise _fail(text, pos, "the metadata is not an object")
    return pos, major, minor, meta


def _tree(text: str, pos: int) -> _Parsed:
    """Walk the folder arrays from ``pos`` to the end of the file."""
    parsed = _Parsed([], [], [])
    objects, parents, arrays = parsed.objects, parsed.parents, parsed.arrays
    stack: list[int] = []
    match = _ITEM.match
    while True:
        item = match(text, pos)
        if item is None:
            raise _fail(text, pos, "expected an entry ({...} or [{...}, ...])")
        opened, info, closes, comma = item.groups()
        if not stack and not opened:
            raise _fail(text, pos, "the scanned folder is not a folder array")
        if objects and not stack:
            raise _fail(text, pos, "more than one scanned folder")
        index = len(objects)
        objects.append(info)
        parents.append(stack[-1] if stack else -1)
        arrays.append(bool(opened))
        if opened:
            if len(stack) >= MAX_DEPTH:
                raise _fail(text, pos, f"folders nested more than {MAX_DEPTH:,} deep")
            stack.append(index)
        closing = closes.count("]")
        pos = item.end()
        if closing > len(stack):  # the last "]" closes the export's outer array
            if closing > len(stack) + 1 or comma or text[pos:].strip():
                raise _fail(text, pos, "unexpected ']' or text after the end")
            return parsed
        if closing:
            del stack[len(stack) - closing:]
        if not comma:
            raise _fail(text, pos, "expected ',' or ']'")


def _program(meta: dict[str, Any]) -> str:
    name, version = meta.get("progname"), meta.get("progver")
    words = [str(w)[:64] for w in (name, version) if isinstance(w, (str, int, float))]
    return " ".join(words) or "ncdu export"


class _Columns:
    """The fields of every info object, as lists in file order."""

    def __init__(self, parsed: _Parsed) -> None:
        self.records: list[dict[str, Any]] = []
        objects = parsed.objects
        for start in range(0, len(objects), _BATCH):
            batch = objects[start : start + _BATCH]
            try:
                self.records += json.loads("[" + ",".join(batch) + "]")
            except ValueError:
                for offset, text in enumerate(batch):
                    try:
                        json.loads(text)
                    except ValueError as err:
                        raise CannotOpen(f"not a valid ncdu export: entry {start + offset + 1} "
                                         f"is not valid JSON ({err.msg})") from None
                raise CannotOpen("not a valid ncdu export: an entry is not valid JSON") from None

    def field(self, key: str) -> list[Any]:
        return [r.get(key) for r in self.records]

    def whole(self, key: str, default: int = 0, limit: int = _LARGEST) -> np.ndarray:
        """A field of whole numbers from 0 to ``limit``, ``default`` where absent."""
        values = [r.get(key, default) for r in self.records]
        if not all(type(v) is int and 0 <= v <= limit for v in values):
            bad = next(v for v in values if not (type(v) is int and 0 <= v <= limit))
            raise CannotOpen(f"not a valid ncdu export: {key} {bad!r} is not a whole number "
                             f"from 0 to {limit}")
        return np.array(values, dtype=np.uint64 if limit > _LARGEST else np.int64)

    def flag(self, key: str) -> np.ndarray:
        return np.array([r.get(key) is True for r in self.records], dtype=bool)


def _snapshot(parsed: _Parsed, gdu: bool) -> Snapshot:
    """The Snapshot of the parsed entries, reordered from depth first to scan order."""
    fields = _Columns(parsed)
    excluded = fields.field("excluded")
    arrays = np.array(parsed.arrays, dtype=bool)
    other_fs = np.array([e in ("otherfs", "othfs") for e in excluded], dtype=bool)
    # An entry left out by a pattern (or as a kernel filesystem) is left out here, as an
    # mlspace --exclude does; a mount point stays, as a folder not entered.
    keep = ~np.array([e is not None for e in excluded], dtype=bool) | other_fs | arrays
    kinds = _kinds(fields, arrays, other_fs)
    asize, dsize = fields.whole("asize"), fields.whole("dsize")
    if gdu:
        unsized = arrays & ~np.array([("asize" in r or "dsize" in r) for r in fields.records])
        asize[unsized] = dsize[unsized] = GDU_FOLDER_SIZE
    linked = fields.flag("hlnkc") & (kinds != KIND_DIR)
    nlink = np.where(linked, np.clip(fields.whole("nlink", 2), 2, NLINK_CAP), 1)
    mtimes = fields.field("mtime")
    if not all(m is None or (type(m) in (int, float) and 0 <= m < _LARGEST) for m in mtimes):
        raise CannotOpen("not a valid ncdu export: an mtime is not a time")
    names = _names(fields.field("name"))
    read_error = fields.flag("read_error")
    parents = np.array(parsed.parents, dtype=np.int64)
    has_children = np.zeros(len(parents), dtype=bool)
    has_children[parents[parents >= 0]] = True
    unlisted = (kinds == KIND_DIR) & (other_fs | (read_error & ~has_children) | ~arrays)

    order, parent = _scan_order(parents, keep)
    devices = {int(new): dev for new, dev in zip(
        np.flatnonzero(arrays[order]).tolist(),
        [fields.records[i].get("dev") for i in order[arrays[order]].tolist()], strict=True)
        if type(dev) is int and 0 <= dev <= _LARGEST}
    kept_names = [names[i] for i in order.tolist()]
    lengths = np.array([len(n) + 1 for n in kept_names], dtype=np.int64)
    columns = EntryColumns(
        names=b"\0".join(kept_names) + b"\0" if kept_names else b"",
        name_offsets=np.r_[0, np.cumsum(lengths)].astype(np.int64),
        parent=parent,
        kind=kinds[order],
        apparent=asize[order],
        blocks=blocks_of(dsize)[order],
        mtime=np.array([float(mtimes[i] or 0) for i in order.tolist()], dtype=np.float64),
        ino=fields.whole("ino", 0, 2**64 - 1)[order],
        nlink=nlink[order].astype(np.uint16),
        uid=fields.whole("uid", UNKNOWN_UID, 2**32 - 1)[order].astype(np.uint32),
    )
    facts = ScanFacts(unlisted=np.flatnonzero(unlisted[order]), devices=devices,
                      counted=~linked[order] if gdu else None)
    snapshot = rebuild_snapshot(columns, facts)
    # Paths are known once the folders are: add the errors and the mount points now.
    new_of = np.full(len(parents), -1, dtype=np.int64)
    new_of[order] = np.arange(len(order))
    errors = tuple(ScanError(snapshot.path(int(new_of[i])), "could not be read (so says the "
                             "export)") for i in np.flatnonzero(read_error & keep).tolist())
    mounts = tuple(snapshot.path(int(new_of[i])) for i in np.flatnonzero(other_fs).tolist())
    return dataclasses.replace(snapshot, errors=errors, other_filesystems=mounts)


def _kinds(fields: _Columns, arrays: np.ndarray, other_fs: np.ndarray) -> np.ndarray:
    """Folders are arrays (or mount points not entered); a mode, where given (ncdu -e),
    says what anything else is; else "notreg" means not a regular file, whatever it is."""
    modes = fields.whole("mode", 0, 2**32 - 1)
    has_mode = np.array(["mode" in r for r in fields.records], dtype=bool)
    notreg = fields.flag("notreg")
    kinds = np.where(has_mode, (modes >> 12) & 0xF, np.where(notreg, 0, KIND_FILE))
    kinds[arrays | other_fs] = KIND_DIR
    return kinds.astype(np.uint8)


def _names(names: list[Any]) -> list[bytes]:
    out = []
    for name in names:
        if not isinstance(name, str) or not name:
            raise CannotOpen("not a valid ncdu export: an entry has no name")
        try:
            out.append(name.encode("utf-8", "surrogateescape"))
        except UnicodeEncodeError:
            raise CannotOpen(f"not a valid ncdu export: the name {name!r} is not a file "
                             "name") from None
    return out


def _scan_order(parents: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The kept entries in scan order (each folder's entries together, grouped in the order
    of their folders, which come first), and each one's parent as a position in that
    order. Returns (file indices in that order, parents)."""
    kept = np.flatnonzero(keep)
    order = kept[np.argsort(parents[kept], kind="stable")]
    new_of = np.full(len(parents) + 1, -1, dtype=np.int64)  # the extra -1 for the root's -1
    new_of[order] = np.arange(len(order))
    return order, new_of[parents[order]]
