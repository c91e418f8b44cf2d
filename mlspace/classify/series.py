"""Order the checkpoints of each folder into a series and learn, from the tools' own records
where they exist, which one is the latest and which the best (ml-layouts.md §8).

Order of trust for "latest": a pointer the tool wrote (DeepSpeed ``latest``, Detectron2 and
MMEngine ``last_checkpoint``, Megatron's tracker, TensorFlow's ``checkpoint`` state, Ray
Train's checkpoint manager snapshot), then a file the tool names last or final, then the
highest step or epoch, then the newest file. For "best": HF Trainer's
``best_model_checkpoint`` (see series_hf), the ModelCheckpoint state Lightning keeps inside
its ``.ckpt`` files (see series_lightning), timm's CheckpointSaver state and summary.csv (see
series_timm), Ray's checkpoint manager (see series_ray), Lightning's ``best_k_models.yaml``,
a file the tool names best, then a metric in the names whose direction is clear (a NaN never
wins); else unknown. Every file a readable record names as best or latest is protected, and
so is what a tool keeps by its own retention (the tool has done that retention): the top-k
of a Lightning callback, of timm's CheckpointSaver or of Ray's CheckpointConfig, and the
checkpoints HF Trainer's ``save_total_limit`` rotation keeps.

Records are read through :mod:`mlspace.safe_read`: one that is missing, cut short, not a
regular file or a link (never followed: a record outside the tree decides nothing) counts as
absent, and the next older record is used instead.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any, NamedTuple

from mlspace.classify.artifacts import Candidate, symlink_target_name
from mlspace.classify.metrics import direction
from mlspace.classify.model import Artifact, Series, build, evolve
from mlspace.classify.name_meaning import protected_role
from mlspace.classify.readers.records import (
    read_best_k_models,
)
from mlspace.classify.readers.shape_records import ShapeFacts, read_shape_records
from mlspace.classify.record_files import member_record_names, record_names
from mlspace.classify.save_kinds import (
    PROTECTED_ROLES,
    is_fixed_name_save,
    is_named_version,
    split_by_config,
)
from mlspace.classify.series_copies import copied_out
from mlspace.classify.series_hf import HfFacts, hf_best, hf_recorded, read_hf_facts
from mlspace.classify.series_latest import (
    latest_save,
    numbered_by_recency,
    save_number,
    stepped_saves,
)
from mlspace.classify.series_lightning import read_lightning_facts
from mlspace.classify.series_ray import RAY_TOOLS, read_ray_facts
from mlspace.classify.series_scores import best_by_metric, named_with_score
from mlspace.classify.series_timm import read_timm_facts
from mlspace.classify.tool_facts import ToolFacts
from mlspace.scan import Snapshot

#: Checkpoints no tool-specific reader knows (a tool's own records, where mlspace reads
#: them, say precisely what is best and latest; records found by their shape speak for the
#: rest).
_NO_READER = frozenset({None, "checkpoint", "PyTorch"})


class _Records(NamedTuple):
    """What the tools' records say about one folder's checkpoints."""

    hf: HfFacts | None  # HF Trainer's trainer_state.json and training_args.bin
    ranked: ToolFacts | None  # a tool that ranks its own top-k: Lightning or timm
    shape: ShapeFacts | None = None  # records found by their shape (readers.shape_records)


def build_series(snapshot: Snapshot, checkpoints: list[Candidate], run_ids: dict[int, str]
                 ) -> tuple[list[Series], list[Artifact]]:
    """Series per folder, and their checkpoints as artifacts, with what the tools' records
    say and with their series and run (``run_ids``: the run of each folder holding
    checkpoints).

    Checkpoint folders and checkpoint files side by side (HF Trainer's checkpoint-N folders
    next to the final ``save_model()`` weights) are two series: the final model is not an
    older step of the run to be rotated away.
    """
    by_folder: dict[tuple[int, bool, str], list[Candidate]] = {}
    for found in checkpoints:
        by_folder.setdefault((found.parent_row, found.is_dir, ""), []).append(found)
    by_folder = split_by_config(by_folder)
    # The files worth reading as records in each checkpoint folder, looked up all at once.
    records_in = dict(zip((c.path for c in checkpoints),
                          member_record_names(snapshot, [c.entries[0] for c in checkpoints]),
                          strict=True))
    copies = copied_out(checkpoints)
    all_series, artifacts = [], []
    folder_saves = {row for row, is_dir, _ in by_folder if is_dir}
    for (row, is_dir, config), found in by_folder.items():
        folder = snapshot.dir_path(row)
        series_id = f"series:{folder}"
        if not is_dir and row in folder_saves:
            series_id += "#files"
        if config:
            series_id += f"#{config}"
        children = set(snapshot.child_names(row))
        # Records are read from what is here: an archived checkpoint's pointer is never
        # followed to the cold tier (classify.archived).
        here = [c for c in found if not c.archived]
        inside = {c.name: records_in[c.path] for c in here}
        records = _Records(read_hf_facts(here, inside),
                           _ranking_records(snapshot, row, folder, here, children))
        # Where no tool's reader knows the checkpoints, or the one whose folder names they
        # share found none of its records (TorchRL's checkpoint-<N>/ look like HF
        # Trainer's), records found by their shape speak.
        hf = records.hf
        hf_silent = hf is None or (hf.state is None and not hf.named_best)
        if hf_silent and records.ranked is None and all(
                c.tool in _NO_READER or c.tool == "HF Trainer" for c in here):
            beside = sorted(set(record_names(snapshot, row)) - inside.keys())
            records = records._replace(shape=read_shape_records(folder, inside, beside))
        run_id = run_ids[row]
        members = [c.artifact(series_id, run_id, _recorded(c, records)) for c in found]
        series, members = _one_series(snapshot, folder, children, series_id, members, records,
                                      copies)
        all_series.append(series)
        artifacts.extend(members)
    return all_series, artifacts


def _one_series(snapshot: Snapshot, folder: str, children: set[str], series_id: str,
                members: list[Artifact], records: _Records, copies: dict[str, str]
                ) -> tuple[Series, list[Artifact]]:
    """The series of ``members``, and the members in order, marked as copies or partial
    saves where the tools' files say so. Every name the records stand by as best or last is
    protected, and so is what the tool keeps by its own retention, and what someone copied
    out of the run (``copies``: see series_copies)."""
    members = _with_copies(snapshot, members)
    members.sort(key=_order_key)
    by_name = {m.name: m for m in members}
    latest, latest_reason, pointed = latest_save(folder, children, members, by_name, records.ranked)
    shape = records.shape
    if shape is not None and shape.latest in by_name and not pointed:
        latest, latest_reason = by_name[shape.latest], shape.latest_reason
        pointed = {latest.id}
    if latest is not None and latest.step is not None and latest_reason.startswith("DeepSpeed"):
        # DeepSpeed writes `latest` after a tag is complete: a newer tag is a save that
        # never finished (or one being written now, which the cleanup's checks refuse).
        members = [evolve(m, role="partial") if m.step is not None and m.step > latest.step
                   else m for m in members]
        by_name = {m.name: m for m in members}
    best, best_reason, metric, value, mode = _best(folder, children, members, by_name, records)
    recorded_best = records.hf.named_best if records.hf else frozenset()
    also_best = {by_name[n].id for n in recorded_best if n in by_name}
    if best is not None and also_best - {best.id}:
        others = ", ".join(sorted(n for n in recorded_best if n in by_name and n != best.name))
        best_reason += f"; other trainer_state.json records name {others}, kept too"
    if records.ranked is not None:
        also_best |= {by_name[n].id for n in records.ranked.named if n in by_name}
    protected = {m.id for m in (latest, best) if m is not None} | pointed | also_best
    protected |= {m.id for m in members if m.role in PROTECTED_ROLES}
    stepped = stepped_saves(members)
    if numbered_by_recency(stepped):
        protected.add(stepped[-1].id)  # the highest number, kept beside the newest (latest_save)
    if protected_role(os.path.basename(folder)) is not None:
        # A folder named best (or last, final) holds what a tool kept as such, in a rotation
        # of its own (DeepChem's best/checkpoint1..5.pt): every save in it is kept.
        protected |= {m.id for m in members}
        best_reason += f"; every save in {os.path.basename(folder)}/ is kept, as its name says"
    if latest is not None and latest.role is None and save_number(latest) is not None:
        # What was saved at the latest step is the latest save, all of it: two models of
        # one save (NeuralForecast's NHITS_0 and MLP_0) are no older and newer.
        protected |= {m.id for m in members if m.role is None and m.name != latest.name
                      and save_number(m) == save_number(latest)
                      and _stem_base(m) != _stem_base(latest)}
    if len(members) > 1:
        protected |= {m.id for m in members if is_fixed_name_save(m) or is_named_version(m)}
    if best is None:
        # Saves named with a score mlspace cannot rank (``net_key_metric=0.9488.pt``: which
        # way is better?) were kept by the tool for that score: all of them stay.
        scored = {m.id for m in members if named_with_score(m)}
        if scored:
            protected |= scored
            best_reason += "; every save named with a score is kept"
    if shape is not None and shape.scores and shape.mode is None:
        # A record scores the saves but says not which way is better: all it scores stay,
        # a file named best beside them or not (the tool's best may be another).
        protected |= {by_name[n].id for n in shape.scores if n in by_name}
        best_reason += f"; {shape.source} scores saves by {shape.metric} without saying " \
            "which way is better: every save it scores is kept"
    taken = _picked_out(members, copies, protected)
    if taken:
        protected |= {m.id for m in taken}
        best_reason += "; " + "; ".join(
            f"{m.name} was copied out of the run (identical at {copies[m.path]}): kept"
            for m in taken)
    kept_names, ranked, newest_first, kept_reason = _kept_by_tool(records, metric)
    tool_kept = [by_name[n].id for n in kept_names
                 if n in by_name and by_name[n].id not in protected]
    protected |= set(tool_kept)
    for member in members:  # a copy of a kept checkpoint is kept too, and the other way round
        if member.copy_of in protected or (member.id in protected and member.copy_of):
            protected |= {member.id, member.copy_of or member.id}
    tools = [m.tool or "checkpoint" for m in members]
    series = build(Series, {
        "id": series_id,
        "path": folder,
        "tool": max(dict.fromkeys(tools), key=tools.count),  # the commonest; first of equals
        "members": tuple(m.id for m in members),
        "latest": latest.id if latest else None,
        "latest_reason": latest_reason,
        "best": best.id if best else None,
        "best_reason": best_reason,
        "best_metric": metric,
        "best_value": value,
        "best_mode": mode,
        "protected": tuple(m.id for m in members if m.id in protected),
        "disk_usage": sum(m.disk_usage for m in members if m.copy_kind != "hard link"),
        "run": members[0].run,
        "tool_kept": tuple(tool_kept),
        "tool_kept_ranked": bool(tool_kept) and ranked,
        "tool_kept_newest_first": bool(tool_kept) and newest_first,
        "tool_kept_reason": kept_reason if tool_kept else "",
    })
    return series, members


def _picked_out(members: list[Artifact], copies: dict[str, str], protected: set[str]
                ) -> list[Artifact]:
    """The members of a series of several that were copied out of it one by one (see
    series_copies), not yet protected. A folder holding copies of several members is a
    backup of the run, not a pick: the duplicates advice speaks of it, and it protects
    nothing here."""
    if len(members) < 2:
        return []
    by_folder: dict[str, list[Artifact]] = {}
    for m in members:
        if m.path in copies:
            by_folder.setdefault(os.path.dirname(copies[m.path]), []).append(m)
    return [picked[0] for picked in by_folder.values()
            if len(picked) == 1 and picked[0].id not in protected]


def _kept_by_tool(records: _Records, metric: str | None
                  ) -> tuple[tuple[str, ...], bool, bool, str]:
    """What the tool keeps by its own retention: (names, ranked best first by ``metric``,
    newest first, why). A tool's top-k by a metric, else HF Trainer's rotation."""
    ranked = records.ranked
    if ranked is not None and ranked.top_k:
        return (ranked.top_k, ranked.top_k_ranked and ranked.metric == metric,
                ranked.top_k_newest_first, ranked.top_k_reason)
    if records.hf is not None and records.hf.kept:
        return records.hf.kept, False, True, records.hf.kept_reason
    return (), False, False, ""


def _stem_base(m: Artifact) -> str:
    """A save's name without its digits: the same for every save of one series."""
    return "".join(c for c in m.name if not c.isdigit())


