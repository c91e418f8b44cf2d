"""A cleanup planned from a saved scan is planned again from the disk before it is shown.

A saved scan is data, never authority: its records of which checkpoint is best or latest
are what classification concluded where and when it was made, and a file on a shared
volume can say anything (a series naming checkpoint-10 best, though trainer_state.json on
disk names checkpoint-30). Its rows may be real, so the per-item re-check before a move
(size, time, inode) would pass. ``mlspace clean FILE`` scans the folders again; the app
holds the same line: before the confirmation, the folders the chosen suggestions work in
are scanned and classified again here (the tools' records read anew) and planned with the
same settings, and an item goes only if that fresh plan suggests it too, under the same
policy. What the fresh plan does not suggest stays, and the confirmation says so, with
why where the fresh plan says it (the best, the latest).

Which folders: each suggestion's folder's parent, inside its scanned folder. A run's
records lie in its folder (trainer_state.json, Lightning's .ckpt state, DeepSpeed's
``latest``) or beside it (a Ray experiment's state beside its trials, the raw data beside
augmented copies); on every labelled tool layout, planning that folder alone gave what
planning the whole scan gave. Run it off the window's thread: it reads the disk.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace

from mlspace.advise import AdviceSettings, KeptItem, Plan, Suggestion, advise
from mlspace.advise.archive import with_user_archive
from mlspace.advise.model import suggestion_id
from mlspace.classify import classify, load_rules
from mlspace.config import Settings
from mlspace.paths import within
from mlspace.scan import ScanOptions, scan

#: What a kept row says of an item the saved scan suggested and the disk's records do not.
NOT_NOW = "not suggested now that the records on disk were read again"
#: ... and of one the saved scan's plan keeps that the disk's records would let go.
SAVED_KEEPS = "the saved scan's plan keeps it (the records on disk do not)"


@dataclass(frozen=True)
class Replanned:
    """The chosen suggestions as the disk has them now: ``suggestions`` with only what a
    fresh plan also suggests (none left out entirely), ``stays`` what the saved scan
    suggested and now stays, each with why."""

    suggestions: tuple[Suggestion, ...]
    stays: tuple[KeptItem, ...]
    folders: tuple[str, ...]  # what was scanned again

    def note(self) -> str:
        """For the confirmation, '' when nothing changed."""
        if not self.stays:
            return ""
        names = "; ".join(f"{os.path.basename(k.path)} — {k.why}" for k in self.stays[:5])
        more = f" and {len(self.stays) - 5} more" if len(self.stays) > 5 else ""
        count = len(self.stays)
        return (f"This plan came from a saved scan, so the records on disk were read again "
                f"first: {count} item{'s' if count != 1 else ''} it suggested "
                f"{'stay' if count != 1 else 'stays'}: {names}{more}.")


def folders_to_read(suggestions: Sequence[Suggestion], roots: Sequence[str]) -> list[str]:
    """The folders to scan again: each suggestion's folder's parent, not above the scanned
    folder holding it; a folder inside another listed is left to that one."""
    wanted = set()
    for s in suggestions:
        root = next((r for r in roots if within(s.folder, {r})), None)
        if root is None:
            continue
        parent = os.path.dirname(s.folder) if s.folder != root else root
        wanted.add(parent if within(parent, {root}) else root)
    return sorted(f for f in wanted if not any(g != f and within(f, {g}) for g in wanted))


def fresh_plan(folders: Sequence[str], options: ScanOptions, advice: AdviceSettings,
               user: Settings) -> Plan:
    """Scan, classify and plan ``folders`` now, as the window plans a scan."""
    inventory = classify(scan(list(folders), options), load_rules().compile())
    return with_user_archive(advise(inventory, advice), inventory, user, advice)


def replan(chosen: Sequence[Suggestion], roots: Sequence[str], options: ScanOptions,
           advice: AdviceSettings, user: Settings) -> Replanned:
    """``chosen`` narrowed to what a plan of the disk now suggests (see the module)."""
    folders = folders_to_read(chosen, roots)
    fresh = fresh_plan(folders, options, advice, user) if folders else Plan((), ())
    return narrowed(chosen, fresh, tuple(folders))


def narrowed(chosen: Sequence[Suggestion], fresh: Plan, folders: tuple[str, ...] = ()
             ) -> Replanned:
    """Each chosen suggestion with the items ``fresh`` suggests too, under the same policy,
    and what the fresh plan keeps beside them; the rest stays, said so."""
    by_item = {(s.policy, p): s for s in fresh.suggestions for p in s.paths}
    out: list[Suggestion] = []
    stays: list[KeptItem] = []
    for s in chosen:
        if s.policy == "manual":  # chosen by hand, path by path: the user's own call
            out.append(s)
            continue
        covering = {by_item[(s.policy, p)].id: by_item[(s.policy, p)] for p in s.paths
                    if (s.policy, p) in by_item}
        kept_now = {k.path: k for f in covering.values() for k in f.kept}
        items = tuple(i for i in s.items if (s.policy, i.path) in by_item)
        gone = [i for i in s.items if (s.policy, i.path) not in by_item]
        told = [kept_now.get(i.path) or KeptItem(i.path, i.disk_usage, i.apparent_size,
                                                 NOT_NOW) for i in gone]
        stays += told
        if not items:
            continue
        if not gone and s.id in covering:  # the very suggestion: the disk says it as is
            same = covering[s.id]
            out.append(replace(s, title=same.title, reason=same.reason, risk=same.risk,
                               kept=same.kept))
            continue
        paths = {i.path for i in items}
        kept = {**{k.path: replace(k, why=SAVED_KEEPS) for k in s.kept
                   if k.path not in kept_now and k.path not in paths},
                **kept_now, **{k.path: k for k in told}}
        one = next(iter(covering.values())) if len(covering) == 1 else None
        reason = (f"{one.reason if one else s.reason} Read again from the disk: only the "
                  f"{len(items)} that the saved scan's plan suggests too go.")
        out.append(replace(s, id=suggestion_id(s.policy, tuple(i.path for i in items)),
                           title=one.title if one else s.title, reason=reason, items=items,
                           kept=tuple(kept.values())))
    return Replanned(tuple(out), tuple(stays), folders)
