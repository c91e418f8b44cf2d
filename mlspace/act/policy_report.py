"""What one policy run did, as a record (kept in the data folder for the app, and written as
JSON) and as a small self-contained HTML page: what moved and where, what was skipped and
why, what the policy left for a person to review. Nobody watched the run, so the report
must answer every "why did it (not) take this?" by itself."""

from __future__ import annotations

import html
import json
import socket
import time
from collections.abc import Callable, Sequence

from mlspace import fmt
from mlspace.act.outcomes import CleanupResult
from mlspace.act.policy import Policy, Selection


def summary(policy: Policy, roots: Sequence[str], chosen: Selection,
            result: CleanupResult | None, dry_run: bool, exit_code: int,
            report: str | None = None) -> dict:
    """The run as plain data (JSON-ready)."""
    actions = {i.path: a for s, a in chosen.work for i in s.items}
    moved = [{"path": o.path, "action": actions.get(o.path, "trash"), "to": o.reason,
              "bytes": o.disk_usage} for o in (result.outcomes if result else ()) if o.done]
    skipped = [{"path": o.path, "reason": o.reason}
               for o in (result.outcomes if result else ()) if not o.done]
    skipped += [{"path": p, "reason": why} for p, why in chosen.capped]
    planned = [{"path": i.path, "action": a, "bytes": i.disk_usage, "suggestion": s.id}
               for s, a in chosen.work for i in s.items]
    return {
        "time": time.time(), "host": socket.gethostname(), "policy": policy.path,
        "roots": list(roots), "dry_run": dry_run, "exit_code": exit_code,
        "cleanup_id": result.cleanup_id if result else None, "report": report,
        "stopped": result.stopped if result else "",
        "moved_bytes": sum(m["bytes"] for m in moved),
        # what the disk got back (statvfs): archived and purged items; trashed ones wait
        "freed": result.freed if result is not None and result.freed is not None else 0,
        "planned": planned, "moved": moved, "skipped": skipped,
        "held": [{"path": p, "reason": why} for p, why in chosen.held],
    }


def brief(run: dict) -> dict:
    """The run without its item lists: what the app's start-up notice needs."""
    return {k: v for k, v in run.items() if k not in ("planned", "moved", "skipped", "held")} \
        | {"moved_items": len(run["moved"]), "skipped_items": len(run["skipped"]),
           "held_items": len(run["held"])}


def render_json(run: dict) -> str:
    return json.dumps(run, indent=1) + "\n"


def _rows(items: list[dict], columns: tuple[str, ...]) -> str:
    if not items:
        return "<p class=none>None.</p>"
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_cell(item.get(c)))}</td>" for c in columns)
        + "</tr>" for item in items)
    return f"<table><tr>{head}</tr>{body}</table>"


def _cell(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return fmt.size(value)
    return "" if value is None else str(value)


def render_html(run: dict) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(run["time"]))
    title = "Dry run of the mlspace policy" if run["dry_run"] else "mlspace policy run"
    undo = (f"<p>Undo all of it with <code>mlspace undo {html.escape(run['cleanup_id'])}"
            "</code>.</p>") if run["cleanup_id"] else ""
    stopped = f"<p class=warn>Stopped early: {html.escape(run['stopped'])}</p>" \
        if run["stopped"] else ""
    first = ("Would move", run["planned"], ("path", "action", "bytes")) if run["dry_run"] \
        else ("Moved", run["moved"], ("path", "action", "to", "bytes"))
    sections = [first, ("Skipped", run["skipped"], ("path", "reason")),
                ("Left for a person to review", run["held"], ("path", "reason"))]
    parts = "".join(f"<h2>{name} ({len(items)})</h2>{_rows(items, cols)}"
                    for name, items, cols in sections)
    roots = ", ".join(html.escape(r) for r in run["roots"])
    return (
        "<!DOCTYPE html><html><head><meta charset=utf-8>"
        f"<title>{title}</title><style>"
        "body{font:14px system-ui,sans-serif;margin:2em;color:#222}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;"
        "text-align:left}.warn{color:#a40}.none{color:#777}"
        f"</style></head><body><h1>{title}</h1>"
        f"<p>{roots} on {html.escape(run['host'])}, {when}; policy "
        f"<code>{html.escape(run['policy'])}</code>. "
        f"{_totals(run)}; exit code {run['exit_code']}.</p>{stopped}{undo}{parts}"
        "</body></html>\n")


def _totals(run: dict) -> str:
    """What the run moved and what the disk got back, in the words `df` agrees with."""
    if run["dry_run"]:
        return f"Would move {fmt.size(sum(p['bytes'] for p in run['planned']))}"
    moved = run.get("moved_bytes", 0)
    trashed = sum(m["bytes"] for m in run["moved"] if m["action"] == "trash")
    words = [f"Moved {fmt.size(moved)}"]
    if trashed:
        words.append(f"{fmt.size(trashed)} of it to the trash (still on this disk until "
                     "freed)")
    words.append(f"freed {fmt.size(max(run['freed'], 0))} on the disk")
    return ", ".join(words)


def renderer_for(path: str) -> Callable[[dict], str]:
    """render_html or render_json by the report's extension; ValueError for others."""
    if path.endswith((".html", ".htm")):
        return render_html
    if path.endswith(".json"):
        return render_json
    raise ValueError(f"--report {path}: use a .html or .json file")
