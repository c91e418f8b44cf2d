"""``mlspace diff`` on a terminal: the comparison document as a short table."""

from __future__ import annotations

from typing import Any

from mlspace import fmt
from mlspace.classify import ORDER

#: Folders and runs shown; the JSON lists them all.
SHOWN = 25


def signed_size(delta: int) -> str:
    return ("+" if delta > 0 else "-" if delta < 0 else "±") + fmt.size(abs(delta))


def _side(side: dict[str, Any]) -> str:
    if side["fresh"]:
        name = "a fresh scan"
    elif side["id"]:
        name = f"saved scan {side['id']}"
    else:
        name = str(side["file"])
    where = ", ".join(str(x) for x in (side["host"], side["scanned"]) if x)
    return f"{name} ({where})" if where else name


def diff_table(doc: dict[str, Any], apparent: bool = False) -> str:
    """The comparison by size on disk, or (``apparent``, `diff --apparent`) by apparent
    size: the document's ``apparent`` part, which has the same keys."""
    sizes = doc["apparent"] if apparent else doc
    totals = sizes["totals"]
    lines = [f"Comparing {', '.join(doc['to']['roots'])}",
             f"  from {_side(doc['from'])}",
             f"  to   {_side(doc['to'])}",
             "",
             f"  {'apparent' if apparent else 'on disk':<20}{fmt.size(totals['before']):>12} -> "
             f"{fmt.size(totals['after']):>12}  {signed_size(totals['delta'])}"]
    for category in ORDER:
        change = sizes["categories"][category.id]
        if change["delta"]:
            lines.append(f"  {category.info.label:<20}{fmt.size(change['before']):>12} -> "
                         f"{fmt.size(change['after']):>12}  {signed_size(change['delta'])}")
    changes = sizes["changes"]
    if not changes:
        lines += ["", "No folder changed size."]
    else:
        lines += ["", "What changed (largest first):"]
        lines += [f"  {signed_size(c['delta']):>12}  {c['status']:<8} {c['category']:<11} "
                  f"{c['path']}" for c in changes[:SHOWN]]
        if len(changes) > SHOWN:
            lines.append(f"  … and {len(changes) - SHOWN} more (see --format json)")
    runs = sizes["runs"]
    if runs:
        lines += ["", "Runs:"]
        lines += [f"  {r['status']:<8} {fmt.size(r['before']):>10} -> {fmt.size(r['after']):>10}"
                  f"  {r['path']}" for r in runs[:SHOWN]]
        if len(runs) > SHOWN:
            lines.append(f"  … and {len(runs) - SHOWN} more (see --format json)")
    return "\n".join(lines)
