"""Which save of a series is the latest, and why: what a tool's pointer or record names
(DeepSpeed's ``latest``, a ``last_checkpoint`` file, Megatron's tracker, TensorFlow's
``checkpoint`` state, a ranking tool's records), else a save named last or final, else the
highest step or epoch, else the newest file. Split from mlspace.classify.series, which
builds the series around it."""

from __future__ import annotations

import os

from mlspace.classify.model import Artifact
from mlspace.classify.readers.records import read_pointer, read_tf_checkpoint_state
from mlspace.classify.tool_facts import ToolFacts


def save_number(m: Artifact) -> int | None:
    """A save's step, else its epoch: what orders it in its series."""
    return m.step if m.step is not None else m.epoch


def latest_save(folder: str, children: set[str], members: list[Artifact],
                by_name: dict[str, Artifact], facts: ToolFacts | None
                ) -> tuple[Artifact | None, str, set[str]]:
    """The latest checkpoint, why, and the ids the tools' pointers and records name."""
    pointed: set[str] = set()
    for record, tool in (("latest", "DeepSpeed"), ("last_checkpoint", "last_checkpoint file"),
                         ("latest_checkpointed_iteration.txt", "Megatron tracker"),
                         ("checkpoint", "TensorFlow checkpoint state")):
        if record not in children:
            continue
        path = os.path.join(folder, record)
        reader = read_tf_checkpoint_state if record == "checkpoint" else read_pointer
        target = reader(path)
        if target and record == "latest_checkpointed_iteration.txt":
            target = _megatron_tag(target)
        if target and target in by_name:
            pointed.add(by_name[target].id)
            return by_name[target], f"{tool} names {target}", pointed
    if facts is not None and facts.latest in by_name:
        return by_name[facts.latest], facts.latest_reason, pointed
    for role, words in (("last", "named last by the tool"), ("final", "the final save")):
        named = [m for m in members if m.role == role]
        if named:
            chosen = max(named, key=lambda m: m.newest_mtime)
            if chosen.copy_kind == "symlink" and chosen.copy_of:
                pointed.add(chosen.copy_of)
                target = next(m for m in members if m.id == chosen.copy_of)
                return target, f"{chosen.name} links to it", pointed | {chosen.id}
            return chosen, f"{chosen.name}: {words}", pointed
    numbered = [m for m in members if m.role != "partial"]
    if not numbered:
        return None, "no complete checkpoint", pointed
    stepped = stepped_saves(members)
    if stepped:
        # A best kept beside the periodic saves may share the newest one's step (Sample
        # Factory writes best_<step>_..._reward_<r>.pth when checkpoint_<step>.pth is the
        # newest): the latest is the periodic save, which the tool resumes from.
        top = save_number(stepped[-1])
        plain = [m for m in stepped if m.role is None and save_number(m) == top]
        chosen = plain[-1] if plain else stepped[-1]
        if numbered_by_recency(stepped):
            # Names and times disagree: the newest by time is the latest, and the highest
            # number is kept too, in case a copy refreshed the older saves' times.
            return stepped[0], f"newest file ({stepped[0].name}: its number counts back " \
                f"from the newest save; {chosen.name}, the highest number, is kept too)", \
                pointed
        what = f"step {chosen.step}" if chosen.step is not None else f"epoch {chosen.epoch}"
        return chosen, f"highest {what.split()[0]} ({what.split()[1]})", pointed
    chosen = max(numbered, key=lambda m: m.newest_mtime)
    return chosen, "newest file (no step recorded)", pointed


def stepped_saves(members: list[Artifact]) -> list[Artifact]:
    """The complete saves a step or epoch orders, in the members' order (oldest first)."""
    return [m for m in members if m.role != "partial" and save_number(m) is not None]


def numbered_by_recency(ordered: list[Artifact]) -> bool:
    """Whether three or more saves ordered by their number were each written at least a
    second after the next one: the number is how many saves back it is (DeepChem's
    checkpoint1.pt is the newest, renamed to checkpoint2.pt at the next save), not a step.
    Two saves out of order say too little (one copied without its time)."""
    times = [m.newest_mtime for m in ordered]
    return len(times) >= 3 and all(a >= b + 1 for a, b in zip(times, times[1:], strict=False))


def _megatron_tag(text: str) -> str:
    """Megatron's tracker holds an iteration number (or "release"): the folder it names.
    Plain ASCII digits only ("²".isdigit() is true, int() refuses it) and few enough that
    int() takes them."""
    if text.isascii() and text.isdigit() and len(text) <= 18:
        return f"iter_{int(text):07d}"
    return text
