"""The checkpoint policies: keep the best and latest checkpoints of each series (and the
tool's own kept set), suggest the rest; drop the resume state (optimizer, scheduler, RNG)
from old kept checkpoints. Each reads the inventory, never the disk."""

from __future__ import annotations

import math
import os
import re
import time

from mlspace import fmt
from mlspace.advise.build import artifact_items, item, make
from mlspace.advise.model import (
    REVIEW,
    SAFE,
    AdviceSettings,
    KeptItem,
    Suggestion,
    kept_item,
)
from mlspace.classify import Artifact, Inventory, Series
from mlspace.classify.save_kinds import is_fixed_name_save, is_named_version
from mlspace.classify.series_scores import named_with_score
from mlspace.paths import natural_key

#: Resume state of a checkpoint: optimizer, scheduler, RNG and AMP scaler (ml-layouts §1-3).
RESUME_STATE = re.compile(
    r"optimizer(_\d+)?(_rank\d+)?\.(pt|bin)|optimizer\.pt_.*|scheduler(_\d+)?\.(pt|bin)"
    r"|scaler\.pt|rng_state(_\d+)?\.pth|random_states_\d+\.pkl"
    r"|(bf16_)?zero_pp_rank_\d+_mp_rank_\d+_optim_states\.pt|expp_rank_\d+_mp_rank_\d+_optim_states\.pt"
    r"|distrib_optim\.pt"
)


def _series_label(inv: Inventory, s: Series) -> str:
    """The run's name (else the folder's), and the config where the folder's saves are
    several configs' series (classify.save_kinds.config_ids: ``series:<path>#<id>``)."""
    run = inv.run_by_id.get(s.run or "")
    label = run.name if run else os.path.basename(s.path)
    config = s.id.removeprefix(f"series:{s.path}").removeprefix("#files").removeprefix("#")
    return f"{label}, config {config}" if config else label


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
    # Without a known best, the newest complete one stays whatever N is: it is the one a
    # run resumes from, and the only one known to be no worse than the rest by time.
    latest = _latest_complete(inv, s, _latest_count(s, keep_latest), settings)
    protected = set(s.protected) - set(_released_by_user(s, settings))
    kept = set(_ranked_best(inv, s, keep_best)) | set(latest) | protected
    copies = {inv.artifact_by_id[m].copy_of for m in kept} - {None}
    kept |= {m for m in s.members if inv.artifact_by_id[m].copy_of in kept} | copies
    return kept  # type: ignore[return-value]


def _latest_count(s: Series, keep_latest: int) -> int:
    """How many latest complete checkpoints stay: N, and at least one when the best is not
    known."""
    return keep_latest if s.best is not None else max(keep_latest, 1)


def _being_written(inv: Inventory, s: Series, settings: AdviceSettings) -> list[str]:
    """Checkpoints written in the recent-write window: a run still saving them may die
    half-way, so they never count among the latest N kept."""
    now = settings.now if settings.now is not None else time.time()
    # An archived one's pointer is new when its move was, not its writing (it is whole).
    return [m for m in s.members if not inv.artifact_by_id[m].archived
            and now - inv.artifact_by_id[m].newest_mtime < settings.recent_seconds]


def _latest_complete(inv: Inventory, s: Series, n: int, settings: AdviceSettings
                     ) -> list[str]:
    """The newest ``n`` complete checkpoints that nothing is writing to, and those being
    written besides (kept, never counted)."""
    writing = _being_written(inv, s, settings)
    complete = [m for m in s.members if inv.artifact_by_id[m].role != "partial"
                and m not in writing]
    return writing + (complete[-n:] if n > 0 else [])


