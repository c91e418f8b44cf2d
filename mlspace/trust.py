"""Whose files mlspace takes instructions from: the ownership rule, in one place.

mlspace acts on what some files say (the policy file, ``config.toml``, ``rules.toml``) and
keeps the only record of what it did in others (the cleanup journal, the policy-run log, the
saved scans' history). On a shared machine another user must not be able to write those,
or they steer what happens to your files. The rule, as OpenSSH's StrictModes has it:

- such a file is owned by you (or root) and not writable by group or others;
- every folder above it is owned by you (or root) and not writable by group or others,
  unless it is sticky (``/tmp``, a mode-1777 scratch space: there nobody but an entry's
  owner may rename or remove it), so nobody else can replace the file or a folder on the
  way to it;
- a folder that holds such files (the journal folder, the history folder) is itself
  yours and not writable by group or others, sticky or not: nobody else may add a file.

Symbolic links are followed when they are yours (or root's), so a dotfiles manager that
links ``~/.config/mlspace/config.toml`` into a repository keeps working; the folders of
the link's target are checked the same way. Anything else is refused with
:class:`Untrusted`, whose message says why and how to fix it (``chmod go-w FILE``).

Once a path passes, nobody but you and root can change what it leads to, so it may then
be opened by name; it is still opened through :mod:`mlspace.safe_read` (regular files only,
bounded, the opened file checked to be the one that was checked).

Where the platform has no owners and modes (Windows), only the bounded reading remains.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shlex
import stat
from dataclasses import dataclass

from mlspace.safe_read import (
    NOT_THERE,
    Unreadable,
    Verify,
    not_regular,
    os_reason,
    read_bytes,
    read_tail,
)

#: Links followed on the way to one file before giving up (the kernel's own limit).
MAX_LINKS = 40
_HAS_OWNERS = hasattr(os, "geteuid")


class Untrusted(Unreadable):
    """A file or folder another user could have written; ``str(err)`` says who or what
    could, and the command that fixes it. ``foreign`` is True when the file itself (or a
    link to it) is another user's, rather than yours with loose permissions."""

    def __init__(self, message: str, foreign: bool = False) -> None:
        super().__init__(message)
        self.foreign = foreign


def _me() -> int:
    return os.geteuid()


def _trusted_owner(uid: int) -> bool:
    return uid in (0, _me())


def owner_words(uid: int) -> str:
    """"alice (uid 1001)", or "uid 1001" when this machine has no name for it."""
    try:
        import pwd

        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        return f"uid {uid}"


def _loose(st: os.stat_result) -> int:
    """The write bits of ``st`` that let someone else write: others' always; the group's
    unless the group is the owner's alone (see _owners_own_group)."""
    bits = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if bits & stat.S_IWGRP and _owners_own_group(st.st_gid, st.st_uid):
        bits &= ~stat.S_IWGRP
    return bits


@functools.lru_cache(maxsize=64)
def _owners_own_group(gid: int, uid: int) -> bool:
    """Is ``gid`` a user private group of ``uid``: a group whose one member is that user?
    Debian, Ubuntu and Fedora give every user one, with a umask of 002, so the files a user
    makes are group-writable by nobody else. Debian's OpenSSH allows these the same way:
    no supplementary member but the owner, and no other user with it as primary group."""
    try:
        import grp
        import pwd

        group, owner = grp.getgrgid(gid), pwd.getpwuid(uid)
        if any(name != owner.pw_name for name in group.gr_mem):
            return False
        primary = [user.pw_uid for user in pwd.getpwall() if user.pw_gid == gid]
    except (ImportError, KeyError, OSError):
        return False
    return bool(primary or group.gr_mem) and all(user == uid for user in primary)


def _writers(bits: int, st: os.stat_result) -> str:
    """Who else may write, in words: "the group users and others"."""
    group = f"the group {_group_words(st.st_gid)}"
    return f"{group} and others" if bits & stat.S_IWGRP and bits & stat.S_IWOTH else \
        group if bits & stat.S_IWGRP else "others"


def _group_words(gid: int) -> str:
    try:
        import grp

        return grp.getgrgid(gid).gr_name
    except (ImportError, KeyError):
        return f"gid {gid}"


def _cmd(path: str) -> str:
    return f"`chmod go-w {shlex.quote(path)}`"


def _named(path: str, real: str) -> str:
    """How a message names the file: as given, with where a link led."""
    given = os.path.abspath(path)
    return given if given == real else f"{given} (a link to {real})"


