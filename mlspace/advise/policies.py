"""The cleanup policies, one small function each. Each reads the inventory (never the disk)
and returns suggestions. Raw datasets are never suggested: no policy looks at them."""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable

import numpy as np

from mlspace import fmt
from mlspace.advise.model import (
    REVIEW,
    SAFE,
    AdviceSettings,
    KeptItem,
    PlanItem,
    Suggestion,
    kept_item,
    plan_item,
    suggestion_id,
)
from mlspace.classify import Artifact, Category, Inventory, Series
from mlspace.paths import natural_key
from mlspace.scan.walker import KIND_DIR

DAY = 86400.0
Policy = Callable[[Inventory, AdviceSettings], list[Suggestion]]

#: Resume state of a checkpoint: optimizer, scheduler, RNG and AMP scaler (ml-layouts §1-3).
RESUME_STATE = re.compile(
    r"optimizer(_\d+)?(_rank\d+)?\.(pt|bin)|optimizer\.pt_.*|scheduler(_\d+)?\.(pt|bin)"
    r"|scaler\.pt|rng_state(_\d+)?\.pth|random_states_\d+\.pkl"
    r"|(bf16_)?zero_pp_rank_\d+_mp_rank_\d+_optim_states\.pt|expp_rank_\d+_mp_rank_\d+_optim_states\.pt"
    r"|distrib_optim\.pt"
)


def _item(inv: Inventory, entry: int, note: str = "") -> PlanItem:
    return plan_item(inv.snapshot, entry, _freed(inv, entry), note)


def _freed(inv: Inventory, entry: int) -> int:
    """Space removing an entry frees: a hard-linked file frees only if all its links are in
    the scan and none is kept, so a file with links elsewhere counts zero."""
    snap = inv.snapshot
    if snap.is_dir(entry):
        return snap.totals(entry).disk_usage
    if int(snap.nlink[entry]) > 1:
        return 0
    return snap.disk_usage(entry)


def _artifact_items(inv: Inventory, artifact: Artifact, note: str = "") -> list[PlanItem]:
    return [_item(inv, e, note) for e in artifact.entries]


def _make(policy: str, title: str, reason: str, risk: str, items: list[PlanItem],
          subject: str | None, archive: bool = False, kept: tuple[KeptItem, ...] = ()
          ) -> Suggestion:
    items = sorted(items, key=lambda i: natural_key(i.path))
    paths = tuple(i.path for i in items)
    return Suggestion(suggestion_id(policy, paths), policy, title, reason, risk, tuple(items),
                      subject, archive, kept)


def _series_label(inv: Inventory, s: Series) -> str:
    run = inv.run_by_id.get(s.run or "")
    return run.name if run else os.path.basename(s.path)


# ------------------------------------------------------------------ checkpoint retention
def _ranked_best(inv: Inventory, s: Series, k: int) -> list[str]:
    """The best k checkpoints by the series' metric; just the recorded best when the metric
    cannot rank the others. A NaN value never ranks (a diverged save is no best)."""
    if s.best is None or k <= 0:
        return []
    if s.best_metric and s.best_mode:
        scored = [(inv.artifact_by_id[m].metric(s.best_metric), m) for m in s.members]
        scored = [(v, m) for v, m in scored if v is not None and not math.isnan(v)]
        scored.sort(reverse=s.best_mode == "max")
        ranked = [m for _, m in scored]
        if s.best in ranked:
            ranked.remove(s.best)
        return [s.best, *ranked][:k]
    return [s.best]


def _released_by_user(s: Series, settings: AdviceSettings) -> list[str]:
    """The members the tool keeps by its own retention that the user lets go: only when
    the user set, for this very series, fewer best (or latest) ones than the tool keeps,
    and only the worst of them by the tool's recorded scores (or the oldest, for a tool
    that keeps its latest ones: HF Trainer's save_total_limit). The global K and N
    (defaults chosen without this run's k in mind) never undo a tool's retention, and
    neither does an order that is not known. The tool's best and last are never among them
    (they are not tool_kept)."""
    if s.id not in settings.keep_per_series:
        return []
    keep_best, keep_latest = settings.keep_for(s.id)
    if s.tool_kept_ranked:
        return list(s.tool_kept[max(keep_best - 1, 0):])  # the best itself is the first kept
    if s.tool_kept_newest_first:
        return list(s.tool_kept[max(keep_latest - 1, 0):])  # so is the latest
    return []


