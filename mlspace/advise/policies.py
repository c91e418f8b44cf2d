"""The cleanup policies, one small function each. Each reads the inventory (never the disk)
and returns suggestions. Raw datasets are never suggested: no policy looks at them. The
checkpoint policies are in checkpoint_policies; what all of them build with, in build."""

from __future__ import annotations

import os
import time

import numpy as np

from mlspace import fmt
from mlspace.advise.build import DAY, Policy, age_days, artifact_items, item, make
from mlspace.advise.checkpoint_policies import checkpoint_retention, strip_resume_state
from mlspace.advise.model import (
    REVIEW,
    SAFE,
    AdviceSettings,
    KeptItem,
    PlanItem,
    Suggestion,
    kept_item,
)
from mlspace.advise.packing import WORTH, packed_share
from mlspace.classify import Artifact, Category, Inventory
from mlspace.scan.walker import KIND_DIR


# ------------------------------------------------------------------ data copies, dumps, leftovers
def augmented_copies(inv: Inventory, settings: AdviceSettings) -> list[Suggestion]:
    """Augmented copies untouched for a while; the raw datasets beside them are listed as
    what stays (the data they are made from, never suggested)."""
    out = []
    for a in inv.artifacts:
        if a.kind != "augmented" or age_days(a.newest_mtime, settings) < \
                settings.augmented_min_age_days:
            continue
        tool = f" ({a.tool})" if a.tool else ""
        out.append(make(
            "augmented-copies", f"Remove augmented copies in {a.name}",
            f"Augmented or preprocessed copies{tool}, untouched for "
            f"{fmt.age(age_days(a.newest_mtime, settings) * DAY)}. They can be regenerated "
            "from the raw data, at the cost of rerunning the augmentation.", REVIEW,
            artifact_items(inv, a), a.id, kept=_raw_data_beside(inv, a)))
    return out


#: Up to this many raw-data folders beside augmented copies are named one by one.
RAW_FOLDERS_NAMED = 3


def _raw_data_beside(inv: Inventory, augmented: Artifact) -> tuple[KeptItem, ...]:
    """The raw data in the folders beside augmented copies, which stays: each folder, or
    their parent when there are many (the class folders of an image dataset)."""
    snap = inv.snapshot
    parent = snap.parent(augmented.entry)
    raw = [c for c in snap.children(parent) if c != augmented.entry and snap.is_dir(c)
           and inv.category(c) == Category.DATASET] if parent >= 0 else []
    why = "raw data: never suggested"
    if len(raw) <= RAW_FOLDERS_NAMED:
        return tuple(kept_item(snap, c, why) for c in raw)
    totals = [snap.totals(c) for c in raw]
    return (KeptItem(snap.path(parent), sum(t.disk_usage for t in totals),
                     sum(t.apparent_size for t in totals),
                     f"{why} ({len(raw)} folders beside the copies)"),)


def stale_debug_dumps(inv: Inventory, settings: AdviceSettings) -> list[Suggestion]:
    """Debug folders and loose debug files older than the threshold, one suggestion."""
    snap = inv.snapshot
    cutoff = (settings.now or time.time()) - settings.debug_min_age_days * DAY
    items = [item(inv, a.entry) for a in inv.artifacts
             if a.kind == "debug" and a.newest_mtime < cutoff]
    covered = {i.path for i in items}
    loose = np.flatnonzero((inv.categories == Category.DEBUG) & (snap.kind != KIND_DIR)
                           & (snap.mtime < cutoff))
    for entry in loose.tolist():
        path = snap.path(entry)
        if not any(path.startswith(c + "/") for c in covered):
            items.append(item(inv, entry))
    if not items:
        return []
    return [make("debug-dumps", f"Remove {fmt.plural(len(items), 'stale debug dump')}",
                  f"Profiler traces, memory snapshots, core dumps and compiler debug output "
                  f"older than {settings.debug_min_age_days:g} days. They were written to "
                  "debug a past run and are not needed to train or evaluate.", SAFE, items,
                  None)]


