"""The one executor: every cleanup, archive run and policy run goes through here.

For each item of a plan the user confirmed (or a policy the user wrote allowed), in order:

1. re-check it (:func:`mlspace.act.checks.before_move`): inside a scanned folder, as
   scanned, not written in the last minutes, not in use;
2. hand it to its destination, which journals each step before taking it and moves it only
   through the folder descriptors :mod:`mlspace.act.moves` reached: the trash
   (:mod:`mlspace.act.to_trash`) or the cold tier (:mod:`mlspace.act.tier`);
3. with ``free_now``, purge what went to the trash at once (:mod:`mlspace.act.purge`).

The plan is journaled before the first item is touched; if that fails nothing moves, and if
a later line cannot be written the run stops there. Undo (:mod:`mlspace.act.undoing`) is the
inverse of each step the journal recorded. What the disk got back is measured around the
run (:class:`mlspace.disks.FreeSpace`) whenever anything left it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import asdict

from mlspace.act import checks
from mlspace.act import tier as cold
from mlspace.act.journal import MEASURED, Journal, JournalUnavailable, run_title
from mlspace.act.outcomes import CleanupResult, Outcome, Progress
from mlspace.act.settle import settle_interrupted
from mlspace.act.steps import Cancel, OnStep, Run
from mlspace.act.to_trash import trash_item
from mlspace.advise import Suggestion
from mlspace.advise.archive import ARCHIVE_POLICIES
from mlspace.disks import FreeSpace

ARCHIVE, TRASH = "archive", "trash"
REFUSED = "refused"  # an archive suggestion asked to go to the trash
def run(work: Sequence[tuple[Suggestion, str]], roots: Sequence[str],
        tier: cold.Tier | None = None, *,
        recent_seconds: float = checks.RECENT_SECONDS, progress: Progress | None = None,
        on_step: OnStep | None = None, cancel: Cancel | None = None,
        title: str | None = None, meta: dict | None = None,
        free_now: bool = False) -> CleanupResult:
    """Apply each suggestion with its action, ARCHIVE or TRASH (an archive suggestion is
    always archived: raw data among them is never trashed). ``progress`` gets (bytes
    copied and verified, bytes to do, path) when anything is archived, else (items done,
    items, path); ``cancel`` is polled between items and between blocks of a copy (the item
    being copied is rolled back). With ``free_now`` what went to the trash is purged at the
    end. Raises TierUnavailable or JournalUnavailable having moved nothing."""
    if tier is None:  # a cleanup to the trash: archive suggestions are refused
        work = [(s, REFUSED if s.policy in ARCHIVE_POLICIES else action) for s, action in work]
    work = [(s, ARCHIVE if s.policy in ARCHIVE_POLICIES and action != REFUSED else action)
            for s, action in work]
    archiving = any(action == ARCHIVE for _, action in work)
    if archiving:
        if tier is None:
            raise cold.TierUnavailable("no archive folder is configured (archive_root in "
                                       "config.toml, or --to)")
        tier.check()
        settle_interrupted(roots)
    items = [(s, i, action) for s, action in work for i in s.items]
    meter = FreeSpace(roots)
    journal, cleanup_id = Journal.begin(
        title or _title(work), list(roots),
        [{**asdict(i), "suggestion": s.id, "action": action,
          "dest": tier.destination(i.path) if tier and action == ARCHIVE else None}
         for s, i, action in items],
        kind="tier" if archiving else "clean",
        meta={**(meta or {}), **({"tier": tier.root, "link": tier.link}
                                 if tier and archiving else {})})
    ctx = Run(roots, journal, cleanup_id, checks.paths_in_use(), recent_seconds, progress,
              on_step, cancel,
              2 * sum(i.apparent_size for _, i, a in items if a == ARCHIVE) if archiving
              else len(items), in_bytes=archiving)
    outcomes: list[Outcome] = []
    stopped = ""
    for n, (suggestion, item, action) in enumerate(items):
        if cancel is not None and cancel():
            stopped = "cancelled; nothing more was moved"
        else:
            ctx.moved(0, item.path)
            with contextlib.suppress(JournalUnavailable):  # journal.failed says it
                if action == ARCHIVE and tier is not None:
                    outcomes.append(cold.archive_item(item, n, tier, ctx))
                elif action == REFUSED:
                    outcomes.append(ctx.skip(item.path, "an archive suggestion is never "
                                             "trashed: apply it with `mlspace archive`"))
                else:
                    outcomes.append(trash_item(item, ctx, pack=suggestion.archive))
            if not ctx.in_bytes:
                ctx.moved(1, item.path)
            if journal.failed:
                stopped = f"{journal.failed}; nothing more was moved"
            elif outcomes and outcomes[-1].reason.startswith("cancelled"):
                stopped = "cancelled; nothing more was moved"
        if stopped:
            done = {o.path for o in outcomes}
            outcomes += [Outcome(i.path, False, "not attempted: " + stopped)
                         for _, i, _ in items[n:] if i.path not in done]
            break
    result = CleanupResult(cleanup_id, tuple(outcomes), stopped)
    if free_now and result.moved_to_trash and not journal.failed:
        from mlspace.act.purge import purge_moved

        result = purge_moved(result, journal)
    return measured(result, meter, journal)


def measured(result: CleanupResult, meter: FreeSpace, journal: Journal) -> CleanupResult:
    """The result with what the disk got back, when anything left it (journaled too, so the
    history can say it later)."""
    if not result.removed:
        return result
    freed = meter.freed()
    with contextlib.suppress(JournalUnavailable):
        journal.record(MEASURED, "", freed=freed)
    return CleanupResult(result.cleanup_id, result.outcomes, result.stopped, freed)


def execute(suggestions: Sequence[Suggestion], roots: Sequence[str],
            recent_seconds: float = checks.RECENT_SECONDS, progress: Progress | None = None,
            free_now: bool = False) -> CleanupResult:
    """Move every item of the suggestions to the trash, after re-checking each (the items
    of an archive suggestion among them are refused: raw data is archived, never
    trashed)."""
    return run([(s, TRASH) for s in suggestions], roots, None,
               recent_seconds=recent_seconds, progress=progress, free_now=free_now)


def _title(work: Sequence[tuple[Suggestion, str]]) -> str:
    return run_title([f"Archive: {s.title}" if action == ARCHIVE and
                      not s.title.startswith("Archive") else s.title for s, action in work])
