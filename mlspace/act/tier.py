"""The cold tier as a destination: another disk, a NAS mount, a cluster's archive filesystem.

An item keeps its layout there, ``<archive_root>/<host>/<original absolute path>``, so anyone
can find it by hand. A move across filesystems is a copy, so every archived item goes
through these steps, each journaled (fsynced) before the next begins:

1. ``tier-copy-begun``: the copy is written under a temporary name beside its final place;
2. ``tier-copied``: the copy is complete, fsynced and read back equal (BLAKE2b of every
   byte, computed while copying; each file's digest is kept in the journal's manifest, so
   a later bring-back can say which file differs), and the original did not change;
3. ``tier-placed``: the copy was renamed to its final name (atomic, never over anything);
4. ``tier-set-aside``: the original was renamed aside in its own folder (through the
   descriptor that was checked), so nothing written to its path from now on is lost with
   it, and is found to be exactly what was copied;
5. ``tier-removed``: the original was removed from the fast disk: the verified copy in the
   tier is the item now, and the disk has its space back;
6. ``tier-linked``: a symlink (or stub) to the copy stands at the original path.

A move that stops anywhere is settled by :mod:`mlspace.act.settle`: before step 5 it is
rolled back (the copy removed, the original put back in place), after it finished (the
link left). Nothing is ever half-copied with its original gone. Undo and bring-back copy
the item back and verify it against the digest of step 2 (:mod:`mlspace.act.copy_back`).

The tier's folders are the only copy of what it holds, so they must be the user's: every
folder mlspace makes there is mode 0700, and a folder below the tier's root that it did not
make (another owner, or open to others) is never written into or trusted
(:func:`mlspace.act.moves.parent_of` with ``owned``).
"""

from __future__ import annotations

import contextlib
import os
import socket
from dataclasses import dataclass, field

from mlspace import fmt
from mlspace.act import moves, pointer, treecopy
from mlspace.act.journal import (
    COPIED,
    COPY_BEGUN,
    LINKED,
    PLACED,
    REMOVED,
    ROLLED_BACK,
    SET_ASIDE,
    JournalUnavailable,
)
from mlspace.act.moves import MoveRefused
from mlspace.act.outcomes import TO_TIER, Outcome
from mlspace.act.steps import Run
from mlspace.advise import PlanItem
from mlspace.disks import available_bytes


class TierUnavailable(Exception):
    """The cold tier cannot be used at all (not configured, not there); nothing moved."""


def _host() -> str:
    return socket.gethostname().split(".")[0] or "localhost"


@dataclass(frozen=True)
class Tier:
    root: str  # the folder the user named (absolute)
    link: str = "symlink"  # what stands at an archived item's path: "symlink" or "stub"
    host: str = field(default_factory=_host)

    def destination(self, path: str) -> str:
        return os.path.join(self.root, self.host, path.lstrip(os.sep))

    def check(self) -> None:
        """Raise TierUnavailable unless the root is a folder mlspace can write in."""
        if not os.path.isdir(self.root):
            raise TierUnavailable(f"the archive folder {self.root} is not there (not "
                                  "mounted?); nothing was moved")
        if not os.access(self.root, os.W_OK | os.X_OK):
            raise TierUnavailable(f"the archive folder {self.root} is not writable; nothing "
                                  "was moved")


def root_problem(root: str, scanned: list[str] | tuple[str, ...]) -> str | None:
    """Why ``root`` cannot be the cold tier for these scanned folders, or None: it must be
    an absolute folder that is there and writable, and not inside a scanned folder (what is
    archived would be scanned, and suggested, again)."""
    if not os.path.isabs(root):
        return f"{root} is not an absolute path"
    try:
        Tier(root).check()
    except TierUnavailable as err:
        return str(err).split(";")[0]
    real = os.path.realpath(root)
    for folder in scanned:
        if real == os.path.realpath(folder) or \
                real.startswith(os.path.realpath(folder).rstrip(os.sep) + os.sep):
            return f"{root} is inside the scanned folder {folder}"
    return None


def progress_words(done: int, total: int, seconds: float) -> str:
    """"1.2 GiB of 3.4 GiB, 210 MiB/s, 12 s left": a copy's progress, as the terminal and
    the app show it."""
    rate = done / max(seconds, 1e-3)
    left = f", {fmt.duration((total - done) / rate)} left" if rate and total > done else ""
    of = f" of {fmt.size(total)}" if total else ""
    return f"{fmt.size(done)}{of}, {fmt.size(rate)}/s{left}"


def same_disk_words(tier: Tier) -> str:
    return (f"the archive folder {tier.root} is on the same disk as this item (is it "
            "mounted?); archiving there would free nothing, so nothing was done")


def archive_item(item: PlanItem, index: int, tier: Tier, ctx: Run) -> Outcome:
    """Re-check ``item`` and move it to the tier (steps 1-6 of the module doc). ``ctx`` is
    the executor's Run."""
    reason = ctx.recheck(item)
    if reason is None:
        dest = tier.destination(item.path)
        try:
            with moves.parent_of(item.path, ctx.roots) as (src_fd, name):
                # Refused before the destination's folders are made (none is left behind).
                if os.stat(tier.root).st_dev == os.fstat(src_fd).st_dev:
                    raise MoveRefused(same_disk_words(tier))
                with moves.parent_of(dest, [tier.root], create=True, owned=True
                                     ) as (dst_fd, dname):
                    return _Move(item, (src_fd, name), (dst_fd, dname), index, tier, ctx).go()
        except MoveRefused as err:
            reason = str(err)
        except OSError as err:
            reason = f"could not be archived ({err.strerror or err})"
    return ctx.skip(item.path, reason)


