"""What a command says and asks on the terminal while it works: a scan's progress, a long
copy's bytes and time left (Ctrl-C cancels it), and the y/N question before anything moves.
Progress is drawn on a terminal only, so logs and pipes get the results alone."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import time
from collections.abc import Iterator

from mlspace import fmt
from mlspace.cli.exits import UsageError
from mlspace.scan import ScanProgress


def print_scan_progress(p: ScanProgress) -> None:
    """One line, redrawn in place: files, rate, bytes and the folder being read."""
    where = p.current_dir if len(p.current_dir) < 50 else "…" + p.current_dir[-49:]
    rate = fmt.count(round(p.files / p.elapsed)) if p.elapsed > 0 else "0"
    busy = f", {p.busy} busy" if p.busy else ""
    sys.stderr.write(f"\r\033[K{fmt.count(p.files)} files ({rate}/s{busy}), "
                     f"{fmt.size(p.bytes)}  {where}")
    sys.stderr.flush()


class CopyMeter:
    """Bytes, rate and time left on stderr (a terminal only); Ctrl-C asks to cancel."""

    def __init__(self) -> None:
        self.show = sys.stderr.isatty()
        self.started = time.monotonic()
        self.cancelled = False

    def __call__(self, done: int, total: int, path: str) -> None:
        if not self.show or not path:
            return
        from mlspace.act.tier import progress_words

        name = path if len(path) < 50 else "…" + path[-49:]
        words = progress_words(done, total, time.monotonic() - self.started)
        sys.stderr.write(f"\r\033[K{words}  {name}")
        sys.stderr.flush()

    def cancel(self) -> bool:
        return self.cancelled

    @contextlib.contextmanager
    def catching_ctrl_c(self) -> Iterator[None]:
        """The first Ctrl-C cancels the item being copied (it is rolled back) and stops the
        run; a second one interrupts at once (the journal settles it later)."""
        def first(signum: int, frame: object) -> None:
            self.cancelled = True
            sys.stderr.write("\nmlspace: cancelling: the item being copied is rolled back "
                             "(Ctrl-C again to stop at once)\n")
            signal.signal(signal.SIGINT, signal.default_int_handler)

        previous = signal.signal(signal.SIGINT, first)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)
            if self.show:
                sys.stderr.write("\r\033[K")


def confirm(question: str, args: argparse.Namespace) -> bool:
    """Yes when --yes was given or the user answers y. Without a terminal to ask on it is a
    usage error, so a script never hangs on a question nobody sees."""
    if args.yes:
        return True
    if not sys.stdin.isatty():
        raise UsageError("not a terminal: pass --yes to confirm, or --dry-run")
    return input(f"\n{question} [y/N] ").strip().lower() in ("y", "yes")


def go_ahead(question: str, args: argparse.Namespace) -> bool:
    """Whether to move what was just shown: not on --dry-run, nor when the user says no;
    either way it says that nothing was moved."""
    if args.dry_run:
        print("\nDry run: nothing was moved.")
        return False
    if not confirm(question, args):
        print("Nothing was moved.")
        return False
    return True