def _order_key(m: Artifact) -> tuple[float, float, bool, str]:
    """Oldest first: by step (or epoch), then time; a tool's best/last copy after the
    numbered one it equals, then by name."""
    number = save_number(m)
    return (float(number) if number is not None else -1.0, m.newest_mtime, m.role is not None,
            m.name)


def _ranking_records(snapshot: Snapshot, row: int, folder: str, found: list[Candidate],
                     children: set[str]) -> ToolFacts | None:
    """The records of a tool that ranks its own top-k among the folder's checkpoints: Ray's
    checkpoint manager for its checkpoint folders, Lightning's ``.ckpt`` files, else timm's
    ``.pth.tar`` files, if any is readable."""
    ray = [c.name for c in found if c.is_dir and c.tool in RAY_TOOLS]
    if ray:
        parent = int(snapshot.dir_parent[row])
        siblings = set(snapshot.child_names(parent)) if parent >= 0 else set()
        return read_ray_facts(folder, ray, children, siblings)
    files = [c for c in found if not c.is_dir]
    lightning = [c.path for c in files if c.name.endswith(".ckpt")]
    if lightning:
        return read_lightning_facts(folder, lightning)
    timm = [c.path for c in files if c.tool == "timm"]
    return read_timm_facts(folder, timm, children) if timm else None