def checkpoint_retention(inv: Inventory, settings: AdviceSettings) -> list[Suggestion]:
    out = []
    for s in inv.series:
        kept = kept_checkpoints(inv, s, settings)
        drop = [inv.artifact_by_id[m] for m in s.members if m not in kept
                and inv.artifact_by_id[m].role != "partial"
                and not inv.artifact_by_id[m].archived]  # its pointer frees nothing
        if not drop:
            continue
        items = [i for a in drop for i in artifact_items(inv, a, _note(s, a))]
        title, reason, risk = _retention_story(inv, s, settings, kept, drop)
        stays = tuple(KeptItem(a.path, a.disk_usage, a.apparent_size,
                               " and ".join(what for what, _ in whys),
                               "; ".join(how for _, how in whys if how))
                      for a, whys in _kept_whys(inv, s, kept, settings))
        out.append(make("checkpoint-retention", title, reason, risk, items, s.id,
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
        newest = max(keep_latest, 1)
        return (f"Keep the latest {newest} of {label}",
                f"{fmt.plural(len(drop), 'older checkpoint')} of {label}. Which one is best "
                f"is not recorded ({s.best_reason}), so the newest complete "
                f"{'checkpoint' if newest == 1 else f'{newest} checkpoints'} and anything "
                f"named best, last or final are kept.{caution} "
                f"Kept: {_why_kept(inv, s, kept, settings)}.", REVIEW)
    metric = f" by {s.best_metric}" if s.best_metric else ""
    title = f"Keep best {keep_best} + latest {keep_latest} of {label}"
    # What stays is named, each with how it is known, once.
    are = "is" if len(drop) == 1 else "are"
    reason = (f"{fmt.plural(len(drop), 'checkpoint')} of {label} that {are} neither among the best "
              f"{keep_best}{metric} nor the latest {keep_latest}. "
              f"Kept: {_why_kept(inv, s, kept, settings)}.")
    released = [a.name for a in drop if a.id in set(s.tool_kept)]
    if released:
        below = (f"ranked below the best {keep_best} by the recorded {s.best_metric}"
                 if s.tool_kept_ranked else f"older than the latest {keep_latest}")
        return title, (
            f"{reason} You asked to keep fewer of {label} than the tool keeps itself "
            f"({s.tool_kept_reason}), so {', '.join(released)} ({below}) go as well."), REVIEW
    if s.tool_kept:
        what = "newest ones" if s.tool_kept_newest_first else "own top-k"
        reason += (f" The {len(s.tool_kept)} more the tool keeps as its {what} stay "
                   f"({s.tool_kept_reason}).")
    return title, reason, SAFE


#: How many kept checkpoints a reason names before "and N more".
_KEPT_NAMED = 8


def _why_kept(inv: Inventory, s: Series, kept: set[str], settings: AdviceSettings) -> str:
    """The checkpoints retention keeps, newest first, each with why."""
    # How it is known follows a colon: records' words carry parentheses of their own
    # ("highest step (3000)"), and wrapped in more they read "(highest step (3000))".
    told = [f"{a.name} — {' and '.join(f'{what}: {how}' if how else what for what, how in whys)}"
            for a, whys in _kept_whys(inv, s, kept, settings)]
    more = f" and {len(told) - _KEPT_NAMED} more" if len(told) > _KEPT_NAMED else ""
    return "; ".join(told[:_KEPT_NAMED]) + more


def _kept_whys(inv: Inventory, s: Series, kept: set[str], settings: AdviceSettings
               ) -> list[tuple[Artifact, list[tuple[str, str]]]]:
    """Every checkpoint of the series retention keeps, newest first, with its whys: the
    reason text and the suggestion's kept list both read this, so they never disagree."""
    _, keep_latest = settings.keep_for(s.id)
    writing = set(_being_written(inv, s, settings))
    latest = set(_latest_complete(inv, s, _latest_count(s, keep_latest), settings)) - writing
    names = {m: inv.artifact_by_id[m].name for m in s.members}
    return [(inv.artifact_by_id[m], _whys(s, inv.artifact_by_id[m], kept, latest, names,
                                          writing, settings.recent_seconds))
            for m in reversed(s.members) if m in kept]


def _whys(s: Series, a: Artifact, kept: set[str], latest: set[str],
          names: dict[str, str], writing: set[str], recent: float
          ) -> list[tuple[str, str]]:
    """Why one checkpoint is kept: each reason as (what it is, how that is known), the
    second empty where the first says it all."""
    whys = []
    if a.id in writing:
        whys.append((f"written in the last {int(recent // 60)} minutes (a run still "
                     "saving?)", "not counted among the latest"))
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
    if a.role in ("best", "last", "final", "top-k") and a.id not in (s.best, s.latest):
        whys.append((f"named {a.role} by the tool", ""))
    if is_fixed_name_save(a) and a.id in s.protected and a.id != s.latest:
        whys.append(("a fixed-name save, no step or epoch to order it by", ""))
    if is_named_version(a) and a.id in s.protected and a.id != s.latest:
        whys.append(("a version saved under its own name, no step of a run", ""))
    if a.role == "export":
        whys.append(("an exported model, no step of the training to thin out", ""))
    if s.best is None and a.id in s.protected and named_with_score(a):
        whys.append(("named with a score mlspace cannot rank", ""))
    if not whys and a.id in latest:
        whys.append((f"one of the latest {len(latest)} complete ones" if writing
                     else f"one of the latest {len(latest)}", ""))
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
            items += [item(inv, e) for e in _resume_files(snap, a.entry)]
        if items:
            label = _series_label(inv, s)
            out.append(make(
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
