"""Edit → Settings…: the cold tier (where archived items go, and what is left at their
paths) and the ages after which archiving is suggested, saved to the same ``config.toml``
the command line and unattended policy runs read, so the app and a nightly timer never
disagree. It also says what mlspace's own scan history costs, and how long it is kept."""

from __future__ import annotations

import html
import os
from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mlspace import fmt
from mlspace.act.tier import root_problem
from mlspace.config import Settings, config_file, save_settings
from mlspace.disks import same_disk_as
from mlspace.index.history import history_dir, retention_words, space_used
from mlspace.ui.disk_question import DiskQuestion

MAX_DAYS = 100 * 365
_AGES = (("archive_checkpoints_days", "Kept checkpoints of finished runs"),
         ("archive_datasets_days", "Raw and processed datasets"),
         ("archive_logs_days", "Log archives (.tar.gz …)"))


def _tier_facts(root: str, scanned: list[str]) -> tuple[str | None, str | None]:
    """What is wrong with ``root`` as the cold tier, and a scanned folder on its disk."""
    problem = root_problem(root, scanned)
    return problem, same_disk_as(root, scanned) if problem is None else None


class SettingsDialog(QDialog):
    saved = Signal(object)  # the Settings written to config.toml

    def __init__(self, current: Settings, scanned: Sequence[str], problem: str = "",
                 parent: QWidget | None = None) -> None:
        """``scanned``: the folders shown now (the tier may not lie inside one);
        ``problem``: why config.toml could not be read (saving replaces it)."""
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.scanned = list(scanned)
        layout = QVBoxLayout(self)
        self.broken = QLabel(f"<b>{html.escape(problem, quote=False)}</b><br>Saving writes a new "
                             "config.toml with what is shown here." if problem else "")
        self.broken.setWordWrap(True)
        self.broken.setVisible(bool(problem))
        layout.addWidget(self.broken)
        form = QFormLayout()
        self.root = QLineEdit(current.archive_root or "")
        self.root.setPlaceholderText("not set: nothing is archived, only trashed")
        self.root.textChanged.connect(self._check)
        choose = QPushButton("Choose…")
        choose.clicked.connect(self._choose)
        row = QHBoxLayout()
        row.addWidget(self.root, 1)
        row.addWidget(choose)
        form.addRow("Cold tier folder:", row)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        form.addRow("", self.problem)
        self.symlink = QRadioButton("a link to the archived copy (code that loads the path "
                                    "keeps working, from the slower disk)")
        self.stub = QRadioButton("a small NAME.mlspace-archived.json file saying where it went")
        self.link_kind = QButtonGroup(self)
        for button in (self.symlink, self.stub):
            self.link_kind.addButton(button)
        (self.stub if current.archive_link == "stub" else self.symlink).setChecked(True)
        left = QVBoxLayout()
        left.addWidget(self.symlink)
        left.addWidget(self.stub)
        form.addRow("Left at its path:", left)
        form.addRow(QLabel("Suggest archiving what was untouched for:"))
        self.ages: dict[str, QSpinBox] = {}
        for key, label in _AGES:
            box = QSpinBox()
            box.setRange(0, MAX_DAYS)
            box.setSuffix(" days")
            box.setValue(round(getattr(current, key)))
            self.ages[key] = box
            form.addRow(f"{label}:", box)
        self.trash_days = QSpinBox()
        self.trash_days.setRange(0, MAX_DAYS)
        self.trash_days.setSuffix(" days")
        self.trash_days.setSpecialValueText("never (free it by hand)")
        self.trash_days.setValue(round(current.trash_days))
        self.trash_days.setToolTip("What mlspace moved to the trash is deleted for good after "
                                   "this long, and the disk gets the space back; until then "
                                   "undo puts it back. Applied when the app starts and by "
                                   "every policy run.")
        form.addRow("Free mlspace's trash after:", self.trash_days)
        scans, used = space_used()
        self.history = QLabel(f"{fmt.plural(scans, 'saved scan')}, {fmt.size(used)} in "
                              f"{html.escape(str(history_dir()))}; kept: "
                              f"{retention_words()}.")
        self.history.setWordWrap(True)
        form.addRow("Scan history:", self.history)
        layout.addLayout(form)
        where = QLabel(f"Saved to {html.escape(str(config_file()))}, which the command line "
                       "and unattended policy runs read too.")
        where.setWordWrap(True)
        where.setStyleSheet("color: gray")
        layout.addWidget(where)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(640, self.sizeHint().height())
        self.question = DiskQuestion(self)
        self._check()

    def settings(self) -> Settings:
        """What the dialog shows, as settings."""
        root = self.root.text().strip()
        return Settings(os.path.abspath(os.path.expanduser(root)) if root else None,
                        "stub" if self.stub.isChecked() else "symlink",
                        *(float(self.ages[key].value()) for key, _ in _AGES),
                        trash_days=float(self.trash_days.value()))

    def _choose(self) -> None:
        start = self.root.text().strip() or os.path.expanduser("~")
        folder = QFileDialog.getExistingDirectory(self, "Choose the cold tier folder", start)
        if folder:
            self.root.setText(folder)

    def _check(self) -> None:
        """Say what is wrong with the folder typed (Save waits until it is right), or warn
        when it would free nothing (the same disk as what is scanned). The folder is asked
        off the GUI thread: a network mount that hangs must not freeze the window."""
        root = self.settings().archive_root
        if not root:
            self.question.forget()
            self._show_check((None, None), root)
            return
        self.save_button.setEnabled(False)
        self.problem.setText("Checking the folder…")
        scanned = list(self.scanned)
        self.question.ask(lambda: _tier_facts(root, scanned),
                          lambda answer: self._show_check(answer, root),
                          lambda: self.problem.setText(
                              f"<span style='color:#b00'>{html.escape(root)} does not answer "
                              "(a network disk not responding?); still waiting.</span>"))

    def _show_check(self, answer: object, root: str | None) -> None:
        problem, same = answer if isinstance(answer, tuple) else (str(answer), None)
        if problem:
            self.problem.setText(f"<span style='color:#b00'>{html.escape(problem)}</span>")
        elif same:
            self.problem.setText(f"<span style='color:#a60'>On the same disk as "
                                 f"{html.escape(same)}: archiving there frees nothing, and "
                                 "each item is refused.</span>")
        else:
            self.problem.setText("Items keep their layout there: FOLDER/HOST/original path."
                                 if root else "")
        self.save_button.setEnabled(problem is None)

    def accept(self) -> None:
        if self.question.waiting:
            return  # Save is off while the folder is checked
        chosen = self.settings()
        try:
            save_settings(chosen)
        except (OSError, ValueError) as err:
            self.problem.setText(f"<span style='color:#b00'>Could not save "
                                 f"{html.escape(str(config_file()))}: "
                                 f"{html.escape(str(err))}</span>")
            return
        self.saved.emit(chosen)
        super().accept()
