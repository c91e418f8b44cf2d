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
    parse_unknown_weights,
)
from mlspace.classify.engine import Classification
from mlspace.classify.model import Artifact, build
from mlspace.classify.readers.torchscript import is_torchscript
from mlspace.classify.rules import CONTEXTS, DEFAULT_CATEGORY, CompiledRules, Context
from mlspace.classify.structure import twin_prefixes
from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_DIR, KIND_SYMLINK


class Candidate(NamedTuple):
    """A checkpoint as found, before its series and run are known: series.py makes it an
    Artifact once, with what the run's records add."""

    entries: tuple[int, ...]
    path: str
    name: str
    tool: str | None
    parsed: CheckpointName | None
    is_dir: bool
    category: Category
    disk_usage: int
    apparent_size: int
    files: int
    newest_mtime: float
    parent_row: int  # the folder holding it
    archived: bool = False  # a pointer to its archived copy stands here (classify.archived)

    @property
    def step(self) -> int | None:
        return self.parsed.step if self.parsed else None

    def artifact(self, series: str, run: str, recorded: dict[str, Any] | None) -> Artifact:
        """The Artifact in ``series`` of ``run``: what the name says, and on top of it what
        the tool's records say (``recorded``: Artifact fields)."""
        named = self.parsed or _NAMELESS
        fields = {
            "id": artifact_id("checkpoint", self.path), "kind": "checkpoint",
            "category": self.category, "entry": self.entries[0], "entries": self.entries,
            "path": self.path, "name": self.name, "tool": self.tool,
            "disk_usage": self.disk_usage, "apparent_size": self.apparent_size,
            "files": self.files, "newest_mtime": self.newest_mtime, "is_dir": self.is_dir,
            "archived": self.archived,
            "step": named.step, "epoch": named.epoch, "metrics": named.metrics,
            "role": named.role, "series": series, "run": run,
        }
        if recorded:
            fields.update(recorded)
        return build(Artifact, fields)


#: What a TorchScript archive is, once its directory shows it is one.
_TORCHSCRIPT = CheckpointName(tool="TorchScript", role="export")
#: What a name the checkpoint patterns do not know says: nothing.
_NAMELESS = CheckpointName(tool="")


def artifact_id(kind: str, path: str) -> str:
    return f"{kind}:{path}"


def folder_artifacts(snapshot: Snapshot, folders: Classification, compiled: CompiledRules
                     ) -> tuple[dict[int, Artifact], list[Candidate]]:
    """Folders whose rule names an artifact kind, outermost only (a checkpoint folder inside
    another checkpoint folder, a DeepSpeed tag inside checkpoint-500, is part of it): the
    artifacts by folder row, and the checkpoint folders as candidates for their series."""
    rows = _outermost_artifact_rows(snapshot, folders, compiled)
    rule_of_row = folders.dir_rules[rows].tolist()
    # Python lists of the columns read below: indexing numpy one item at a time is slow.
    parents, entries, contexts = (a[rows].tolist() for a in (
        snapshot.dir_parent, snapshot.dir_entry, folders.contexts))
    disk, apparent, files, newest = (column[rows].tolist() for column in (
        snapshot.dir_disk, snapshot.dir_apparent, snapshot.dir_files, snapshot.dir_newest))
    units: dict[int, Artifact] = {}
    checkpoints = []
    for i, row in enumerate(rows.tolist()):
        rule = compiled.dir_rules[rule_of_row[i]]
        kind, tool = rule.artifact, rule.tool
        category = DEFAULT_CATEGORY[CONTEXTS[contexts[i]]]
        path = snapshot.dir_path(row)
        name = folders.folder_names[row] or path  # the classifier's copy: no new string
        if kind == "checkpoint":
            checkpoints.append(Candidate(
                (entries[i],), path, name, tool, parse_checkpoint_dir(name, tool), True,
                category, disk[i], apparent[i], files[i], newest[i], parents[i]))
            continue
        units[row] = build(Artifact, {
            "id": artifact_id(kind, path), "kind": kind, "category": category,
            "entry": entries[i], "entries": (entries[i],), "path": path, "name": name,
            "tool": tool, "disk_usage": disk[i], "apparent_size": apparent[i],
            "files": files[i], "newest_mtime": newest[i], "is_dir": True,
        })
    return units, checkpoints


def _outermost_artifact_rows(snapshot: Snapshot, folders: Classification,
                             compiled: CompiledRules) -> np.ndarray:
    """The folder rows whose rule names an artifact kind and that no folder of the same kind
    holds: each kind is a bit, handed down the tree level by level."""
    kinds = sorted({rule.artifact for rule in compiled.dir_rules if rule.artifact})
    bit_of_rule = np.array([1 << kinds.index(rule.artifact) if rule.artifact else 0
                            for rule in compiled.dir_rules] + [0], dtype=np.int64)
    own = bit_of_rule[folders.dir_rules]  # rule -1 (none) reads the 0 at the end
    above = np.zeros_like(own)  # the kinds of the artifact folders above each row
    parents = snapshot.dir_parent
    for level in reversed(snapshot.tree.levels):  # shallowest first
        up = parents[level]
        above[level] = above[up] | own[up]
    return np.flatnonzero((own != 0) & (own & above == 0))


