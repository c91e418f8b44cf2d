"""What every item of one run shares, whichever destination it goes to: the journal (each
step is written, and fsynced, before the next one is taken), the re-check, what processes
have open, progress and cancelling. The executor (:mod:`mlspace.act.executor`) makes one
:class:`Run` per cleanup and hands it to each destination."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mlspace.act import checks
from mlspace.act.journal import SKIPPED, Journal
from mlspace.act.outcomes import Outcome, Progress
from mlspace.advise import PlanItem

#: Called after each journaled step with (event, path): the app shows it; tests stop there.
OnStep = Callable[[str, str], None]
Cancel = Callable[[], bool]


@dataclass
class Run:
    """What every item of one run shares: its journal, what is busy, how progress goes."""

    roots: Sequence[str]
    journal: Journal
    cleanup_id: str
    busy: list[str]
    recent_seconds: float
    progress: Progress | None
    on_step: OnStep | None
    cancel: Cancel | None
    total: int  # bytes to copy and verify, or items when nothing is copied
    in_bytes: bool
    done: int = 0

    def step(self, event: str, path: str, **details: object) -> None:
        """Journal one step (on disk before this returns), then tell whoever watches."""
        self.journal.record(event, path, **details)
        if self.on_step is not None:
            self.on_step(event, path)

    def moved(self, count: int, path: str) -> None:
        self.done += count
        if self.progress is not None:
            self.progress(self.done, self.total, path)

    def skip(self, path: str, reason: str) -> Outcome:
        self.journal.record(SKIPPED, path, reason=reason)
        return Outcome(path, False, reason)

    def recheck(self, item: PlanItem) -> str | None:
        return checks.before_move(item, self.roots, self.busy, self.recent_seconds)