def _recorded(found: Candidate, records: _Records) -> dict[str, Any] | None:
    """What the run's records add to a checkpoint: HF Trainer's epoch and evaluation at its
    step; the score a ranking tool (or a record found by its shape) recorded for it, under
    its metric, and the epoch a name such as last.pth.tar hides."""
    if records.hf is not None and records.hf.state is not None:
        return hf_recorded(found, records.hf.state)
    shape = records.shape
    if shape is not None and shape.metric and found.name in shape.scores:
        named = dict(found.parsed.metrics) if found.parsed else {}
        named[shape.metric] = shape.scores[found.name]
        return {"metrics": tuple(named.items())}
    facts = records.ranked
    if facts is None:
        return None
    added: dict[str, Any] = {}
    if found.name in facts.epochs:
        added["epoch"] = facts.epochs[found.name]
    if facts.metric is not None and found.name in facts.scores:
        named = dict(found.parsed.metrics) if found.parsed else {}
        named[facts.metric] = facts.scores[found.name]  # exact, where a name rounds
        added["metrics"] = tuple(named.items())
    return added or None


def _with_copies(snapshot: Snapshot, members: list[Artifact]) -> list[Artifact]:
    """Mark hard links (timm), symlinks (Lightning ``last.ckpt``) and same-size copies that a
    tool writes under a best/last name (fairseq, Ultralytics) as copies of a numbered one.
    Folder checkpoints are none of these."""
    if all(m.is_dir for m in members):
        return members
    by_inode: dict[tuple[int, int], Artifact] = {}
    by_name = {m.name: m for m in members}
    # A size says which numbered save a best/last file copies only where no other has it.
    sizes = Counter(m.apparent_size for m in members if m.role is None and not m.is_dir)
    numbered_by_size = {m.apparent_size: m for m in members
                        if m.role is None and not m.is_dir and sizes[m.apparent_size] == 1}
    out = []
    for m in sorted(members, key=lambda a: (a.role is not None, a.name)):
        copy_of, kind = None, None
        if not m.is_dir:  # a folder checkpoint is neither a hard link nor a symlink
            if int(snapshot.nlink[m.entry]) > 1:
                key = (int(snapshot.dir_dev[snapshot.parent_row(m.entry)]),
                       int(snapshot.ino[m.entry]))
                if key in by_inode:
                    copy_of, kind = by_inode[key].id, "hard link"
                else:
                    by_inode[key] = m
            target = symlink_target_name(snapshot, m)
            if target is not None and target in by_name:
                copy_of, kind = by_name[target].id, "symlink"
        if copy_of is None and m.role in ("best", "last") and m.apparent_size > 0:
            twin = numbered_by_size.get(m.apparent_size)
            if twin is not None:
                copy_of, kind = twin.id, "same size"
        out.append(evolve(m, copy_of=copy_of, copy_kind=kind) if copy_of else m)
    return out


