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
        workspace.selection_changed.connect(self.show_entry)
        workspace.inventory_changed.connect(lambda: self.show_entry(self.ws.selected))
        workspace.view_changed.connect(lambda: self.show_entry(self.ws.selected))

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
        if snap.row_of(entry) >= 0:
            rows.append(("Files", fmt.count(totals.files)))
        parts = [f"<h3>{html.escape(snap.name(entry))}</h3>", _table(rows)]
        if snap.row_of(entry) >= 0:
            parts.append(self._category_breakdown(entry))
        artifact = self.ws.artifact_at(entry)
        if artifact is not None:
            parts.append(self._artifact(artifact))
        self.setHtml("".join(parts))

    def _category_breakdown(self, entry: int) -> str:
        totals = self.ws.category_breakdown(entry)
        rows = [(c.info.label, fmt.size(totals[c].apparent_size if self.ws.apparent
                                        else totals[c].disk_usage))
                for c in ORDER if totals[c].files]
        return "<h4>By category</h4>" + _table(rows)

    def _artifact(self, a: Artifact) -> str:
        disk, apparent = self.ws.artifact_totals(a)
        rows = [("What", f"{a.kind}" + (f" ({a.tool})" if a.tool else "")),
                ("Size", fmt.size(apparent if self.ws.apparent else disk))]
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
            rows.append(("Run", html.escape(run.run.name) + (f" ({run.tool})" if run.tool
                                                              else "")))
        return f"<h4>{html.escape(a.name)}</h4>" + _table(rows)


def _table(rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><td style='color:gray;padding-right:8px'>{k}</td><td>{v}</td></tr>"
                   for k, v in rows)
    return f"<table>{body}</table>"