def kept_checkpoints(inv: Inventory, s: Series, settings: AdviceSettings) -> set[str]:
    """What retention keeps: best K, latest N complete ones, and everything the series
    protects (what the tools' records point to, the top-k a tool keeps, and copies of
    those) but what the user released of the tool's top-k."""
    keep_best, keep_latest = settings.keep_for(s.id)
    latest = _latest_complete(inv, s, keep_latest)
    protected = set(s.protected) - set(_released_by_user(s, settings))
    kept = set(_ranked_best(inv, s, keep_best)) | set(latest) | protected
    copies = {inv.artifact_by_id[m].copy_of for m in kept} - {None}
    kept |= {m for m in s.members if inv.artifact_by_id[m].copy_of in kept} | copies
    return kept  # type: ignore[return-value]


def _latest_complete(inv: Inventory, s: Series, n: int) -> list[str]:
    complete = [m for m in s.members if inv.artifact_by_id[m].role != "partial"]
    return complete[-n:] if n > 0 else []


def checkpoint_retention(inv: Inventory, settings: AdviceSettings) -> list[Suggestion]:
    out = []
    for s in inv.series:
        kept = kept_checkpoints(inv, s, settings)
        drop = [inv.artifact_by_id[m] for m in s.members if m not in kept
                and inv.artifact_by_id[m].role != "partial"]
        if not drop:
            continue
        items = [i for a in drop for i in _artifact_items(inv, a, _note(s, a))]
        title, reason, risk = _retention_story(inv, s, settings, kept, drop)
        stays = tuple(KeptItem(a.path, a.disk_usage, a.apparent_size,
                               " and ".join(what for what, _ in whys),
                               "; ".join(how for _, how in whys if how))
                      for a, whys in _kept_whys(inv, s, kept, settings))
        out.append(_make("checkpoint-retention", title, reason, risk, items, s.id,
                         kept=stays))
    return out


def _note(s: Series, a: Artifact) -> str:
    """What a checkpoint is, for the list of what goes: its step (or epoch) and the metric
    its series is ranked by (else the first two it recorded)."""
    parts = [f"step {a.step}" if a.step is not None else
             f"epoch {a.epoch}" if a.epoch is not None else ""]
    value = a.metric(s.best_metric) if s.best_metric else None
    metrics = [(s.best_metric, value)] if value is not None else list(a.metrics[:2])
    parts += [f"{name} {_number(v)}" for name, v in metrics]
    return " · ".join(p for p in parts if p)


def _number(value: float) -> str:
    return f"{value:.4g}"


#: Tools that may keep only their best k by a metric, and how they say it.
_TOP_K_TOOLS = {
    "Lightning": "Lightning's ModelCheckpoint(save_top_k=k) keeps only its best k by a "
                 "monitored metric",
    "NeMo": "NeMo's checkpoint callback keeps only its best save_top_k by a monitored metric",
    "timm": "timm's CheckpointSaver keeps only its best --checkpoint-hist by the eval metric",
    "Orbax": "Orbax's CheckpointManager with a best_fn keeps only its best max_to_keep",
    "Ray Tune": "Ray's CheckpointConfig(num_to_keep=k) keeps only its best k and the latest",
}
_TOP_K_TOOLS["Ray Train"] = _TOP_K_TOOLS["Ray Tune"]


