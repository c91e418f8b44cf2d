"""Does the app's event loop stall on a big tree? (issues 4 and 14)

    python benchmarks/bench_ui.py [--files 1000000] [--dir /tmp/mlspace-bench] [--tab Runs]

Opens the main window offscreen and runs what a user does, one step after another: scan the
generated tree and show the result, filter by a category, filter by a name, clear the
filter, filter by an owner, compare with the scan kept in the history (Growth tab), colour
the treemap by growth, clean up the biggest suggestion (confirmed automatically) and undo
it (with the change since the compared scan following). A 10 ms
heartbeat timer runs throughout; for each step the longest gap between its ticks is the
worst freeze a user could feel during that step. Target: at most 50 ms each.

The cleanup moves real files of the benchmark tree to a trash in a private data folder
(XDG_DATA_HOME is pointed at a temporary folder) and the undo puts them back.

A step that waits for a signal (the scan shown, the comparison, the cleanup and the undo
shown) fails loudly when it does not come within ``--timeout`` seconds: it names the step,
the signal and what the window was still doing, and the benchmark exits 1 instead of
waiting for ever.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from workspace import generate  # noqa: E402

#: How long after a step's own work the loop is still watched (repaints, queued signals).
SETTLE = 0.5
#: How long a step may wait for its signal by default, in seconds: a 1M-entry scan takes
#: about 10 s here, so ten times that is a hang, not a slow machine.
TIMEOUT = 120.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--files", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/mlspace-bench"))
    parser.add_argument("--tab", default="Treemap",
                        choices=("Treemap", "Suggestions", "Runs", "Growth"),
                        help="the tab in front while the steps run (each redraws when shown)")
    parser.add_argument("--profile", action="store_true",
                        help="print where the GUI thread spent each step's time (cProfile)")
    parser.add_argument("--timeout", type=float, default=TIMEOUT,
                        help="seconds a step may wait for its signal before the benchmark "
                        "fails (default %(default)s)")
    args = parser.parse_args()
    root = generate(args.dir / f"tree-{args.files}", args.files)
    private = tempfile.mkdtemp(prefix="mlspace-bench-ui-", dir=args.dir)
    os.environ["XDG_DATA_HOME"] = os.path.join(private, "data")
    os.environ["XDG_CONFIG_HOME"] = os.path.join(private, "config")
    os.environ["XDG_STATE_HOME"] = os.path.join(private, "state")

    from PySide6.QtCore import QTimer

    from mlspace.classify import Category
    from mlspace.filtering import FilterSpec
    from mlspace.ui import main_window as main_window_module
    from mlspace.ui.app import make_app
    from mlspace.ui.main_window import MainWindow

    app = make_app()
    window = MainWindow()
    window.resize(1280, 820)
    window.show()
    window.tabs.setCurrentIndex([window.tabs.tabText(i) for i in range(window.tabs.count())]
                                .index(args.tab))
    # Confirm the cleanup without a person at the dialog.
    main_window_module.ConfirmCleanup.exec = lambda self: self.DialogCode.Accepted  # type: ignore[method-assign]
    ticks: list[float] = []
    heartbeat = QTimer(interval=10)
    heartbeat.timeout.connect(lambda: ticks.append(time.perf_counter()))
    steps: list[tuple[str, float, float]] = []  # name, start, end

    def biggest_suggestion() -> list:
        plan = window.ws.plan
        return [max(plan.suggestions, key=lambda s: s.bytes)] if plan and plan.suggestions \
            else []

    failures: list[str] = []

    def fail(message: str) -> None:
        """A step that never ends: say which and what the window was doing, and stop."""
        failures.append(message)
        print(f"FAILED: {message}", file=sys.stderr, flush=True)
        app.exit(1)

    def still_doing() -> str:
        return (f"scan running: {window.scanner.running}, cleanup running: "
                f"{window.cleaner.running}, redraws pending: {window.ws.redraws.pending}, "
                f"status: {window.status.text()!r}")

    watchdogs: list[QTimer] = []  # each step's, alive until it fires or is stopped

    def run_steps(todo: list[tuple[str, Callable[[], None], object | None]]) -> None:
        """Run each step; one with a signal waits for it (at most --timeout seconds), the
        rest return when done."""
        if not todo:
            QTimer.singleShot(int(SETTLE * 1000), app.quit)
            return
        name, action, signal = todo[0]
        start = time.perf_counter()
        profiler = cProfile.Profile() if args.profile else None
        if profiler is not None:
            profiler.enable()
        watchdog = QTimer(singleShot=True, interval=int(args.timeout * 1000))

        def settled() -> None:
            if profiler is not None:
                profiler.disable()
                print(f"--- {name}")
                pstats.Stats(profiler).sort_stats("cumulative").print_stats(r"mlspace", 15)
            run_steps(todo[1:])

        def done(*_: object) -> None:
            watchdog.stop()
            if signal is not None:
                signal.disconnect(done)  # type: ignore[attr-defined]
            steps.append((name, start, time.perf_counter()))
            QTimer.singleShot(int(SETTLE * 1000), settled)

        def timed_out() -> None:
            signal.disconnect(done)  # type: ignore[union-attr]
            fail(f"step {name!r}: its signal never came within {args.timeout:g} s "
                 f"({still_doing()})")

        if signal is not None:
            signal.connect(done)  # type: ignore[attr-defined]
            watchdog.timeout.connect(timed_out)
            watchdog.start()
            watchdogs.append(watchdog)
        action()
        if signal is None:
            done()

    plan_sizes: dict[str, int] = {}

    def clean() -> None:
        chosen = biggest_suggestion()
        plan_sizes["items"] = sum(len(s.items) for s in chosen)
        window.confirm_and_clean(chosen)

    def undo() -> None:
        """Undo the cleanup, which must have moved something: a cleanup that moved nothing
        (every item written in the last 10 minutes, say) leaves nothing to undo, and the
        step would measure nothing."""
        from mlspace.act import last_undoable

        if last_undoable() is None:
            fail(f"the cleanup moved nothing, so there is nothing to undo: "
                 f"{window.status.text()!r} {window.status.toolTip()[:300]!r}")
            return
        window.undo_last_cleanup()

    def compare() -> None:
        """Compare with the scan just kept in the history (its footer is read meanwhile)."""
        growth = window.growth
        deadline = time.monotonic() + args.timeout
        while not growth.points:
            if time.monotonic() > deadline:
                fail(f"the Growth tab listed no saved scan within {args.timeout:g} s "
                     f"({still_doing()})")
                return
            app.processEvents()
        growth.compare(growth.points[-1])

    todo = [
        ("scan and show the result", lambda: window.open_paths([str(root)]),
         window.scan_finished),
        ("filter: the Checkpoints bar", lambda: window.ws.toggle_category(Category.CHECKPOINT),
         None),
        ("filter: a file name", lambda: window.ws.set_filter(FilterSpec(text="optimizer")),
         None),
        ("clear the filter", window.clear_filters, None),
        ("filter: an owner", lambda: window.ws.toggle_owner(
            window.ws.chart_owners()[0][0]), None),
        ("clear the filter", window.clear_filters, None),
        ("Growth: compare with a saved scan", compare, window.ws.compare_changed),
        ("treemap: colour by growth", lambda: window.treemap.by_growth.setChecked(True),
         None),
        ("clean up the biggest suggestion", clean, window.cleanup_finished),
        ("undo it", undo, window.cleanup_finished),
    ]

    def start() -> None:
        heartbeat.start()
        run_steps(todo)

    QTimer.singleShot(100, start)
    app.exec()
    shutil.rmtree(private, ignore_errors=True)  # the history and trash of this run
    entries = len(window.ws.inventory.snapshot) if window.ws.inventory else 0
    print(f"tree: {root} ({entries:,} entries); cleaned {plan_sizes.get('items', 0)} items")
    print(f"{'step':34} {'took':>8} {'longest stall':>14} {'p99 gap':>8}")
    for name, start, end in steps:
        inside = [t for t in ticks if start <= t <= end + SETTLE]
        gaps = sorted(b - a for a, b in zip(inside, inside[1:], strict=False))
        # The gap that spans the step's start counts too: a synchronous step blocks there.
        before = [t for t in ticks if t < start]
        if before and inside:
            gaps.append(inside[0] - before[-1])
            gaps.sort()
        worst = gaps[-1] * 1000 if gaps else float("nan")
        p99 = gaps[int(len(gaps) * 0.99)] * 1000 if gaps else float("nan")
        print(f"{name:34} {end - start:7.2f}s {worst:11.0f} ms {p99:6.0f} ms")
    if failures:
        print(f"FAILED: {failures[0]}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
