"""A plan as a terminal table and as the stable JSON of ``mlspace plan --format json``."""

from __future__ import annotations

from operator import attrgetter

from mlspace import fmt
from mlspace.advise import Plan, Suggestion
from mlspace.advise.archive import action_of


def suggestion_record(s: Suggestion) -> dict[str, object]:
    """One suggestion as stable JSON. Keys are only ever added (``folder``, per-item
    ``items`` and ``kept`` came after ``paths``), so scripts written for version 1 read it."""
    return {
        "id": s.id,
        "policy": s.policy,
        "title": s.title,
        "reason": s.reason,
        "risk": s.risk,
        "action": action_of(s),
        "bytes": s.bytes,
        "apparent_bytes": s.apparent_bytes,
        "paths": list(s.paths),
        "subject": s.subject,
        "folder": s.folder,
        "items": [{"path": i.path, "bytes": i.disk_usage, "apparent_bytes": i.apparent_size,
                   "mtime": i.mtime, "note": i.note} for i in s.items],
        "kept": [{"path": k.path, "bytes": k.disk_usage, "apparent_bytes": k.apparent_size,
                  "why": k.why, "evidence": k.evidence} for k in s.kept],
    }


def plan_record(plan: Plan) -> dict[str, object]:
    return {
        "version": 1,
        "roots": list(plan.roots),
        "total_bytes": plan.total_bytes,
        "total_apparent_bytes": sum(s.apparent_bytes for s in plan.suggestions),
        "suggestions": [suggestion_record(s) for s in plan.suggestions],
    }


def plan_table(plan: Plan, with_paths: bool = False, applying: bool = False,
               apparent: bool = False) -> str:
    """The plan as `plan` prints it, or (``applying``) as `clean` shows what it is about to
    move: then without the lines that only make sense for `plan`. ``apparent`` (`plan
    --apparent`) sizes, orders and totals it by apparent size instead of size on disk: on
    sparse files, the only size that tells the suggestions apart."""
    if not plan.suggestions:
        return "Nothing to suggest: no old checkpoints, copies, dumps or caches found."
    size = attrgetter("apparent_bytes" if apparent else "bytes")
    suggestions = sorted(plan.suggestions, key=lambda s: -s.apparent_bytes) if apparent \
        else plan.suggestions
    total = sum(map(size, suggestions))
    head = f"{fmt.plural(len(suggestions), 'suggestion')}, {fmt.size(total)}"
    lines = [f"{head} {'apparent' if apparent else 'on disk'} in all"
             + ("" if applying else " (nothing is removed by `plan`)"), ""]
    for s in suggestions:
        lines.append(f"{s.id:<32} {fmt.size(size(s)):>10}  [{s.risk}]  {s.title}")
        lines.append(f"{'':34}{s.reason}")
        if with_paths:  # what goes, then what stays and why, as the app's confirmation
            lines += [f"{'':36}{p}" for p in s.paths]
            lines += [f"{'':36}stays: {k.path} — {k.why}" for k in s.kept]
    if not applying:
        lines += ["", "Apply with: mlspace clean PATH... --apply ID [ID...]"]
    return "\n".join(lines)