def crash_leftovers(inv: Inventory, settings: AdviceSettings) -> list[Suggestion]:
    """Half-written saves: Orbax tmp folders, timm tmp files, NeMo -unfinished markers,
    DeepSpeed tags newer than what `latest` names, incomplete downloads."""
    snap = inv.snapshot
    items = [item(inv, e) for a in inv.artifacts if a.role == "partial" for e in a.entries]
    for suffix in (b".incomplete", b"-unfinished"):
        for entry in snap.names_containing(suffix).tolist():
            if snap.name(entry).endswith(suffix.decode()) and not snap.is_dir(entry):
                items.append(item(inv, entry))
    if not items:
        return []
    title = f"Remove {fmt.plural(len(items), 'leftover')} of interrupted saves"
    return [make("crash-leftovers", title,
                  "Checkpoints and downloads that were never finished (a crash or a kill "
                  "during the save). Tools ignore them; nothing can load them.", REVIEW, items,
                  None)]


def caches(inv: Inventory, settings: AdviceSettings) -> list[Suggestion]:
    """Regenerable caches: Python bytecode, HF datasets map() results, hub repos' detached
    revisions are left to the hub's own tool (their blobs are shared)."""
    snap = inv.snapshot
    bytecode = [item(inv, a.entry) for a in inv.artifacts
                if a.kind == "cache" and a.name in ("__pycache__", ".pytest_cache",
                                                    ".mypy_cache", ".ruff_cache")]
    out = []
    if bytecode:
        title = f"Remove {fmt.plural(len(bytecode), 'Python cache folder')}"
        out.append(make("python-caches", title,
                         "Bytecode and tool caches; Python and the tools rebuild them on the "
                         "next run.", SAFE, bytecode, None))
    arrow = [e for e in np.flatnonzero(inv.categories == Category.CACHE).tolist()
             if snap.name(e).startswith("cache-") and snap.name(e).endswith(".arrow")]
    if arrow:
        title = f"Remove {fmt.plural(len(arrow), 'cached datasets.map() result')}"
        out.append(make("datasets-cache", title,
                         "cache-*.arrow files written by Hugging Face datasets' map() and "
                         "filter(); they are recomputed when the code runs again.", SAFE,
                         [item(inv, e) for e in arrow], None))
    return out


def hub_detached_revisions(inv: Inventory, settings: AdviceSettings) -> list[Suggestion]:
    """Revisions of a cached hub repo that no branch or tag points to, with the blobs only
    they use (what `hf cache prune` removes); shared blobs stay."""
    snap = inv.snapshot
    by_repo: dict[str, list[PlanItem]] = {}
    for d in inv.hub_detached:
        for path in (d.snapshot, *d.blobs):
            entry = snap.find(path)
            if entry >= 0:
                by_repo.setdefault(d.repo, []).append(item(inv, entry))
    return [make("hub-detached", f"Remove old revisions of {os.path.basename(repo)}",
                  "Revisions of this Hugging Face hub download that no branch or tag points to "
                  "any more, and the files only they use. Downloading that revision again "
                  "brings them back.", SAFE, items, None)
            for repo, items in by_repo.items()]


def log_archives(inv: Inventory, settings: AdviceSettings) -> list[Suggestion]:
    """Old log folders (W&B, MLflow and similar runs) holding only logs: pack each into a
    .tar.gz beside it; the originals go to the trash, and undo puts them back."""
    out = []
    for a in inv.artifacts:
        if a.category != Category.LOG or not a.is_dir or a.disk_usage < settings.logs_min_bytes:
            continue
        if age_days(a.newest_mtime, settings) < settings.logs_min_age_days:
            continue
        totals = inv.category_totals(a.entry)
        if any(totals[c].files for c in Category if c != Category.LOG):
            continue  # holds checkpoints, data or dumps: not a plain log folder
        share = packed_share(inv, a.entry)
        if share is None or share > 1 - WORTH:
            continue  # already compressed (event files, .wandb records, images): no saving
        saves = round(a.disk_usage * (1 - share))
        out.append(make(
            "log-archives", f"Compress the logs of {a.name}",
            f"A log folder untouched for {fmt.age(age_days(a.newest_mtime, settings) * DAY)}"
            f". It is packed into {a.name}.tar.gz beside it (a sample compresses to about "
            f"{100 * share:.0f}%, so it frees about {fmt.size(saves)}) and the original "
            "folder goes to the trash; the archive keeps everything readable.", REVIEW,
            artifact_items(inv, a), a.id, archive=True, packed_share=share))
    return out


POLICIES: tuple[Policy, ...] = (
    checkpoint_retention,
    strip_resume_state,
    augmented_copies,
    stale_debug_dumps,
    crash_leftovers,
    caches,
    hub_detached_revisions,
    log_archives,
)