def _retention_story(inv: Inventory, s: Series, settings: AdviceSettings, kept: set[str],
                     drop: list[Artifact]) -> tuple[str, str, str]:
    """Title, reason and risk of a retention suggestion. It is safe only when the best is
    recorded and nothing the tool kept as its own top-k goes; otherwise it is for review
    and says which checkpoints stay and why."""
    keep_best, keep_latest = settings.keep_for(s.id)
    label = _series_label(inv, s)
    if s.best is None:
        caution = _TOP_K_TOOLS.get(s.tool)
        caution = (f" {caution}: if this run did, an older checkpoint may be one of them, "
                   "and neither a readable record nor the file names tell which."
                   if caution else "")
        return (f"Keep the latest {keep_latest} of {label}",
                f"{fmt.plural(len(drop), 'older checkpoint')} of {label}. Which one is best "
                f"is not recorded "
                f"({s.best_reason}), so only the latest {keep_latest} are kept.{caution} "
                f"Kept: {_why_kept(inv, s, kept, settings)}.", REVIEW)
    metric = f" by {s.best_metric}" if s.best_metric else ""
    title = f"Keep best {keep_best} + latest {keep_latest} of {label}"
    reason = (f"{fmt.plural(len(drop), 'checkpoint')} of {label} that are neither among the best "
              f"{keep_best}{metric} ({s.best_reason}) nor the latest {keep_latest} "
              f"({s.latest_reason}).")
    released = [a.name for a in drop if a.id in set(s.tool_kept)]
    if released:
        below = (f"ranked below the best {keep_best} by the recorded {s.best_metric}"
                 if s.tool_kept_ranked else f"older than the latest {keep_latest}")
        return title, (
            f"{reason} You asked to keep fewer of {label} than the tool keeps itself "
            f"({s.tool_kept_reason}), so {', '.join(released)} ({below}) go as well. "
            f"Kept: {_why_kept(inv, s, kept, settings)}."), REVIEW
    if s.tool_kept:
        what = "newest ones" if s.tool_kept_newest_first else "own top-k"
        reason += (f" The {len(s.tool_kept)} more the tool keeps as its {what} stay "
                   f"({s.tool_kept_reason}).")
    return title, reason, SAFE


#: How many kept checkpoints a reason names before "and N more".
_KEPT_NAMED = 8


def _why_kept(inv: Inventory, s: Series, kept: set[str], settings: AdviceSettings) -> str:
    """The checkpoints retention keeps, newest first, each with why."""
    told = [f"{a.name} ({' and '.join(f'{what}, {how}' if how else what for what, how in whys)})"
            for a, whys in _kept_whys(inv, s, kept, settings)]
    more = f" and {len(told) - _KEPT_NAMED} more" if len(told) > _KEPT_NAMED else ""
    return "; ".join(told[:_KEPT_NAMED]) + more


def _kept_whys(inv: Inventory, s: Series, kept: set[str], settings: AdviceSettings
               ) -> list[tuple[Artifact, list[tuple[str, str]]]]:
    """Every checkpoint of the series retention keeps, newest first, with its whys: the
    reason text and the suggestion's kept list both read this, so they never disagree."""
    _, keep_latest = settings.keep_for(s.id)
    latest = set(_latest_complete(inv, s, keep_latest))
    names = {m: inv.artifact_by_id[m].name for m in s.members}
    return [(inv.artifact_by_id[m], _whys(s, inv.artifact_by_id[m], kept, latest, names))
            for m in reversed(s.members) if m in kept]


def _whys(s: Series, a: Artifact, kept: set[str], latest: set[str],
          names: dict[str, str]) -> list[tuple[str, str]]:
    """Why one checkpoint is kept: each reason as (what it is, how that is known), the
    second empty where the first says it all."""
    whys = []
    if a.id == s.latest:
        whys.append(("the latest", s.latest_reason))
    if a.id == s.best:
        value = a.metric(s.best_metric) if s.best_metric else None
        value = s.best_value if value is None else value
        metric = f" {s.best_metric} {_number(value)}" if s.best_metric and value is not None \
            else ""
        whys.append((f"the best{metric}", s.best_reason))
    if a.copy_of in kept:
        whys.append((f"{a.copy_kind} copy of {names.get(a.copy_of or '', 'a kept one')}", ""))
    if a.id in s.tool_kept:
        whys.append(("one of the newest the tool keeps" if s.tool_kept_newest_first
                     else "one of the tool's own top-k", ""))
    if a.role in ("best", "last", "final") and a.id not in (s.best, s.latest):
        whys.append((f"named {a.role} by the tool", ""))
    if a.role == "export":
        whys.append(("an exported model, no step of the training to thin out", ""))
    if not whys and a.id in latest:
        whys.append((f"one of the latest {len(latest)}", ""))
    if not whys:
        whys.append(("named by the tool's records" if a.id in s.protected
                     else "ranked among the best", ""))
    return whys


