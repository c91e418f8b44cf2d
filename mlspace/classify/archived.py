"""Archived checkpoints are still members of their series: the symlink or stub an archive
run leaves at a checkpoint's path *is* that checkpoint, stored on the cold tier.

Without this, archiving a run's best and latest would make an older checkpoint "best" and
"latest" on the next scan (Runs, Details, ``inventory``, retention), and retention could
then suggest the real ones' older siblings, or the pointers themselves, away. So a pointer
that stands for a checkpoint joins its folder's series under the checkpoint's own name, is
marked ``archived`` (nothing of it is on this disk to free), and is never followed: the
cold tier may be slow or not mounted, and a scan must not wait on it.

What counts as a pointer: a symlink that leads out of its folder (a link to a sibling is a
tool's own ``last.ckpt``, see series), or a ``NAME.mlspace-archived.json`` stub.
"""

from __future__ import annotations

import os

from mlspace.classify.artifacts import Candidate
from mlspace.classify.categories import Category
from mlspace.classify.checkpoint_names import parse_checkpoint_dir, parse_checkpoint_name
from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_SYMLINK

#: What an archive run names the stub it leaves for ``NAME`` (mlspace.act.pointer writes it).
STUB_SUFFIX = ".mlspace-archived.json"


def with_archived(snapshot: Snapshot, checkpoints: list[Candidate]) -> list[Candidate]:
    """``checkpoints`` with the pointers among them marked archived, and with the pointers
    beside them that stand for checkpoints of the same kind (folder or file) added."""
    taken = {e for c in checkpoints for e in c.entries}
    out = [c._replace(archived=True) if len(c.entries) == 1
           and _points_elsewhere(snapshot, c.entries[0]) else c for c in checkpoints]
    groups = {(c.parent_row, c.is_dir): c.tool for c in checkpoints}
    for (row, is_dir), tool in groups.items():
        for entry in snapshot.children(int(snapshot.dir_entry[row])):
            if entry in taken:
                continue
            found = _pointer_candidate(snapshot, entry, row, is_dir, tool)
            if found is not None:
                out.append(found)
    return out


def _pointer_candidate(snapshot: Snapshot, entry: int, row: int, is_dir: bool,
                       tool: str | None) -> Candidate | None:
    """The checkpoint the pointer ``entry`` stands for, if it is a pointer whose name reads
    as a checkpoint of its folder's kind."""
    name = snapshot.name(entry)
    if name.endswith(STUB_SUFFIX) and int(snapshot.kind[entry]) != KIND_SYMLINK:
        name = name[:-len(STUB_SUFFIX)]
    elif not _points_elsewhere(snapshot, entry):
        return None
    parsed = parse_checkpoint_dir(name, tool) if is_dir else parse_checkpoint_name(name)
    if parsed is None or (parsed.step is None and parsed.epoch is None
                          and parsed.role is None and not parsed.metrics):
        return None
    totals = snapshot.totals(entry)
    # Named and placed as the checkpoint (records name it so, the series orders by it, and
    # its id stays the one it had before it moved); its entry is the pointer.
    path = os.path.join(snapshot.dir_path(row), name)
    return Candidate((entry,), path, name, parsed.tool or tool, parsed,
                     is_dir, Category.CHECKPOINT, totals.disk_usage, totals.apparent_size,
                     totals.files, totals.newest_mtime, row, archived=True)


def _points_elsewhere(snapshot: Snapshot, entry: int) -> bool:
    """A symlink whose target is not beside it (reading a link follows nothing)."""
    if int(snapshot.kind[entry]) != KIND_SYMLINK:
        return False
    path = snapshot.path(entry)
    try:
        target = os.readlink(path)
    except OSError:
        return False
    folder = os.path.dirname(path)
    return os.path.dirname(os.path.normpath(os.path.join(folder, target))) != folder
