"""What the window's status line says after a scan, a cleanup and an undo, with what its
tooltip lists: words from results, no Qt (the window sets them)."""

from __future__ import annotations

from collections.abc import Sequence

from mlspace import fmt
from mlspace.act.outcomes import CleanupResult, RestoreOutcome
from mlspace.advise import KeptItem
from mlspace.scan import Snapshot
from mlspace.ui.journal_follow import named

#: How many unreadable paths the tooltip of a scan's totals lists.
UNREADABLE_LISTED = 30


def scan_line(snap: Snapshot, title: str, read_only: str, note: str, demo: bool
              ) -> tuple[str, str]:
    """(the line, its tooltip) for a scan shown: its totals, whose scan it is (``title``,
    for a saved scan), why no cleanup may start from it, the source's ``note``, what
    could not be read, and the demo's sparse files."""
    t = snap.grand_totals()
    parts = [f"{fmt.size(t.disk_usage)} on disk", f"{fmt.size(t.apparent_size)} apparent",
             fmt.plural(t.files, 'file'), f"scanned in {fmt.duration(snap.duration)}"]
    if snap.cancelled:
        parts.insert(0, "Scan cancelled: partial results")
    if title:
        parts.insert(0, title[:1].upper() + title[1:])
    if read_only:
        parts.append(f"No cleanups from this scan: {read_only}")
    if note:
        parts.append(note)
    tip = ""
    if snap.errors:
        parts.append(f"{len(snap.errors)} unreadable")
        tip = "\n".join(f"{e.path}: {e.message}" for e in snap.errors[:UNREADABLE_LISTED])
    if demo:
        parts.append("Demo: big files are sparse, so sizes are shown as apparent sizes")
    return " · ".join(parts), tip


def after_cleanup(text: str, result: CleanupResult, stayed: Sequence[KeptItem]
                  ) -> tuple[str, str]:
    """A cleanup's line (``text``: what it moved, mlspace.ui.free_space.cleanup_words) with
    what a saved scan's plan suggested that stayed, and what was skipped, with why."""
    tip = ""
    if stayed:
        one = len(stayed) == 1
        text += (f" {named([k.path for k in stayed])}, which the saved scan suggested, "
                 f"stayed: the records on disk do not suggest {'it' if one else 'them'}.")
    skipped = result.skipped
    if skipped:
        reasons = {o.reason for o in skipped}
        why = f": {reasons.pop()}" if len(reasons) == 1 else " (hover for why)"
        text += f" {len(skipped)} skipped{why}."
        tip = "\n".join(f"{o.path}: {o.reason}" for o in skipped)
    return text, tip


def after_undo(results: Sequence[RestoreOutcome]) -> tuple[str, str, list[str], list[str]]:
    """(the line, its tooltip, the paths back where they were, the paths that came back
    beside their old place) for an undo: what came back, by name; what could not, with
    why."""
    back = [r.path for r in results if r.restored_to == r.path]
    beside = [r for r in results if r.restored_to is not None and r.restored_to != r.path]
    failed = [r for r in results if r.restored_to is None]
    restored = [*back, *(str(r.restored_to) for r in beside)]
    text = f"Put back {fmt.plural(len(restored), 'item')} from the trash" + \
        (f": {named(restored)}." if restored else ".")
    tips = [f"back: {p}" for p in back] + \
        [f"back beside: {r.path} as {r.restored_to}" for r in beside]
    if failed:
        text += f" {len(failed)} could not be restored (hover for why)."
        tips += [f"{r.path}: {r.reason}" for r in failed]
    return text, "\n".join(tips), back, [r.path for r in beside]
