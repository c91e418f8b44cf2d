"""The details panel: everything mlspace knows about the selected file or folder, as it is
on disk now (after cleanups and undos). It says what the selection *is*: the filter, which
only chooses what the other views show, changes nothing here."""

from __future__ import annotations

import html
import time

from PySide6.QtWidgets import QTextBrowser

from mlspace import fmt
from mlspace.classify import ORDER, Artifact
from mlspace.scan import kind_name
from mlspace.ui.workspace import Workspace


class DetailsPanel(QTextBrowser):
    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.ws = workspace
        self.setOpenLinks(False)
        # A selection shows at once (it is one entry's facts); what a new scan, a filter or
        # a cleanup changes waits its turn (it may first sum a million entries' categories).
        workspace.selection_changed.connect(self.show_entry)
        for signal in (workspace.inventory_changed, workspace.view_changed):
            signal.connect(lambda: workspace.redraws.later(self.show_selected))

    def show_selected(self) -> None:
        self.show_entry(self.ws.selected)

    def show_entry(self, entry: int) -> None:
        inv = self.ws.inventory
        if inv is None or entry < 0 or entry >= len(self.ws.removed) or self.ws.removed[entry]:
            self.setHtml("<p style='color:gray'>Select a file or folder to see what it is.</p>")
            return
        snap = inv.snapshot
        totals = self.ws.totals(entry)
        rows = [
            ("Path", html.escape(snap.path(entry))),
            ("Kind", kind_name(snap.kind[entry])),
            ("Category", self.ws.category_of(entry).info.label),
            ("On disk", fmt.size(totals.disk_usage)),
            ("Apparent", fmt.size(totals.apparent_size)),
            ("Modified", f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(totals.newest_mtime))}"
                         f" ({fmt.ago(time.time() - totals.newest_mtime)})"),
        ]
        folder = snap.row_of(entry) >= 0
        if folder:
            rows.append(("Files", fmt.count(totals.files)))
        archived = self.ws.archived_at(entry)
        if archived is not None:  # a link or stub: what it stands for lives in the tier
            size = archived.apparent_size if self.ws.apparent else archived.disk_usage
            rows.append(("Archived", f"in {html.escape(archived.where)}, {fmt.size(size)} "
                                     "(right-click: Bring back)"))
        # What mlspace knows (the checkpoint, its run) beside what the file system says, not
        # under it: the pane is wide and short, and the checkpoint's facts are what a person
        # selecting one came for.
        artifact = self.ws.artifact_at(entry)
        sections = [_table(rows)]
        if artifact is not None:
            sections.append(self._artifact(artifact, itself=artifact.entry == entry))
        breakdown = self._category_breakdown(entry) if folder else []
        if len(breakdown) > 1:  # one category is what the Category row says already
            sections.append(_heading("By category") + _table(breakdown))
        self.setHtml(f"<h3 style='margin:0'>{html.escape(snap.name(entry))}</h3>"
                     + _side_by_side(sections))

    def _category_breakdown(self, entry: int) -> list[tuple[str, str]]:
        totals = self.ws.category_breakdown(entry)
        return [(c.info.label, fmt.size(totals[c].apparent_size if self.ws.apparent
                                        else totals[c].disk_usage))
                for c in ORDER if totals[c].files]

    def _artifact(self, a: Artifact, itself: bool) -> str:
        """What mlspace knows about the checkpoint (or run, dataset…) holding the selection;
        ``itself`` when the selection is that artifact, whose name and size are then said
        already."""
        disk, apparent = self.ws.artifact_totals(a)
        rows = [("What", f"{a.kind}" + (f" ({a.tool})" if a.tool else ""))]
        if not itself:
            rows.append(("Size", fmt.size(apparent if self.ws.apparent else disk)))
        if a.step is not None:
            rows.append(("Step", str(a.step)))
        if a.epoch is not None:
            rows.append(("Epoch", str(a.epoch)))
        rows += [(name, f"{value:g}") for name, value in a.metrics]
        if a.copy_of:
            rows.append(("Copy of", f"{html.escape(a.copy_of.split('/')[-1])} ({a.copy_kind})"))
        now = self.ws.series_now(a.series or "")
        if now is not None:
            series = now.series
            badges = []
            if series.best == a.id:
                badges.append("<b>best</b> — " + html.escape(series.best_reason))
            if series.latest == a.id:
                badges.append("<b>latest</b> — " + html.escape(series.latest_reason))
            if a.id in series.protected and not badges:
                badges.append("kept: the tool's records point to it")
            rows.append(("In series", f"{fmt.plural(len(now.members), 'checkpoint')} of "
                                      f"{html.escape(now.tool)}"))
            if badges:
                rows.append(("Status", "<br>".join(badges)))
        run = next((r for r in self.ws.runs() if r.run.id == a.run), None)
        if run is not None:
            label = self.ws.inventory.run_label(run.run)  # type: ignore[union-attr]
            rows.append(("Run", html.escape(label) + (f" ({run.tool})" if run.tool else "")))
        return ("" if itself else _heading(html.escape(a.name))) + _table(rows)


def _heading(text: str) -> str:
    return f"<p style='margin:0'><b>{text}</b></p>"


def _table(rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><td style='color:gray;padding-right:8px'>{k}</td><td>{v}</td></tr>"
                   for k, v in rows)
    return f"<table cellspacing='0'>{body}</table>"


def _side_by_side(sections: list[str]) -> str:
    """The first section in a column of its own, the others stacked in a second: the pane is
    wide and short."""
    if len(sections) == 1:
        return sections[0]
    return ("<table width='100%' cellspacing='0'><tr>"
            f"<td width='50%' valign='top' style='padding-right:12px'>{sections[0]}</td>"
            f"<td width='50%' valign='top'>{'<br>'.join(sections[1:])}</td></tr></table>")
