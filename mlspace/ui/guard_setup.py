"""*Guard this disk…* on the disk line: after one question that says what it will write and
what the guard will then do by itself, add a ``[guard]`` section to the workspace's policy
(mlspace.guard.setup), and say how to start the guard. The guard itself runs outside the
app (``mlspace guard --install``), so guarding goes on while the window is closed."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from mlspace import fmt
from mlspace.act.policy import PolicyError
from mlspace.guard.setup import AlreadyGuarded, add_guard, policy_for
from mlspace.report.disk_status import DiskStatus

GIB = 1 << 30


def keep_free_for(status: DiskStatus) -> str:
    """A default keep_free: a tenth of the disk, at most 50 GiB, in whole GiB (at least 1)."""
    return f"{max(1, min(50, status.fs.size // 10 // GIB))} GiB"


def question(status: DiskStatus, keep_free: str) -> str:
    path = policy_for(status.roots[0])
    return (f"Let mlspace guard {status.fs.mount} ({fmt.size(status.fs.available)} free)?\n\n"
            f"This adds to {path}:\n    [guard]\n    act = true\n    keep_free = "
            f"\"{keep_free}\"\n\nWhen the disk would fill before a run's next checkpoint "
            "lands, the guard then deletes for good, oldest first, what mlspace moved to the "
            "trash, then the policy's safe suggestions, until that much is free. It never "
            "touches a run's best or latest checkpoint, anything written in the last 10 "
            "minutes, raw data, or anything that needs review.\n\nStart the guard with "
            f"`mlspace guard --install {' '.join(status.roots)}`.")


def guard_this_disk(parent: QWidget, status: DiskStatus) -> str | None:
    """Ask, then write; what to tell the user, or None when they said no."""
    keep_free = keep_free_for(status)
    box = QMessageBox(QMessageBox.Icon.Question, "Guard this disk?",
                      question(status, keep_free), parent=parent)
    write = box.addButton("Write the [guard] section", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    parent.last_dialog = box  # type: ignore[attr-defined]
    box.exec()
    if box.clickedButton() is not write:
        return None
    try:
        path = add_guard(status.roots[0], keep_free)
    except (AlreadyGuarded, PolicyError, OSError) as err:
        return f"The disk is not guarded: {err}"
    return (f"Wrote a [guard] section to {path} (keep_free = {keep_free}). Start the guard "
            f"with: mlspace guard --install {' '.join(status.roots)}")