def checkpoint_files(snapshot: Snapshot, cls: Classification) -> list[Candidate]:
    """Checkpoint files outside checkpoint folders, one candidate per checkpoint: the shards
    of a sharded save and the .index/.data files of a TensorFlow bundle make one each, and so
    does all a save_pretrained() folder holds of its model (HF Trainer's final save). A
    ``.pt``/``.pth`` whose name says nothing may be a model exported with torch.jit.save:
    its archive's directory tells (no pickle is read)."""
    candidates = np.flatnonzero(
        (cls.categories == Category.CHECKPOINT) & (snapshot.kind != KIND_DIR)
    )
    parents = snapshot.parent_rows_of(candidates)
    keep = parents >= 0
    candidates, parents = candidates[keep], parents[keep]
    outside_units = cls.contexts[parents] != Context.CHECKPOINT_UNIT
    saved_models = set(parents[cls.contexts[parents] == Context.MODEL].tolist())
    groups: dict[tuple[int, str], list[tuple[int, CheckpointName]]] = {}
    beside: dict[int, list[int]] = {}  # a saved model's folder -> its files that are no weights
    # Checkpoint files that are no weights of their own (optimizer.pt, history.json), by
    # folder, and the names read.
    no_weights: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    for entry, parent in zip(candidates[outside_units].tolist(),
                             parents[outside_units].tolist(), strict=True):
        name = names[entry] = snapshot.name(entry)
        parsed = parse_checkpoint_name(name)
        if parsed is None and parent not in saved_models:
            parsed = parse_unknown_weights(name)
        if parsed is None:
            if parent in saved_models:
                beside.setdefault(parent, []).append(entry)
            else:
                no_weights.setdefault(parent, []).append(entry)
            continue
        if _unordered(parsed) and name.endswith((".pt", ".pth")) \
                and is_torchscript(snapshot.path(entry)):
            parsed = _TORCHSCRIPT
        groups.setdefault((parent, parsed.group or name), []).append((entry, parsed))
    _one_per_saved_model(groups, beside, saved_models)
    _one_per_fixed_name_set(groups, saved_models, no_weights, names)
    found = []
    for (parent, key), members in groups.items():
        entries = tuple(e for e, _ in members)
        parsed = members[0][1]
        totals = [snapshot.totals(e) for e in entries]
        path = snapshot.path(entries[0])
        if len(members) > 1:
            path = os.path.join(os.path.dirname(path), key)
        found.append(Candidate(
            entries, path, key if len(members) > 1 else snapshot.name(entries[0]), parsed.tool,
            parsed, snapshot.is_dir(entries[0]), Category.CHECKPOINT,
            sum(t.disk_usage for t in totals), sum(t.apparent_size for t in totals),
            sum(t.files for t in totals), max(t.newest_mtime for t in totals), parent))
    return found


def _one_per_saved_model(groups: dict[tuple[int, str], list[tuple[int, CheckpointName]]],
                         beside: dict[int, list[int]], saved_models: set[int]) -> None:
    """A folder save_pretrained() wrote into holds one model: its weights (every format and
    shard saved) with the config, tokenizer and card beside them are one checkpoint, under
    the first weights' name, in ``groups`` (changed in place). Where no weights are, the
    files beside them are no checkpoint of their own."""
    keys_of: dict[int, list[tuple[int, str]]] = {}
    for key in groups:
        if key[0] in saved_models:
            keys_of.setdefault(key[0], []).append(key)
    for parent, keys in keys_of.items():
        keys.sort(key=lambda key: key[1])
        members = [member for key in keys for member in groups.pop(key)]
        members += [(entry, members[0][1]) for entry in beside.get(parent, ())]
        groups[keys[0]] = sorted(members, key=lambda member: member[0])


def _unordered(parsed: CheckpointName) -> bool:
    """A name that says nothing about when or how good the save was: no step, epoch, score,
    role or shard group (``params.pt``, ``criterion.pt``, ``encoder.pt``)."""
    return (parsed.step is None and parsed.epoch is None and not parsed.metrics
            and parsed.role is None and parsed.group is None)


def _one_per_fixed_name_set(groups: dict[tuple[int, str], list[tuple[int, CheckpointName]]],
                            saved_models: set[int], no_weights: dict[int, list[int]],
                            names: dict[int, str]) -> None:
    """Component files a tool writes under fixed names into one folder (``params.pt``,
    ``criterion.pt`` beside ``optimizer.pt``, overwritten at each save) are ONE checkpoint,
    never a series whose older members could go (what shows they are components: the resume
    state saved with them, or a twin set under a prefix). A second set of the same
    components under a prefix (``train_end_params.pt``...) is a second checkpoint; each set
    takes the folder's other checkpoint files of its prefix (its ``optimizer.pt``, its
    ``history.json``). ``groups`` changes in place; files with a step, score or role keep
    their own checkpoints, and unrelated models side by side (``model.pt``, ``resnet.pt``)
    stay apart."""
    by_folder: dict[int, list[tuple[int, str]]] = {}
    for key, members in groups.items():
        if key[0] not in saved_models and len(members) == 1 and _unordered(members[0][1]):
            by_folder.setdefault(key[0], []).append(key)
    for parent, keys in by_folder.items():
        others = no_weights.get(parent, [])
        prefixes = twin_prefixes([name for _, name in keys] + [names[e] for e in others])
        if len(keys) < 2 or not (prefixes or others):
            continue
        sets: dict[str, list[tuple[int, CheckpointName]]] = {}
        first_name: dict[str, str] = {}
        for key in sorted(keys, key=lambda k: k[1]):
            prefix = next((p for p in prefixes if key[1].startswith(p)), "")
            sets.setdefault(prefix, []).extend(groups.pop(key))
            first_name.setdefault(prefix, key[1])  # a set is named by its first weights
        for entry in others:
            prefix = next((p for p in prefixes if names[entry].startswith(p)), "")
            if prefix in sets:
                sets[prefix].append((entry, sets[prefix][0][1]))
        for prefix, members in sets.items():
            weights = [m for m in members if names[m[0]] == first_name[prefix]]
            rest = sorted((m for m in members if m not in weights), key=lambda m: m[0])
            groups[(parent, first_name[prefix])] = weights + rest


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
