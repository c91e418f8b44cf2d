"""Find the artifacts of a classified snapshot: folders a rule marks as a unit, and checkpoint
files (grouped when several files make one checkpoint)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from mlspace.classify.categories import Category
from mlspace.classify.checkpoint_names import (
    CheckpointName,
    parse_checkpoint_dir,
    parse_checkpoint_name,
)
from mlspace.classify.engine import Classification
from mlspace.classify.model import Artifact
from mlspace.classify.rules import DEFAULT_CATEGORY, CompiledRules, Context
from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_DIR, KIND_SYMLINK


@dataclass(frozen=True)
class Found:
    """An artifact before series and runs are known, with what its name said."""

    artifact: Artifact
    parent_row: int  # the folder holding it
    parsed: CheckpointName | None


def artifact_id(kind: str, path: str) -> str:
    return f"{kind}:{path}"


def folder_artifacts(snapshot: Snapshot, cls: Classification, compiled: CompiledRules
                     ) -> list[Found]:
    """Folders whose rule names an artifact kind, outermost only: a checkpoint folder inside
    another checkpoint folder (a DeepSpeed tag inside checkpoint-500) is part of it."""
    found = []
    inside: list[frozenset[str]] = [frozenset()] * len(snapshot.dir_entry)
    for row in range(len(snapshot.dir_entry)):
        parent = int(snapshot.dir_parent[row])
        above = inside[parent] if parent >= 0 else frozenset()
        rule_index = int(cls.dir_rules[row])
        rule = compiled.dir_rules[rule_index] if rule_index >= 0 else None
        kind = rule.artifact if rule is not None else None
        if kind is None or kind in above:
            inside[row] = above
            continue
        inside[row] = above | {kind}
        entry = int(snapshot.dir_entry[row])
        name = snapshot.name(entry) if parent >= 0 else os.path.basename(snapshot.name(entry))
        parsed = parse_checkpoint_dir(name, rule.tool) if kind == "checkpoint" else None
        found.append(Found(_make(snapshot, kind, _category_of(cls, row), (entry,), name,
                                 rule.tool, parsed), parent, parsed))
    return found


def _category_of(cls: Classification, row: int) -> Category:
    return DEFAULT_CATEGORY[Context(int(cls.contexts[row]))]


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
                                 parsed.tool, parsed), parent, parsed))
    return found


def _make(snapshot: Snapshot, kind: str, category: Category, entries: tuple[int, ...],
          name: str, tool: str | None, parsed: CheckpointName | None) -> Artifact:
    totals = [snapshot.totals(e) for e in entries]
    first = entries[0]
    path = snapshot.path(first)
    if len(entries) > 1:
        path = os.path.join(os.path.dirname(path), name)
    return Artifact(
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
        step=parsed.step if parsed else None,
        epoch=parsed.epoch if parsed else None,
        metrics=parsed.metrics if parsed else (),
        role=parsed.role if parsed else None,
    )


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
