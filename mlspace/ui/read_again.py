"""The window's side of mlspace.ui.fresh_plan: a cleanup asked from an opened saved scan
waits while its folders are scanned and planned again in a worker thread, then goes to the
one cleanup gate with what the disk's records still suggest (or says why nothing is)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from mlspace.advise import Suggestion
from mlspace.ui.fresh_plan import Replanned, replan
from mlspace.ui.threads import Background

if TYPE_CHECKING:
    from mlspace.ui.window_parts import WindowParts


class ReadAgain(QObject):
    def __init__(self, window: WindowParts) -> None:
        super().__init__(window)
        self.window = window
        self.reader = Background(self)

    @property
    def running(self) -> bool:
        return self.reader.running

    def needed(self) -> bool:
        """Was the scan shown opened from a file (its records are data, not the disk's)?"""
        source = self.window.source
        return source is not None and bool(source.file)

    def start(self, suggestions: list[Suggestion], archive: bool) -> None:
        window, ws = self.window, self.window.ws
        assert ws.inventory is not None and window.source is not None
        asked, roots = ws.inventory, list(ws.inventory.snapshot.roots)
        options, advice, user = window.source.info.scan_options(), ws.advice, ws.user
        window.status.setText("This plan comes from a saved scan: reading the records on disk "
                              "again before anything moves…")
        self.reader.run(lambda: replan(suggestions, roots, options, advice, user),
                        lambda result: self._read(result, archive, asked),
                        self._failed)

    def _read(self, result: object, archive: bool, asked: object) -> None:
        window = self.window
        assert isinstance(result, Replanned)
        if window.ws.inventory is not asked:  # another scan is shown now: it has its own plan
            return
        if not result.suggestions:
            window.status.setText(
                "Nothing was moved: read again from the disk, the records do not suggest it "
                f"now (the saved scan did). {result.note()}")
            window.status.setToolTip("\n".join(f"{k.path}: {k.why}" for k in result.stays))
            return
        window.confirm_and_clean(list(result.suggestions), archive, replanned=result)

    def _failed(self, message: str) -> None:
        self.window.status.setText(f"Nothing was moved: the folders could not be read again "
                                   f"({message}).")

    def wait(self) -> None:
        self.reader.wait()
