"""Saved scans in the app: where the scan on screen comes from (made now, or opened from a
file, and then from which machine and how long ago), File → Open scan… and Save scan…, and
keeping every finished scan in mlspace's history.

A saved scan is shown like a scan made now, but it describes a disk as it was, possibly
another machine's. Cleanups are offered only for its folders that are on this machine
(mlspace.index.here), where every item is checked against the disk before it moves, and
never from an ncdu export: it holds no records, so which checkpoints are best or latest is
unknown and the plan could name one of them. The reason is kept with the scan
(ScanSource.cleanup_off) for the workspace to give to every view that offers a cleanup.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QThread, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from mlspace import fmt
from mlspace.classify import Inventory
from mlspace.demo import is_demo
from mlspace.index.here import folders_not_here
from mlspace.index.info import ScanInfo
from mlspace.index.saved import SavedScan
from mlspace.scan import Snapshot
from mlspace.ui.journal_watch import Journal
from mlspace.ui.threads import finish_thread, start_in_thread
from mlspace.ui.window_settings import settings
from mlspace.written import CannotWrite, binary_output, written_in_place

OPEN_FILTERS = ("mlspace scans (*.parquet _metadata);;ncdu/gdu exports (*.json *.json.gz);;"
                "All files (*)")
#: Save scan…'s choices, and the extension each adds to a name that has none of them.
SAVE_FILTERS = {"mlspace scan (*.parquet)": ".parquet", "ncdu export (*.json)": ".json",
                "ncdu export, gzip (*.json.gz)": ".json.gz"}
NAMES_ONLY = ("it was opened from an ncdu export, which has no records of the best and "
              "latest checkpoints: press F5 to scan it here, then clean up")


@dataclass(frozen=True)
class ScanSource:
    """Where the scan on screen comes from. ``file`` is the saved scan it was read from
    ('' for a scan made now); ``not_here`` its folders not on this machine, with why;
    ``names_only`` says it was classified from names alone (an ncdu export); ``note`` is
    what the worker has to tell besides (a scan it could not keep in the history);
    ``journal`` the cleanup journal as it stood when the scan began (what the scan saw
    moved already: mlspace.ui.journal_follow; None when it could not be read)."""

    info: ScanInfo
    roots: tuple[str, ...]
    file: str = ""
    not_here: Mapping[str, str] = field(default_factory=dict)
    names_only: bool = False
    note: str = ""
    journal: Journal | None = None

    @classmethod
    def made_now(cls, snapshot: Snapshot) -> ScanSource:
        """A scan just made here, when the worker did not say more."""
        return cls(ScanInfo.here(time.time() - snapshot.duration), tuple(snapshot.roots))

    @property
    def rescannable(self) -> bool:
        """Can F5 scan these folders here? Not when any of them is not on this machine."""
        return not self.not_here

    @property
    def owners_named_here(self) -> bool:
        """Do the scan's uids name the same people here? Not for a scan made on another
        machine (its owners are shown by number)."""
        return not self.file or self.info.host == platform.node()

    def cleanup_off(self) -> dict[str, str]:
        """The scanned folders no cleanup may start in, with why (none for a scan made
        now)."""
        off = dict(self.not_here)
        if self.names_only:
            for root in self.roots:
                off.setdefault(root, NAMES_ONLY)
        return off

    def title(self) -> str:
        """The folders of a scan made now; for an opened one, whose and how old:
        "scan of gpu-node3:/scratch/lab, 2 days old"."""
        if not self.file:
            return ", ".join(self.roots)
        host = f"{self.info.host}:" if self.info.host else ""
        where = ", ".join(host + root for root in self.roots)
        if self.info.finished <= 0:  # an export that does not say when it was made
            return f"scan of {where}, date unknown"
        age = fmt.age(time.time() - self.info.finished)
        return f"scan of {where}, {'made just now' if age == 'just now' else age + ' old'}"


def opened_source(saved: SavedScan, journal: Journal | None) -> ScanSource:
    """What an opened saved scan is, for the title and the cleanups. Looks for its folders
    on this machine: call it off the GUI thread."""
    roots = tuple(saved.snapshot.roots)
    return ScanSource(saved.info, roots, saved.path, folders_not_here(saved.info, roots),
                      names_only=saved.saved_inventory is None, journal=journal)


def keep_in_history(inventory: Inventory, info: ScanInfo, keep: Collection[str] = ()) -> str:
    """Keep a finished scan in mlspace's history (``mlspace history``, ``diff``), with its
    retention. Returns what to tell the user when that failed, else ''. A cancelled scan is
    not the folder's state and is not kept, nor is the demo (trying it leaves nothing). It
    replaces the one the app kept of the same folders minutes before (one look at them:
    mlspace.index.history), unless that is in ``keep`` (the scan being compared with)."""
    from mlspace.index import history

    snapshot = inventory.snapshot
    if snapshot.cancelled or any(is_demo(root) for root in snapshot.roots):
        return ""
    try:
        history.save(inventory, info, rescan=True, keep=keep)
    except Exception as err:  # the history is a bonus: never lose the scan shown over it
        return f"This scan could not be kept in mlspace's history ({err})"
    return ""


def ask_scan_to_open(parent: QWidget, shown: ScanSource | None) -> str:
    """File → Open scan…: the file chosen, or ''. It starts in the folder of the saved scan
    shown, if one is."""
    start = os.path.dirname(shown.file) if shown is not None and shown.file else \
        _last_folder()
    path, _ = QFileDialog.getOpenFileName(parent, "Open a saved scan", start, OPEN_FILTERS)
    if path:
        settings().setValue(_FOLDER_KEY, os.path.dirname(path))
    return path


#: Where a scan was last saved or opened from: Save and Open start there next time.
_FOLDER_KEY = "scans/folder"


def _last_folder() -> str:
    return str(settings().value(_FOLDER_KEY, os.path.expanduser("~")))


def ask_where_to_save(parent: QWidget, source: ScanSource) -> str:
    """File → Save scan…: the file to write, with the extension of the format chosen when
    the name has none of the known ones; '' when cancelled."""
    folder = os.path.dirname(source.file) if source.file else _last_folder()
    name = os.path.basename(source.roots[0].rstrip("/")) if source.roots else ""
    stamp = time.strftime("%Y%m%d", time.localtime(source.info.finished or time.time()))
    path, chosen = QFileDialog.getSaveFileName(
        parent, "Save scan", os.path.join(folder, f"mlspace-{name or 'scan'}-{stamp}.parquet"),
        ";;".join(SAVE_FILTERS))
    if path and not path.lower().endswith((".parquet", ".json", ".json.gz")):
        path += SAVE_FILTERS.get(chosen, ".parquet")
    if path:
        settings().setValue(_FOLDER_KEY, os.path.dirname(path))
    return path


def why_not_savable(path: str, snapshot: Snapshot) -> str:
    """Why the scan cannot be written to ``path`` in the format its name picks, or ''."""
    if path.lower().endswith(".parquet"):
        return ""
    from mlspace.index.ncdu_write import check_exportable

    return check_exportable(snapshot) or ""


def write_scan_file(path: str, inventory: Inventory, info: ScanInfo) -> None:
    """Write the scan to ``path``: mlspace's index for a name ending in .parquet, else
    ncdu's JSON export (gzip for .gz), stamped with the scan's own time. Written as
    ``mlspace scan -o`` writes: beside the name and moved in place, never replacing what is
    not a plain file. Raises CannotWrite with the reason."""
    if path.lower().endswith(".parquet"):
        from mlspace.index.parquet_write import write_parquet

        with written_in_place(path) as partial:
            write_parquet(partial, inventory, info)
        return
    from mlspace.index.ncdu_write import write_ncdu

    with binary_output(path) as out:
        write_ncdu(inventory.snapshot, out, now=info.finished or None)


class _SaveJob(QObject):
    done = Signal(str, str)  # path, why it failed ('' when written)

    def __init__(self, path: str, inventory: Inventory, info: ScanInfo) -> None:
        super().__init__()
        self.path, self.inventory, self.info = path, inventory, info

    def run(self) -> None:
        try:
            write_scan_file(self.path, self.inventory, self.info)
        except CannotWrite as err:
            self.done.emit(self.path, str(err))
        except Exception as err:  # a message in the status bar, never a crash
            self.done.emit(self.path, f"{type(err).__name__}: {err}")
        else:
            self.done.emit(self.path, "")


class SaveController(QObject):
    """Writes one saved scan at a time in a worker thread (a large scan takes seconds)."""

    saved = Signal(str, str)  # path, why it failed ('' when written)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: QThread | None = None
        self._job: _SaveJob | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None

    def save(self, path: str, inventory: Inventory, info: ScanInfo) -> str:
        """Start writing; returns why it cannot start ('' when it started)."""
        if self.running:
            return "a scan is being saved: wait for it to finish"
        problem = why_not_savable(path, inventory.snapshot)
        if problem:
            return problem
        self._job = _SaveJob(path, inventory, info)
        self._job.done.connect(self._done)  # a bound method: runs in the GUI thread
        self._thread = start_in_thread(self._job)
        return ""

    def wait(self, ms: int = 30_000) -> bool:
        return self._thread.wait(ms) if self._thread is not None else True

    def _done(self, path: str, problem: str) -> None:
        finish_thread(self._thread)
        self._thread, self._job = None, None
        self.saved.emit(path, problem)
