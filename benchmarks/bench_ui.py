"""Does the app's event loop stall while it scans a big tree? (issue 4)

    python benchmarks/bench_ui.py [--files 1000000] [--dir /tmp/mlspace-bench]

Opens the main window offscreen, scans the generated tree, and measures the gaps between
ticks of a 10 ms heartbeat timer from the moment the scan starts until the views show the
result. Prints the longest gap (the worst freeze a user could feel) and the 99th percentile.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from workspace import generate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--files", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/mlspace-bench"))
    args = parser.parse_args()
    root = generate(args.dir / f"tree-{args.files}", args.files)

    from PySide6.QtCore import QTimer

    from mlspace.ui.app import make_app
    from mlspace.ui.main_window import MainWindow

    app = make_app()
    window = MainWindow()
    window.show()
    ticks: list[float] = []
    heartbeat = QTimer(interval=10)
    heartbeat.timeout.connect(lambda: ticks.append(time.perf_counter()))
    done: dict[str, float] = {}

    def finished() -> None:
        done["at"] = time.perf_counter()
        QTimer.singleShot(200, app.quit)

    window.scan_finished.connect(finished)

    def start() -> None:
        done["start"] = time.perf_counter()
        heartbeat.start()
        window.open_paths([str(root)])

    QTimer.singleShot(100, start)
    app.exec()
    gaps = sorted(b - a for a, b in zip(ticks, ticks[1:], strict=False))
    worst = gaps[-1] * 1000 if gaps else float("nan")
    p99 = gaps[int(len(gaps) * 0.99)] * 1000 if gaps else float("nan")
    entries = len(window.ws.inventory.snapshot) if window.ws.inventory else 0
    print(f"tree: {root} ({entries:,} entries)")
    print(f"scan + classify + first paint: {done['at'] - done['start']:.2f} s")
    print(f"event loop: longest stall {worst:.0f} ms, 99th percentile gap {p99:.0f} ms "
          f"({len(ticks)} heartbeats of 10 ms)")


if __name__ == "__main__":
    main()