class _Move:
    """One checked item on its way to the tier."""

    def __init__(self, item: PlanItem, src: tuple[int, str], dst: tuple[int, str],
                 index: int, tier: Tier, ctx: Run) -> None:
        self.item, self.src, self.dst, self.tier, self.ctx = item, src, dst, tier, ctx
        self.path, self.dest = item.path, tier.destination(item.path)
        self.temp = f".mlspace-partial-{ctx.cleanup_id}-{index}"
        self.aside = f".mlspace-archiving-{ctx.cleanup_id}-{index}"

    def go(self) -> Outcome:
        reason = self._why_not()
        if reason is not None:
            return self.ctx.skip(self.path, reason)
        st = moves.entry_stat(*self.src)
        assert st is not None
        ctx = self.ctx
        ctx.step(COPY_BEGUN, self.path, dest=self.dest,
                 temp=os.path.join(os.path.dirname(self.dest), self.temp))
        try:
            copied = treecopy.copy_tree(*self.src, self.dst[0], self.temp,
                                        lambda n: ctx.moved(n, self.path),
                                        ctx.cancel, manifest=True)
            check = treecopy.summarize(self.dst[0], self.temp, cancel=ctx.cancel,
                                       on_bytes=lambda n: ctx.moved(n, self.path))
            if check.digest != copied.digest:
                raise treecopy.CopyFailed("the copy does not read back the same")
            if treecopy.summarize(*self.src, read=False).listing != copied.listing:
                raise treecopy.CopyFailed("it changed while being copied (a running job?)")
        except (treecopy.CopyFailed, treecopy.Cancelled) as err:
            return self._roll_back(self.temp, err)
        self._step_or_roll_back(COPIED, self.temp, dest=self.dest, digest=copied.digest,
                                listing=copied.listing, bytes=copied.bytes,
                                manifest=copied.manifest)
        try:
            treecopy.rename_noreplace(self.dst[0], self.temp, *self.dst)
            os.fsync(self.dst[0])
        except OSError as err:
            return self._roll_back(self.temp, f"it could not be put in place ({err})")
        self._step_or_roll_back(PLACED, self.dst[1], dest=self.dest)
        now = moves.entry_stat(*self.src)
        if now is None or (now.st_ino, now.st_dev) != (st.st_ino, st.st_dev):
            return self._roll_back(self.dst[1], "it was replaced while being archived")
        parent_before = os.fstat(self.src[0]).st_mtime_ns
        try:
            treecopy.rename_noreplace(self.src[0], self.src[1], self.src[0], self.aside)
        except OSError as err:
            return self._roll_back(self.dst[1], f"it could not be set aside ({err})")
        ctx.step(SET_ASIDE, self.path, dest=self.dest, aside=self.aside)
        if treecopy.summarize(self.src[0], self.aside, read=False).listing != copied.listing:
            treecopy.rename_noreplace(self.src[0], self.aside, *self.src)
            return self._roll_back(self.dst[1], "it changed while being archived (a running "
                                   "job?)")
        treecopy.remove_tree(self.src[0], self.aside)
        ctx.step(REMOVED, self.path, dest=self.dest)
        try:
            link = pointer.leave(*self.src, self.path, self.dest, self.tier.link,
                                 ctx.cleanup_id)
            note = ""
        except OSError as err:
            link, note = None, f" (no link was left at the original path: {err.strerror or err})"
        ctx.step(LINKED, self.path, dest=self.dest, link=link,
                 parent_mtime_ns=[parent_before, os.fstat(self.src[0]).st_mtime_ns])
        return Outcome(self.path, True, self.dest + note, self.item.disk_usage, TO_TIER)

    def _why_not(self) -> str | None:
        """Why the item cannot start moving to the tier now, or None."""
        st = moves.entry_stat(*self.src)
        if st is None:
            return "no longer there"
        if (reason := moves.same_entry(st, self.item.is_dir, self.item.inode)) is not None:
            return reason
        if moves.entry_stat(*self.dst) is not None:
            return f"the archive already holds {self.dest}; nothing was done"
        if os.fstat(self.dst[0]).st_dev == os.fstat(self.src[0]).st_dev:
            return same_disk_words(self.tier)
        free = available_bytes(self.dst[0])
        if self.item.apparent_size > free:
            return (f"the archive folder has {fmt.size(free)} free, "
                    f"{fmt.size(self.item.apparent_size)} needed; nothing was done")
        return None

    def _step_or_roll_back(self, event: str, made: str, **details: object) -> None:
        """Journal a step; if the journal cannot be written, undo what it would have covered
        (the copy ``made``; the original has not moved) and let the run stop."""
        try:
            self.ctx.step(event, self.path, **details)
        except JournalUnavailable:
            with contextlib.suppress(OSError, treecopy.CopyFailed):
                treecopy.remove_tree(self.dst[0], made)
            raise

    def _roll_back(self, made: str, why: object) -> Outcome:
        """The original never left: remove the copy mlspace made of it (``made`` in the
        tier folder) and say why the item stayed."""
        cancelled = isinstance(why, treecopy.Cancelled)
        reason = "cancelled; the original is untouched" if cancelled else \
            f"not archived: {why}; the original is untouched"
        try:
            treecopy.remove_tree(self.dst[0], made)
        except (OSError, treecopy.CopyFailed) as err:  # the tier went away: settled later
            left = os.path.join(os.path.dirname(self.dest), made)
            return Outcome(self.path, False, f"{reason} (a partial copy is left at {left}: "
                           f"{getattr(err, 'strerror', None) or err}; `mlspace undo "
                           f"{self.ctx.cleanup_id}` removes it)")
        self.ctx.journal.record(ROLLED_BACK, self.path, reason=reason)
        return Outcome(self.path, False, reason)