def _check_file(shown: str, real: str, st: os.stat_result) -> None:
    if not _trusted_owner(st.st_uid):
        raise Untrusted(f"{shown} belongs to {owner_words(st.st_uid)}, not to you: mlspace "
                        "takes no instructions from, and keeps no records in, a file "
                        "another user can change", foreign=True)
    if bits := _loose(st):
        raise Untrusted(f"{shown} can be changed by {_writers(bits, st)} (mode "
                        f"{stat.S_IMODE(st.st_mode):04o}), so someone else could change what it "
                        f"says; fix it with {_cmd(real)}")


def _check_store(path: str, st: os.stat_result) -> None:
    """A folder mlspace keeps records in: yours, and nobody else may add files to it."""
    if not _trusted_owner(st.st_uid):
        raise Untrusted(f"{path} belongs to {owner_words(st.st_uid)}, not to you: mlspace "
                        "keeps no records in a folder another user controls; move it "
                        "aside and mlspace makes a new one")
    if bits := _loose(st):
        raise Untrusted(f"{path} can be written by {_writers(bits, st)} (mode "
                        f"{stat.S_IMODE(st.st_mode):04o}), so someone else could add or replace "
                        f"the records in it; fix it with {_cmd(path)}")


def _check_ancestor(folder: str, st: os.stat_result, below: str) -> None:
    """A folder on the way to ``below``: nobody else may replace what is in it."""
    if not _trusted_owner(st.st_uid):
        raise Untrusted(f"{folder}, which holds {below}, belongs to "
                        f"{owner_words(st.st_uid)}, who could replace what is in it; keep "
                        "mlspace's files in a folder of your own")
    if (bits := _loose(st)) and not st.st_mode & stat.S_ISVTX:
        raise Untrusted(f"{folder}, which holds {below}, can be written by "
                        f"{_writers(bits, st)} (mode {stat.S_IMODE(st.st_mode):04o}), so "
                        f"someone else could replace what is in it; fix it with {_cmd(folder)} "
                        "(or make it sticky, `chmod +t`)")


def _check_link(path: str, st: os.stat_result) -> None:
    if _HAS_OWNERS and not _trusted_owner(st.st_uid):
        raise Untrusted(f"{path} is a link that belongs to {owner_words(st.st_uid)}, not to "
                        "you: mlspace follows no link another user made", foreign=True)


def _lstat(path: str) -> os.stat_result:
    try:
        return os.lstat(path)
    except NotADirectoryError:
        raise Unreadable(NOT_THERE) from None
    except OSError as err:
        raise Unreadable(os_reason(err)) from None


def resolve(path: str | os.PathLike[str]) -> tuple[str, os.stat_result]:
    """The real path ``path`` leads to and its ``lstat``, having checked every folder on the
    way and every link followed (see the module doc; the last entry itself is the caller's
    to judge). Raises :class:`Untrusted`, or Unreadable (NOT_THERE when nothing is there)."""
    given = os.path.abspath(os.fspath(path))
    todo = [p for p in reversed(given.split(os.sep)) if p]
    current = os.sep
    st = _lstat(current)
    links = 0
    while todo:
        name = todo.pop()
        if name == ".":
            continue
        if name == "..":
            current = os.path.dirname(current)
            st = _lstat(current)
            continue
        if not stat.S_ISDIR(st.st_mode):
            raise Unreadable(NOT_THERE)
        if _HAS_OWNERS:
            _check_ancestor(current, st, given)
        candidate = os.path.join(current, name)
        st = _lstat(candidate)
        if stat.S_ISLNK(st.st_mode):
            _check_link(candidate, st)
            links += 1
            if links > MAX_LINKS:
                raise Unreadable("too many levels of symbolic links")
            try:
                target = os.readlink(candidate)
            except OSError as err:
                raise Unreadable(os_reason(err)) from None
            if os.path.isabs(target):
                current = os.sep
            todo += [p for p in reversed(target.split(os.sep)) if p]
            st = _lstat(current)
            continue
        current = candidate
    return current, st


def check_file(path: str | os.PathLike[str]) -> str:
    """Check a file mlspace takes instructions from; returns its real path. Raises
    :class:`Untrusted`, or Unreadable (NOT_THERE when there is none)."""
    real, st = resolve(path)
    if _HAS_OWNERS:  # first: another user's FIFO is theirs before it is a FIFO
        _check_file(_named(os.fspath(path), real), real, st)
    if (why := not_regular(st.st_mode)) is not None:
        raise Unreadable(why)
    return real


def _verifier(shown: str, real: str) -> Verify | None:
    """The same check on the file as opened (safe_read compares it with the lstat)."""
    if not _HAS_OWNERS:
        return None
    return lambda info: _check_file(shown, real, info)


