"""Moving items to the cold tier: another disk, a NAS mount, a cluster's archive filesystem.

An item keeps its layout there, ``<archive_root>/<host>/<original absolute path>``, so anyone
can find it by hand. A move across filesystems is a copy, so every archived item goes
through these steps, each journaled (fsynced) before the next begins:

1. ``tier-copy-begun``: the copy is written under a temporary name beside its final place;
2. ``tier-copied``: the copy is complete, fsynced and read back equal (BLAKE2b of every
   byte, computed while copying), and the original did not change meanwhile;
3. ``tier-placed``: the copy was renamed to its final name (atomic, never over anything);
4. ``trashed``: the original went to the trash, through the descriptor that was checked
   (:mod:`mlspace.act.moves`): a second net, never a deletion;
5. ``tier-linked``: a symlink (or stub) to the copy stands at the original path.

A move that stops anywhere (a kill, a full tier, the NAS going away, the user cancelling)
is settled by :mod:`mlspace.act.tier_undo`: before step 4 it is rolled back (the partial
or placed copy removed; the original never moved), after it finished (the link left).
Nothing is ever half-copied with its original gone. Items whose action is "trash" go the
way of any cleanup (:func:`mlspace.act.cleanup.execute`), in the same journal.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

from mlspace import fmt
from mlspace.act import checks, moves, pointer, trash, treecopy
from mlspace.act.cleanup import CleanupResult, Outcome, Progress, _one, _recheck
from mlspace.act.journal import (
    COPIED,
    COPY_BEGUN,
    LINKED,
    PLACED,
    ROLLED_BACK,
    SKIPPED,
    TRASHED,
    Journal,
    JournalUnavailable,
    run_title,
)
from mlspace.act.moves import MoveRefused
from mlspace.act.slow_disk import device_of
from mlspace.act.tier_advice import ARCHIVE_POLICIES
from mlspace.advise import PlanItem, Suggestion

ARCHIVE, TRASH = "archive", "trash"
#: Called after each journaled step with (event, path): the app shows it; tests stop there.
OnStep = Callable[[str, str], None]
Cancel = Callable[[], bool]


class TierUnavailable(Exception):
    """The cold tier cannot be used at all (not configured, not there); nothing moved."""


def _host() -> str:
    return socket.gethostname().split(".")[0] or "localhost"


@dataclass(frozen=True)
class Tier:
    root: str  # the folder the user named (absolute)
    link: str = "symlink"  # what stands at an archived item's path: "symlink" or "stub"
    host: str = field(default_factory=_host)
    #: A tier on the items' own filesystem frees nothing, and is most often a NAS that is
    #: not mounted (its empty mount point): refused unless allowed (tests).
    allow_same_filesystem: bool = False

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


def root_problem(root: str, scanned: Sequence[str]) -> str | None:
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


def same_disk_as(root: str, scanned: Sequence[str]) -> str | None:
    """A scanned folder on the same filesystem as ``root`` (archiving there would free
    nothing, and each item is refused), or None; also None when ``root`` does not answer
    at once (a network disk gone: planning must not wait for it, and an archive run asks
    it again, in the background)."""
    device = device_of(root)
    if device is None:
        return None
    return next((f for f in scanned if device_of(f) == device), None)


def progress_words(done: int, total: int, seconds: float) -> str:
    """"1.2 GiB of 3.4 GiB, 210 MiB/s, 12 s left": a copy's progress, as the terminal and
    the app show it."""
    rate = done / max(seconds, 1e-3)
    left = f", {fmt.duration((total - done) / rate)} left" if rate and total > done else ""
    of = f" of {fmt.size(total)}" if total else ""
    return f"{fmt.size(done)}{of}, {fmt.size(rate)}/s{left}"


@dataclass
class _Run:
    """What every item of one run shares."""

    roots: Sequence[str]
    tier: Tier | None
    journal: Journal
    cleanup_id: str
    busy: list[str]
    recent_seconds: float
    progress: Progress | None
    on_step: OnStep | None
    cancel: Cancel | None
    total: int
    done: int = 0

    def step(self, event: str, path: str, **details: object) -> None:
        self.journal.record(event, path, **details)
        if self.on_step is not None:
            self.on_step(event, path)

    def moved(self, count: int, path: str) -> None:
        self.done += count
        if self.progress is not None:
            self.progress(self.done, self.total, path)


def run(work: Sequence[tuple[Suggestion, str]], roots: Sequence[str], tier: Tier | None, *,
        recent_seconds: float = checks.RECENT_SECONDS, progress: Progress | None = None,
        on_step: OnStep | None = None, cancel: Cancel | None = None,
        title: str | None = None, meta: dict | None = None) -> CleanupResult:
    """Apply each suggestion with its action ("archive" or "trash"), re-checking every item
    as a cleanup does. ``progress`` gets (bytes copied and verified, bytes to do, path);
    ``cancel`` is polled between blocks: the item being copied is rolled back and nothing
    more is done. Raises TierUnavailable or JournalUnavailable having moved nothing."""
    from mlspace.act.tier_undo import settle_interrupted

    work = [(s, ARCHIVE if s.policy in ARCHIVE_POLICIES else action) for s, action in work]
    archiving = [s for s, action in work if action == ARCHIVE]
    if archiving:
        if tier is None:
            raise TierUnavailable("no archive folder is configured (archive_root in "
                                  "config.toml, or --to)")
        tier.check()
    settle_interrupted(roots)
    items = [(s, i, action) for s, action in work for i in s.items]
    journal, cleanup_id = Journal.begin(
        title or _title(work), list(roots),
        [{**asdict(i), "suggestion": s.id, "action": action,
          "dest": tier.destination(i.path) if action == ARCHIVE and tier else None}
         for s, i, action in items],
        kind="tier", meta={**(meta or {}), "tier": tier.root if tier else None,
                           "link": tier.link if tier else None})
    ctx = _Run(roots, tier, journal, cleanup_id, checks.paths_in_use(), recent_seconds,
               progress, on_step, cancel,
               2 * sum(i.apparent_size for _, i, a in items if a == ARCHIVE))
    outcomes: list[Outcome] = []
    stopped = ""
    for n, (suggestion, item, action) in enumerate(items):
        if cancel is not None and cancel():
            stopped = "cancelled; nothing more was moved"
        elif action == ARCHIVE:
            ctx.moved(0, item.path)
            with contextlib.suppress(JournalUnavailable):
                outcomes.append(_archive_one(item, n, ctx))
        else:
            ctx.moved(0, item.path)
            with contextlib.suppress(JournalUnavailable):
                outcomes.append(_one(item, roots, ctx.busy, recent_seconds, journal,
                                     suggestion.archive))
        if journal.failed:
            stopped = f"{journal.failed}; nothing more was moved"
        elif outcomes and outcomes[-1].reason.startswith("cancelled"):
            stopped = "cancelled; nothing more was moved"
        if stopped:
            done = {o.path for o in outcomes}
            outcomes += [Outcome(i.path, False, "not attempted: " + stopped)
                         for _, i, _ in items[n:] if i.path not in done]
            break
    return CleanupResult(cleanup_id, tuple(outcomes), stopped)


def _title(work: Sequence[tuple[Suggestion, str]]) -> str:
    return run_title([f"Archive: {s.title}" if action == ARCHIVE and
                      not s.title.startswith("Archive") else s.title for s, action in work])


def _archive_one(item: PlanItem, index: int, ctx: _Run) -> Outcome:
    assert ctx.tier is not None
    reason = _recheck(item, ctx.roots, ctx.busy, ctx.recent_seconds)
    if reason is None:
        dest = ctx.tier.destination(item.path)
        try:
            with moves.parent_of(item.path, ctx.roots) as (src_fd, name):
                # Refused before the destination's folders are made (none is left behind).
                if not ctx.tier.allow_same_filesystem and \
                        os.stat(ctx.tier.root).st_dev == os.fstat(src_fd).st_dev:
                    raise MoveRefused(_same_disk(ctx.tier))
                with moves.parent_of(dest, [ctx.tier.root], create=True) as (dst_fd, dname):
                    return _move(item, (src_fd, name), (dst_fd, dname), index, ctx)
        except MoveRefused as err:
            reason = str(err)
        except (OSError, trash.TrashUnavailable) as err:
            reason = f"could not be archived ({getattr(err, 'strerror', None) or err})"
    ctx.journal.record(SKIPPED, item.path, reason=reason)
    return Outcome(item.path, False, reason)


def _same_disk(tier: Tier) -> str:
    return (f"the archive folder {tier.root} is on the same disk as this item (is it "
            "mounted?); nothing was done")


def _why_not(item: PlanItem, src: tuple[int, str], dst: tuple[int, str], tier: Tier
             ) -> str | None:
    """Why the item cannot start moving to the tier now, or None."""
    st = moves.entry_stat(*src)
    if st is None:
        return "no longer there"
    if (reason := moves.same_entry(st, item.is_dir, item.inode)) is not None:
        return reason
    if moves.entry_stat(*dst) is not None:
        return f"the archive already holds {tier.destination(item.path)}; nothing was done"
    if not tier.allow_same_filesystem and os.fstat(dst[0]).st_dev == os.fstat(src[0]).st_dev:
        return _same_disk(tier)
    free = treecopy.free_bytes(dst[0])
    if item.apparent_size > free:
        return (f"the archive folder has {fmt.size(free)} free, {fmt.size(item.apparent_size)}"
                " needed; nothing was done")
    return None


def _move(item: PlanItem, src: tuple[int, str], dst: tuple[int, str], index: int,
          ctx: _Run) -> Outcome:
    """Steps 1-5 of the module doc for one checked item."""
    assert ctx.tier is not None
    path, dest = item.path, ctx.tier.destination(item.path)
    reason = _why_not(item, src, dst, ctx.tier)
    if reason is not None:
        ctx.journal.record(SKIPPED, path, reason=reason)
        return Outcome(path, False, reason)
    st = moves.entry_stat(*src)
    assert st is not None
    temp = f".mlspace-partial-{ctx.cleanup_id}-{index}"
    ctx.step(COPY_BEGUN, path, dest=dest, temp=os.path.join(os.path.dirname(dest), temp))
    try:
        copied = treecopy.copy_tree(*src, dst[0], temp,
                                    lambda n: ctx.moved(n, path), ctx.cancel)
        check = treecopy.summarize(dst[0], temp, cancel=ctx.cancel,
                                   on_bytes=lambda n: ctx.moved(n, path))
        if check.digest != copied.digest:
            raise treecopy.CopyFailed("the copy does not read back the same")
        if treecopy.summarize(*src, read=False).listing != copied.listing:
            raise treecopy.CopyFailed("it changed while being copied (a running job?)")
    except (treecopy.CopyFailed, treecopy.Cancelled) as err:
        return _roll_back(path, dst, temp, ctx, err)
    _step_or_roll_back(ctx, COPIED, path, dst, temp, dest=dest, digest=copied.digest,
                       listing=copied.listing, bytes=copied.bytes)
    try:
        treecopy.rename_noreplace(dst[0], temp, *dst)
    except OSError as err:
        return _roll_back(path, dst, temp, ctx, f"it could not be put in place ({err})")
    try:
        os.fsync(dst[0])
    except OSError as err:
        return _roll_back(path, dst, dst[1], ctx, f"the archive folder failed ({err})")
    _step_or_roll_back(ctx, PLACED, path, dst, dst[1], dest=dest)
    now = moves.entry_stat(*src)
    if now is None or now.st_ino != st.st_ino or now.st_dev != st.st_dev:
        return _roll_back(path, dst, dst[1], ctx, "it was replaced while being archived")
    try:
        where = trash.trash_entry(*src, path)
    except (OSError, trash.TrashUnavailable) as err:
        return _roll_back(path, dst, dst[1], ctx, f"could not be moved to the trash ({err})")
    ctx.step(TRASHED, path, trash_file=where.trash_file, info_file=where.info_file,
             inode=st.st_ino, device=st.st_dev, dest=dest)
    try:
        link = pointer.leave(*src, path, dest, ctx.tier.link, ctx.cleanup_id)
        note = ""
    except OSError as err:
        link, note = None, f" (no link was left at the original path: {err.strerror or err})"
    ctx.step(LINKED, path, dest=dest, link=link)
    return Outcome(path, True, dest + note, item.disk_usage)


def _step_or_roll_back(ctx: _Run, event: str, path: str, dst: tuple[int, str], made: str,
                       **details: object) -> None:
    """Journal a step; if the journal cannot be written, undo what it would have covered
    (the copy ``made``; the original has not moved) and let the run stop."""
    try:
        ctx.step(event, path, **details)
    except JournalUnavailable:
        with contextlib.suppress(OSError, treecopy.CopyFailed):
            treecopy.remove_tree(dst[0], made)
        raise


def _roll_back(path: str, dst: tuple[int, str], made: str, ctx: _Run,
               why: object) -> Outcome:
    """The original never moved: remove the copy mlspace made of it (``made`` in the tier
    folder ``dst``) and say why the item stayed."""
    cancelled = isinstance(why, treecopy.Cancelled)
    reason = "cancelled; the original is untouched" if cancelled else \
        f"not archived: {why}; the original is untouched"
    try:
        treecopy.remove_tree(dst[0], made)
    except (OSError, treecopy.CopyFailed) as err:  # the tier went away: settled later
        left = os.path.join(os.path.dirname(ctx.tier.destination(path)) if ctx.tier else "",
                            made)
        return Outcome(path, False, f"{reason} (a partial copy is left at {left}: "
                       f"{getattr(err, 'strerror', None) or err}; `mlspace undo "
                       f"{ctx.cleanup_id}` removes it)")
    ctx.journal.record(ROLLED_BACK, path, reason=reason)
    return Outcome(path, False, reason)
