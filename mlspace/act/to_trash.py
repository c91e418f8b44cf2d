"""The trash as a destination: the item is renamed into the trash of its own filesystem,
through the folder descriptor the move reached, after checking that the entry there is the
one scanned. A log folder to compress is packed into ``<folder>.tar.gz`` beside it first,
and only when the archive came out smaller than the folder (else the folder stays, and the
run says so: a compression that frees nothing is no cleanup).

Nothing leaves the disk here: the bytes wait in the trash, where undo finds them, until a
purge (:mod:`mlspace.act.purge`) or the trash's retention deletes them.
"""

from __future__ import annotations

import contextlib
import os

from mlspace import fmt
from mlspace.act import moves, trash
from mlspace.act.archive import NotSmaller, make_archive
from mlspace.act.journal import ARCHIVED, TRASHED, JournalUnavailable
from mlspace.act.moves import MoveRefused
from mlspace.act.outcomes import TO_TRASH, Outcome
from mlspace.act.steps import Run
from mlspace.advise import PlanItem
from mlspace.advise.packing import WORTH


def trash_item(item: PlanItem, ctx: Run, pack: bool = False) -> Outcome:
    """Re-check ``item`` and move it to the trash (packed first with ``pack``); the
    outcome says where it went or why it stayed. ``ctx`` is the executor's Run."""
    reason = ctx.recheck(item)
    if reason is None:
        try:
            trash.check_trash_available(item.path)
        except trash.TrashUnavailable as err:
            reason = f"{err}; nothing was done to it"
    where: trash.TrashedItem | None = None
    if reason is None:
        try:
            with moves.parent_of(item.path, ctx.roots) as (parent_fd, name):
                st = moves.entry_stat(parent_fd, name)
                reason = "no longer there" if st is None else \
                    moves.same_entry(st, item.is_dir, item.inode)
                if reason is None and pack:
                    reason = _pack(parent_fd, name, item, ctx)
                if reason is None:
                    parent_before = os.fstat(parent_fd)
                    where = _trash(parent_fd, name, item.path)
                    parent_after = os.fstat(parent_fd)
        except MoveRefused as err:
            reason = str(err)
        except (OSError, trash.TrashUnavailable) as err:
            reason = f"could not be moved to the trash: {err}"
    if reason is not None:
        return ctx.skip(item.path, reason)
    assert st is not None
    outcome = Outcome(item.path, True, where.trash_file if where else "trash",
                      item.disk_usage, TO_TRASH)  # the trash holds all of it; the archive stays
    with contextlib.suppress(JournalUnavailable):  # moved: undo finds it by its .trashinfo
        ctx.step(TRASHED, item.path, trash_file=where.trash_file if where else None,
                 info_file=where.info_file if where else None, inode=st.st_ino,
                 device=st.st_dev, size=st.st_size, mtime=st.st_mtime,
                 parent_mtime_ns=[parent_before.st_mtime_ns, parent_after.st_mtime_ns])
    return outcome


def _pack(parent_fd: int, name: str, item: PlanItem, ctx: Run) -> str | None:
    """Pack the log folder beside itself; why the folder stays, or None. An archive that
    would free less than a tenth of the folder is no cleanup: the folder stays."""
    try:
        packed, size = make_archive(parent_fd, name, item.path,
                                    below=int(item.disk_usage * (1 - WORTH / 2)))
    except NotSmaller as err:
        return (f"compressed, it would take {fmt.size(err.archive_bytes)} of its "
                f"{fmt.size(item.disk_usage)}, freeing next to nothing: the folder stays as "
                "it is")
    ctx.step(ARCHIVED, item.path, archive=packed, archive_bytes=size)
    return None


def _trash(parent_fd: int, name: str, path: str) -> trash.TrashedItem | None:
    """Move the checked entry to the trash; on systems whose trash mlspace cannot read
    back, the system's own (send2trash), by path."""
    if trash.CAN_RESTORE:
        return trash.trash_entry(parent_fd, name, path)
    from send2trash import send2trash

    send2trash(path)
    return None