def read_file(path: str | os.PathLike[str], limit: int) -> bytes:
    """The content of a file mlspace takes instructions from (at most ``limit`` bytes),
    once it passes :func:`check_file`."""
    real = check_file(path)
    return read_bytes(real, limit, verify=_verifier(_named(os.fspath(path), real), real))


@dataclass(frozen=True)
class Store:
    """A folder mlspace keeps records in, checked: its files are read through it."""

    path: str  # as given (for messages)
    real: str  # where it is

    def names(self) -> list[str]:
        """The names in the folder, sorted."""
        try:
            return sorted(os.listdir(self.real))
        except OSError as err:
            raise Unreadable(os_reason(err)) from None

    def check(self, name: str) -> str:
        """The path of the record ``name`` once it is a regular file of yours that nobody
        else can write (a link, FIFO or device is refused, not opened)."""
        full = os.path.join(self.real, name)
        shown = os.path.join(self.path, name)
        st = _lstat(full)
        if stat.S_ISLNK(st.st_mode):  # never a record here, whoever made it
            _check_link(shown, st)
            raise Unreadable(str(not_regular(st.st_mode)))
        if _HAS_OWNERS:
            _check_file(shown, full, st)
        if (why := not_regular(st.st_mode)) is not None:
            raise Unreadable(why)
        return full

    def read(self, name: str, limit: int) -> bytes:
        """The whole record ``name``, at most ``limit`` bytes."""
        full = self.check(name)
        return read_bytes(full, limit, verify=_verifier(os.path.join(self.path, name), full))

    def read_end(self, name: str, length: int) -> bytes:
        """The last ``length`` bytes of the record ``name`` (an append-only log)."""
        full = self.check(name)
        return read_tail(full, length, verify=_verifier(os.path.join(self.path, name), full))


def store(path: str | os.PathLike[str]) -> Store:
    """The folder at ``path`` as a :class:`Store`, once it and every folder above it pass
    the rule. Raises :class:`Untrusted`, or Unreadable (NOT_THERE when there is none)."""
    real, st = resolve(path)
    if not stat.S_ISDIR(st.st_mode):
        raise Unreadable(f"{path} is not a folder")
    if _HAS_OWNERS:
        _check_store(os.fspath(path), st)
    return Store(os.fspath(path), real)


def reason(path: str | os.PathLike[str], err: Unreadable) -> str:
    """``err`` as a sentence naming ``path`` once (an Untrusted message names it already)."""
    return str(err) if isinstance(err, Untrusted) else f"{os.fspath(path)}: {err}"


# ---------------------------------------------------------------------------- writing
#: What mlspace makes for its own records: the user's alone, whatever the umask (a umask of
#: 002 with a group other users are in would make them group-writable, and refused).
FOLDER_MODE, FILE_MODE = 0o700, 0o600


def private_opener(path: str, flags: int) -> int:
    """``open(path, mode, opener=private_opener)``: a file mlspace creates is mode 0600,
    and a link in its place is never followed."""
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)


def make_folders(path: str | os.PathLike[str]) -> None:
    """``mkdir -p path``, each folder made mode 0700 (never a looser one, whatever the
    umask); folders already there are left as they are (the rule then judges them)."""
    missing = []
    folder = os.path.abspath(os.fspath(path))
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        missing.append(folder)
        folder = os.path.dirname(folder)
    for made in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(made, FOLDER_MODE)


def close_to_others(path: str | os.PathLike[str]) -> None:
    """``chmod go-w path``: a file the user had mlspace write (``policy init``) that it
    will take instructions from, whatever the umask made of it."""
    mode = stat.S_IMODE(os.stat(path, follow_symlinks=False).st_mode)
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        os.chmod(path, mode & ~(stat.S_IWGRP | stat.S_IWOTH))


def write_private(path: str | os.PathLike[str], text: str, errors: str = "strict") -> None:
    """Write one of mlspace's own files (settings, the guard's state and reports) whole,
    private to the user (mode 0600, never through a link), renamed into place so a reader
    never sees half of it, and no partial file is left behind if writing fails. ``errors``:
    "strict" refuses text UTF-8 cannot hold (a TOML file must be valid UTF-8, so a name
    with undecodable bytes is a ValueError there); "surrogateescape" writes such a name's
    own bytes back (a report naming the user's files)."""
    path = os.fspath(path)
    make_folders(os.path.dirname(path) or ".")
    temp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(temp, "w", encoding="utf-8", errors=errors, opener=private_opener) as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