def _best(folder: str, children: set[str], members: list[Artifact], by_name: dict[str, Artifact],
          records: _Records
          ) -> tuple[Artifact | None, str, str | None, float | None, str | None]:
    hf = hf_best(records.hf, by_name)
    if hf is not None:
        return hf
    ranked = records.ranked
    if ranked is not None and ranked.best in by_name:
        return (by_name[ranked.best], ranked.best_reason, ranked.metric, ranked.value,
                ranked.mode)
    shape = records.shape
    if shape is not None and shape.best in by_name:
        return by_name[shape.best], shape.best_reason, shape.metric, shape.value, shape.mode
    if "best_k_models.yaml" in children:
        scores = read_best_k_models(os.path.join(folder, "best_k_models.yaml")) or {}
        known = {name: s for name, s in scores.items() if name in by_name}
        if known:
            # The file does not say the mode; the monitor's name in the file names does.
            metric = next((k for k, _ in by_name[next(iter(known))].metrics), None)
            mode = direction(metric or "") or "min"
            name = (min if mode == "min" else max)(known, key=known.__getitem__)
            return (by_name[name], "Lightning best_k_models.yaml", metric, known[name], mode)
    named = [m for m in members if m.role == "best"]
    if named:
        chosen = max(named, key=lambda m: m.newest_mtime)
        return chosen, f"{chosen.name}: named best by the tool", None, None, None
    return best_by_metric(members)