def strip_resume_state(inv: Inventory, settings: AdviceSettings) -> list[Suggestion]:
    """Optimizer/scheduler/RNG files of kept checkpoints other than the latest: the weights
    stay usable, but training can no longer resume from them."""
    snap = inv.snapshot
    out = []
    for s in inv.series:
        kept = kept_checkpoints(inv, s, settings)
        items = []
        for m in s.members:
            a = inv.artifact_by_id[m]
            if m not in kept or m == s.latest or not a.is_dir:
                continue
            items += [_item(inv, e) for e in _resume_files(snap, a.entry)]
        if items:
            label = _series_label(inv, s)
            out.append(_make(
                "strip-resume-state", f"Drop optimizer state from older kept checkpoints of "
                f"{label}", "Optimizer, scheduler and RNG files of kept checkpoints other than "
                "the latest. The weights stay; resuming training from these checkpoints will "
                "no longer be possible.", REVIEW, items, s.id,
                kept=_latest_resume_state(inv, s)))
    return out


def _latest_resume_state(inv: Inventory, s: Series) -> tuple[KeptItem, ...]:
    """The latest checkpoint's own resume files, which stripping leaves so training can go
    on from there."""
    latest = inv.artifact_by_id.get(s.latest or "")
    if latest is None or not latest.is_dir:
        return ()
    snap = inv.snapshot
    return tuple(kept_item(snap, e, "resume state of the latest", s.latest_reason)
                 for e in sorted(_resume_files(snap, latest.entry),
                                 key=lambda e: natural_key(snap.path(e))))


def _resume_files(snap: object, folder: int) -> list[int]:
    """Resume-state files in a checkpoint folder and its direct subfolders (DeepSpeed tags)."""
    found = []
    stack = [folder]
    depth = {folder: 0}
    while stack:
        current = stack.pop()
        for child in snap.children(current):  # type: ignore[attr-defined]
            if snap.is_dir(child):  # type: ignore[attr-defined]
                if depth[current] < 1:
                    depth[child] = depth[current] + 1
                    stack.append(child)
            elif RESUME_STATE.fullmatch(snap.name(child)):  # type: ignore[attr-defined]
                found.append(child)
    return found


# ------------------------------------------------------------------ data copies, dumps, leftovers
def _age_days(mtime: float, settings: AdviceSettings) -> float:
    return ((settings.now or time.time()) - mtime) / DAY


def augmented_copies(inv: Inventory, settings: AdviceSettings) -> list[Suggestion]:
    out = []
    for a in inv.artifacts:
        if a.kind != "augmented" or _age_days(a.newest_mtime, settings) < \
                settings.augmented_min_age_days:
            continue
        tool = f" ({a.tool})" if a.tool else ""
        out.append(_make(
            "augmented-copies", f"Remove augmented copies in {a.name}",
            f"Augmented or preprocessed copies{tool}, untouched for "
            f"{fmt.age(_age_days(a.newest_mtime, settings) * DAY)}. They can be regenerated "
            "from the raw data, at the cost of rerunning the augmentation.", REVIEW,
            _artifact_items(inv, a), a.id))
    return out


