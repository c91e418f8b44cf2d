"""Find the artifacts of a classified snapshot: folders a rule marks as a unit, and checkpoint
files (grouped when several files make one checkpoint)."""

from __future__ import annotations

import os
from typing import Any, NamedTuple

import numpy as np

from mlspace.classify.categories import Category
from mlspace.classify.checkpoint_names import (
    CheckpointName,
    parse_checkpoint_dir,
    parse_checkpoint_name,
)
from mlspace.classify.engine import Classification
from mlspace.classify.model import Artifact, build
from mlspace.classify.rules import CONTEXTS, DEFAULT_CATEGORY, CompiledRules, Context
from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_DIR, KIND_SYMLINK


class Found(NamedTuple):
    """An artifact before series and runs are known, with what its name said."""

    artifact: Artifact
    row: int  # a folder artifact's own folder row; -1 for files
    parent_row: int  # the folder holding it
    parsed: CheckpointName | None


def artifact_id(kind: str, path: str) -> str:
    return f"{kind}:{path}"


def folder_artifacts(snapshot: Snapshot, folders: Classification, compiled: CompiledRules
                     ) -> list[Found]:
    """Folders whose rule names an artifact kind, outermost only: a checkpoint folder inside
    another checkpoint folder (a DeepSpeed tag inside checkpoint-500) is part of it."""
    kind_of_rule = [rule.artifact for rule in compiled.dir_rules] + [None]  # [-1]: no rule
    rule_of_row = folders.dir_rules.tolist()
    kind_of_row = {row: kind_of_rule[rule] for row, rule in enumerate(rule_of_row)
                   if kind_of_rule[rule] is not None}
    # Python lists of the columns read below: indexing numpy one item at a time is slow.
    parents, entries, contexts = (a.tolist() for a in (
        snapshot.dir_parent, snapshot.dir_entry, folders.contexts))
    rows = list(kind_of_row)
    disk, apparent, files, newest = (column[rows].tolist() for column in (
        snapshot.dir_disk, snapshot.dir_apparent, snapshot.dir_files, snapshot.dir_newest))
    found = []
    for i, (row, kind) in enumerate(kind_of_row.items()):
        if _inside_same_kind(row, kind, kind_of_row, parents):
            continue
        rule = compiled.dir_rules[rule_of_row[row]]
        path = snapshot.dir_path(row)
        name = os.path.basename(path.rstrip("/")) or path
        parsed = parse_checkpoint_dir(name, rule.tool) if kind == "checkpoint" else None
        artifact = build(
            Artifact, id=artifact_id(kind, path), kind=kind,
            category=DEFAULT_CATEGORY[CONTEXTS[contexts[row]]],
            entry=entries[row], entries=(entries[row],), path=path, name=name, tool=rule.tool,
            disk_usage=disk[i], apparent_size=apparent[i], files=files[i], newest_mtime=newest[i],
            is_dir=True, **_parsed_fields(parsed),
        )
        found.append(Found(artifact, row, parents[row], parsed))
    return found


def _inside_same_kind(row: int, kind: str, kind_of_row: dict[int, str], parents: list[int]
                      ) -> bool:
    row = parents[row]
    while row >= 0:
        if kind_of_row.get(row) == kind:
            return True
        row = parents[row]
    return False


def checkpoint_files(snapshot: Snapshot, cls: Classification) -> list[Found]:
    """Checkpoint files outside checkpoint folders, one artifact per checkpoint: the shards of
    a sharded save and the .index/.data files of a TensorFlow bundle make one each."""
    candidates = np.flatnonzero(
        (cls.categories == Category.CHECKPOINT) & (snapshot.kind != KIND_DIR)
    )
    parents = snapshot.parent_rows_of(candidates)
    keep = parents >= 0
    candidates, parents = candidates[keep], parents[keep]
    outside_units = cls.contexts[parents] != Context.CHECKPOINT_UNIT
    groups: dict[tuple[int, str], list[tuple[int, CheckpointName]]] = {}
    for entry, parent in zip(candidates[outside_units], parents[outside_units], strict=True):
        name = snapshot.name(int(entry))
        parsed = parse_checkpoint_name(name)
        if parsed is None:
            continue
        groups.setdefault((int(parent), parsed.group or name), []).append((int(entry), parsed))
    found = []
    for (parent, key), members in groups.items():
        entries = tuple(e for e, _ in members)
        parsed = members[0][1]
        name = key if len(members) > 1 else snapshot.name(entries[0])
        found.append(Found(_make(snapshot, "checkpoint", Category.CHECKPOINT, entries, name,
                                 parsed.tool, parsed), -1, parent, parsed))
    return found


def _make(snapshot: Snapshot, kind: str, category: Category, entries: tuple[int, ...],
          name: str, tool: str | None, parsed: CheckpointName | None) -> Artifact:
    totals = [snapshot.totals(e) for e in entries]
    first = entries[0]
    path = snapshot.path(first)
    if len(entries) > 1:
        path = os.path.join(os.path.dirname(path), name)
    return build(
        Artifact,
        id=artifact_id(kind, path),
        kind=kind,
        category=category,
        entry=first,
        entries=entries,
        path=path,
        name=name,
        tool=tool,
        disk_usage=sum(t.disk_usage for t in totals),
        apparent_size=sum(t.apparent_size for t in totals),
        files=sum(t.files for t in totals),
        newest_mtime=max(t.newest_mtime for t in totals),
        is_dir=snapshot.is_dir(first),
        **_parsed_fields(parsed),
    )


def _parsed_fields(parsed: CheckpointName | None) -> dict[str, Any]:
    """What a checkpoint's name says, as Artifact fields."""
    if parsed is None:
        return {}
    return {"step": parsed.step, "epoch": parsed.epoch, "metrics": parsed.metrics,
            "role": parsed.role}


def symlink_target_name(snapshot: Snapshot, artifact: Artifact) -> str | None:
    """For a checkpoint that is a symlink (Lightning ``save_last="link"``), the name of what
    it points to when that is beside it; reading a link runs nothing."""
    if int(snapshot.kind[artifact.entry]) != KIND_SYMLINK:
        return None
    try:
        target = os.readlink(artifact.path)
    except OSError:
        return None
    if os.path.dirname(os.path.normpath(os.path.join(os.path.dirname(artifact.path), target))) \
            != os.path.dirname(artifact.path):
        return None
    return os.path.basename(target)
