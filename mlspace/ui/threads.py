"""Running one job object in a QThread, the way both controllers (scan, cleanup) do."""

from __future__ import annotations

from PySide6.QtCore import QObject, QThread


def start_in_thread(job: QObject, entry: str = "run") -> QThread:
    """Move ``job`` to a new thread and call ``job.<entry>()`` there."""
    thread = QThread()
    job.moveToThread(thread)
    thread.started.connect(getattr(job, entry))
    thread.start()
    return thread


def finish_thread(thread: QThread | None) -> None:
    """Stop a job's thread once its job returned; call from the GUI thread."""
    if thread is not None:
        thread.quit()
        thread.wait()
        thread.deleteLater()