def stale_debug_dumps(inv: Inventory, settings: AdviceSettings) -> list[Suggestion]:
    """Debug folders and loose debug files older than the threshold, one suggestion."""
    snap = inv.snapshot
    cutoff = (settings.now or time.time()) - settings.debug_min_age_days * DAY
    items = [_item(inv, a.entry) for a in inv.artifacts
             if a.kind == "debug" and a.newest_mtime < cutoff]
    covered = {i.path for i in items}
    loose = np.flatnonzero((inv.categories == Category.DEBUG) & (snap.kind != KIND_DIR)
                           & (snap.mtime < cutoff))
    for entry in loose.tolist():
        path = snap.path(entry)
        if not any(path.startswith(c + "/") for c in covered):
            items.append(_item(inv, entry))
    if not items:
        return []
    return [_make("debug-dumps", f"Remove {fmt.plural(len(items), 'stale debug dump')}",
                  f"Profiler traces, memory snapshots, core dumps and compiler debug output "
                  f"older than {settings.debug_min_age_days:g} days. They were written to "
                  "debug a past run and are not needed to train or evaluate.", SAFE, items,
                  None)]


def crash_leftovers(inv: Inventory, settings: AdviceSettings) -> list[Suggestion]:
    """Half-written saves: Orbax tmp folders, timm tmp files, NeMo -unfinished markers,
    DeepSpeed tags newer than what `latest` names, incomplete downloads."""
    snap = inv.snapshot
    items = [_item(inv, e) for a in inv.artifacts if a.role == "partial" for e in a.entries]
    for suffix in (b".incomplete", b"-unfinished"):
        for entry in snap.names_containing(suffix).tolist():
            if snap.name(entry).endswith(suffix.decode()) and not snap.is_dir(entry):
                items.append(_item(inv, entry))
    if not items:
        return []
    title = f"Remove {fmt.plural(len(items), 'leftover')} of interrupted saves"
    return [_make("crash-leftovers", title,
                  "Checkpoints and downloads that were never finished (a crash or a kill "
                  "during the save). Tools ignore them; nothing can load them.", REVIEW, items,
                  None)]


def caches(inv: Inventory, settings: AdviceSettings) -> list[Suggestion]:
    """Regenerable caches: Python bytecode, HF datasets map() results, hub repos' detached
    revisions are left to the hub's own tool (their blobs are shared)."""
    snap = inv.snapshot
    bytecode = [_item(inv, a.entry) for a in inv.artifacts
                if a.kind == "cache" and a.name in ("__pycache__", ".pytest_cache",
                                                    ".mypy_cache", ".ruff_cache")]
    out = []
    if bytecode:
        title = f"Remove {fmt.plural(len(bytecode), 'Python cache folder')}"
        out.append(_make("python-caches", title,
                         "Bytecode and tool caches; Python and the tools rebuild them on the "
                         "next run.", SAFE, bytecode, None))
    arrow = [e for e in np.flatnonzero(inv.categories == Category.CACHE).tolist()
             if snap.name(e).startswith("cache-") and snap.name(e).endswith(".arrow")]
    if arrow:
        title = f"Remove {fmt.plural(len(arrow), 'cached datasets.map() result')}"
        out.append(_make("datasets-cache", title,
                         "cache-*.arrow files written by Hugging Face datasets' map() and "
                         "filter(); they are recomputed when the code runs again.", SAFE,
                         [_item(inv, e) for e in arrow], None))
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
                by_repo.setdefault(d.repo, []).append(_item(inv, entry))
    return [_make("hub-detached", f"Remove old revisions of {os.path.basename(repo)}",
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
        if _age_days(a.newest_mtime, settings) < settings.logs_min_age_days:
            continue
        totals = inv.category_totals(a.entry)
        if any(totals[c].files for c in Category if c != Category.LOG):
            continue  # holds checkpoints, data or dumps: not a plain log folder
        out.append(_make(
            "log-archives", f"Compress the logs of {a.name}",
            f"A log folder untouched for {fmt.age(_age_days(a.newest_mtime, settings) * DAY)}"
            f". It is packed into {a.name}.tar.gz beside it and the original folder goes to "
            "the trash; the archive keeps everything readable.", REVIEW,
            _artifact_items(inv, a), a.id, archive=True))
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
