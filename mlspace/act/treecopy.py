"""Copying an item to another filesystem, and proving the copy whole, through descriptors.

A rename cannot cross filesystems, so moving a checkpoint to the cold tier is a copy. A copy
is only worth trusting once it is on the tier's disk and reads back the same: every file is
hashed (BLAKE2b) while it is copied, fsynced with its folder, dropped from the page cache,
and read back from the tier to compare. Only then may the original go to the trash.

The source is walked the way :mod:`mlspace.act.moves` reaches an item: folder descriptors
opened ``O_NOFOLLOW`` and checked to be the entry that was listed, so a folder swapped for a
link mid-copy stops the copy rather than copying whatever the link points at. Files are
opened through :mod:`mlspace.safe_read` (regular files only: a FIFO, device or socket stops
the copy with the reason, unopened); symlinks are copied as links. Modes and times are kept
(to the nanosecond), holes stay holes. Hard links inside an item are copied as separate
files. The same walk reads a tree back (``summarize``) and removes mlspace's own partial
copies (``remove_tree``).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from mlspace.act.moves import entry_stat
from mlspace.safe_read import Unreadable, iter_blocks, open_regular

BLOCK = 4 << 20
_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0) \
    | getattr(os, "O_NOFOLLOW", 0)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
    | getattr(os, "O_CLOEXEC", 0)

Cancel = Callable[[], bool]
OnBytes = Callable[[int], None]


class CopyFailed(Exception):
    """The copy could not be made or proven; ``str(err)`` says why. The caller removes the
    partial copy; the source was only read."""


class Cancelled(Exception):
    """The user asked to stop; the partial copy is to be removed."""


@dataclass(frozen=True)
class Summary:
    """What a tree holds: ``digest`` covers names, kinds, sizes and every byte (what the copy
    must equal); ``listing`` covers names, kinds, sizes and times only (cheap to recompute:
    did the source change while it was copied, is a tier copy still the one mlspace made)."""

    digest: str
    listing: str
    bytes: int
    files: int
    #: Each file's and link's own digest (shortened) by its path below the top, when asked
    #: for and the tree holds at most MANIFEST_FILES: what names the file that differs.
    manifest: dict[str, str] | None = None


@dataclass(frozen=True)
class Node:
    rel: str  # path below the top ("" for the top itself)
    parent_fd: int  # the open folder holding it
    name: str
    st: os.stat_result
    fd: int = -1  # a folder's own descriptor
    leaving: bool = False  # a folder's second visit, after everything in it


def walk(parent_fd: int, name: str) -> Iterator[Node]:
    """Every entry of the tree ``name`` (a folder, file or link), folders twice (entering,
    leaving), children in name order; links are never followed."""
    try:
        st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except OSError as err:
        raise CopyFailed(f"{name} cannot be read ({err.strerror})") from None
    yield from _walk(parent_fd, name, "", st)


def _walk(parent_fd: int, name: str, rel: str, st: os.stat_result) -> Iterator[Node]:
    if not stat.S_ISDIR(st.st_mode):
        yield Node(rel, parent_fd, name, st)
        return
    try:
        fd = os.open(name, _DIR, dir_fd=parent_fd)
    except OSError as err:
        raise CopyFailed(f"{rel or name} cannot be opened ({err.strerror})") from None
    try:
        if (os.fstat(fd).st_ino, os.fstat(fd).st_dev) != (st.st_ino, st.st_dev):
            raise CopyFailed(f"{rel or name} was replaced while being read")
        yield Node(rel, parent_fd, name, st, fd)
        for child in sorted(os.listdir(fd)):
            try:
                cst = os.stat(child, dir_fd=fd, follow_symlinks=False)
            except OSError as err:
                raise CopyFailed(f"{rel}/{child} cannot be read ({err.strerror})") from None
            yield from _walk(fd, child, f"{rel}/{child}" if rel else child, cst)
        yield Node(rel, parent_fd, name, st, fd, leaving=True)
    finally:
        os.close(fd)


#: The most entries a manifest names (a journal line stays a few MB at most).
MANIFEST_FILES = 20_000


class _Digests:
    """The running digest and listing of a tree, entry by entry, in walk order."""

    def __init__(self, manifest: bool = False) -> None:
        self.digest = hashlib.blake2b(digest_size=32)
        self.listing = hashlib.blake2b(digest_size=32)
        self.bytes = self.files = 0
        self.manifest: dict[str, str] | None = {} if manifest else None

    def add(self, node: Node, content: str) -> None:
        kind = "d" if stat.S_ISDIR(node.st.st_mode) else \
            "l" if stat.S_ISLNK(node.st.st_mode) else "f"
        size = 0 if kind == "d" else node.st.st_size
        name = node.rel.encode("utf-8", "surrogateescape")
        self.digest.update(b"%s\0%s\0%d\0%s\n" % (name, kind.encode(), size,
                                                   content.encode("utf-8", "surrogateescape")))
        when = 0 if kind == "d" else node.st.st_mtime_ns
        self.listing.update(b"%s\0%s\0%d\0%d\n" % (name, kind.encode(), size, when))
        if kind == "f":
            self.bytes += size
            self.files += 1
        if self.manifest is not None and kind != "d":
            if len(self.manifest) < MANIFEST_FILES:
                self.manifest[node.rel] = hashlib.blake2b(
                    content.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()
            else:
                self.manifest = None

    def summary(self) -> Summary:
        return Summary(self.digest.hexdigest(), self.listing.hexdigest(), self.bytes,
                       self.files, self.manifest)


def summarize(parent_fd: int, name: str, read: bool = True, cancel: Cancel | None = None,
              on_bytes: OnBytes | None = None, manifest: bool = False) -> Summary:
    """The summary of a tree as it is on disk; with ``read`` False only the listing is
    meaningful (no file is opened)."""
    sums = _Digests(manifest)
    try:
        for node in walk(parent_fd, name):
            if stat.S_ISDIR(node.st.st_mode):
                if not node.leaving:
                    sums.add(node, "")
            elif stat.S_ISLNK(node.st.st_mode):
                sums.add(node, os.readlink(node.name, dir_fd=node.parent_fd))
            else:
                sums.add(node, _hash_file(node, cancel, on_bytes) if read else "")
    except OSError as err:
        raise CopyFailed(f"cannot be read back ({err.strerror or err})") from None
    return sums.summary()


def _hash_file(node: Node, cancel: Cancel | None, on_bytes: OnBytes | None) -> str:
    digest = hashlib.blake2b(digest_size=32)
    try:
        for block in iter_blocks(node.name, BLOCK, dir_fd=node.parent_fd):
            if cancel is not None and cancel():
                raise Cancelled
            digest.update(block)
            if on_bytes is not None:
                on_bytes(len(block))
    except Unreadable as err:
        raise CopyFailed(f"{node.rel or node.name} {err}") from None
    return digest.hexdigest()


def copy_tree(src_fd: int, name: str, dst_fd: int, dst_name: str,
              on_bytes: OnBytes | None = None, cancel: Cancel | None = None,
              manifest: bool = False) -> Summary:
    """Copy ``name`` of folder ``src_fd`` to the new ``dst_name`` of ``dst_fd``, everything
    fsynced, and return the source's summary as it was read. Raises CopyFailed (OSError
    such as a full disk included) or Cancelled; the partial copy is left to the caller."""
    sums = _Digests(manifest)
    made: list[int] = []  # descriptors of the copy's folders, innermost last
    try:
        for node in walk(src_fd, name):
            if cancel is not None and cancel():
                raise Cancelled
            into = made[-1] if made else dst_fd
            target = node.name if node.rel else dst_name
            mode = node.st.st_mode
            if stat.S_ISDIR(mode) and not node.leaving:
                os.mkdir(target, 0o700, dir_fd=into)
                made.append(os.open(target, _DIR, dir_fd=into))
                sums.add(node, "")
            elif stat.S_ISDIR(mode):
                done = made.pop()
                try:
                    _finish(done, node.st)
                finally:
                    os.close(done)
            elif stat.S_ISLNK(mode):
                points_to = os.readlink(node.name, dir_fd=node.parent_fd)
                os.symlink(points_to, target, dir_fd=into)
                os.utime(target, ns=(node.st.st_atime_ns, node.st.st_mtime_ns), dir_fd=into,
                         follow_symlinks=False)
                sums.add(node, points_to)
            else:
                sums.add(node, _copy_file(node, into, target, on_bytes, cancel))
        os.fsync(dst_fd)
    except OSError as err:
        raise CopyFailed(err.strerror or str(err)) from None
    finally:
        for fd in made:
            os.close(fd)
    return sums.summary()


def _finish(fd: int, st: os.stat_result) -> None:
    """A copied folder or file gets the source's mode and times, then reaches the disk."""
    os.chmod(fd, stat.S_IMODE(st.st_mode))
    os.utime(fd, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.fsync(fd)


def _copy_file(node: Node, into: int, target: str, on_bytes: OnBytes | None,
               cancel: Cancel | None) -> str:
    """Copy one regular file, hashing what is read; return the hash."""
    digest = hashlib.blake2b(digest_size=32)
    try:
        with open_regular(node.name, dir_fd=node.parent_fd) as (in_fd, info):
            if (info.st_ino, info.st_dev) != (node.st.st_ino, node.st.st_dev):
                raise CopyFailed(f"{node.rel or node.name} was replaced while being copied")
            out = os.open(target, _CREATE, 0o600, dir_fd=into)
            try:
                _copy_blocks(in_fd, out, info.st_size, digest, on_bytes, cancel)
                os.ftruncate(out, info.st_size)  # a trailing hole
                _finish(out, info)
                with contextlib.suppress(OSError, AttributeError):  # verify reads the disk
                    os.posix_fadvise(out, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(out)
    except Unreadable as err:
        raise CopyFailed(f"{node.rel or node.name} {err}") from None
    return digest.hexdigest()


def _copy_blocks(in_fd: int, out: int, size: int, digest: hashlib.blake2b,
                 on_bytes: OnBytes | None, cancel: Cancel | None) -> None:
    left = size
    while left > 0:
        if cancel is not None and cancel():
            raise Cancelled
        block = os.read(in_fd, min(BLOCK, left))
        if not block:
            raise CopyFailed("a file shrank while being copied")
        digest.update(block)
        if block.count(0) == len(block):
            os.lseek(out, len(block), os.SEEK_CUR)  # keep holes (sparse files) holes
        else:
            view = memoryview(block)
            while view:
                view = view[os.write(out, view):]
        left -= len(block)
        if on_bytes is not None:
            on_bytes(len(block))


def remove_tree(parent_fd: int, name: str) -> None:
    """Remove ``name`` and all below it, never following a link. Only for what mlspace wrote
    itself (a partial or superseded copy of an item that is still safe elsewhere)."""
    if entry_stat(parent_fd, name) is None:
        return
    for node in walk(parent_fd, name):
        if stat.S_ISDIR(node.st.st_mode):
            if not node.leaving:
                os.chmod(node.fd, 0o700)  # a read-only folder of the copy is ours to empty
            else:
                os.rmdir(node.name, dir_fd=node.parent_fd)
        else:
            os.unlink(node.name, dir_fd=node.parent_fd)
    with contextlib.suppress(OSError):
        os.fsync(parent_fd)


_RENAME_NOREPLACE = 1
_LIBC = ctypes.CDLL(None, use_errno=True)


def rename_noreplace(src_fd: int, src: str, dst_fd: int, dst: str) -> None:
    """Rename within one filesystem, failing with FileExistsError instead of replacing what
    took the name meanwhile. Falls back to check-then-rename where the kernel or filesystem
    has no RENAME_NOREPLACE (some network filesystems)."""
    renameat2 = getattr(_LIBC, "renameat2", None)
    if renameat2 is not None:
        if renameat2(src_fd, os.fsencode(src), dst_fd, os.fsencode(dst),
                     _RENAME_NOREPLACE) == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
            raise OSError(code, os.strerror(code), dst)
    if entry_stat(dst_fd, dst) is not None:
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), dst)
    os.rename(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd)
