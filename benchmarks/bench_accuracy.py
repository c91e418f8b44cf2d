"""How often mlspace puts a file in the category an ML engineer gives it (issue 13), judged
the way a disk tool is: by files and by bytes.

    python benchmarks/bench_accuracy.py [--dir /tmp/mlspace-accuracy] [--wrong]

Builds every labelled workspace of tests/layouts.py (LABELLED: the tools' own layouts, real
file names and records, weights and data at real sizes as sparse files), scans and classifies
each, and prints per workspace the accuracy by files and by bytes (each file's length), then
over all of them per-category precision, recall and F1, by files and by bytes. With --wrong it
also lists every misplaced file.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from layouts import LABELLED, Verdict, accuracy, score  # noqa: E402

from mlspace.classify import ORDER  # noqa: E402


def f1_table(verdicts: list[Verdict], weight: Callable[[Verdict], int]) -> list[tuple]:
    """(category, support, precision, recall, F1) per category, ``weight`` counting each file
    (1 for files, its size for bytes)."""
    rows = []
    for category in (c.id for c in ORDER):
        truth = sum(weight(v) for v in verdicts if v.expected == category)
        said = sum(weight(v) for v in verdicts if v.got == category)
        right = sum(weight(v) for v in verdicts if v.expected == category == v.got)
        if not truth and not said:
            continue
        precision = right / said if said else 0.0
        recall = right / truth if truth else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        rows.append((category, truth, precision, recall, f1))
    return rows


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"  # pragma: no cover


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--dir", type=Path, default=None,
                        help="where to build (default: a temp dir)")
    parser.add_argument("--wrong", action="store_true", help="list every misplaced file")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="mlspace-accuracy-", dir=args.dir))
    everything: list[Verdict] = []
    try:
        print(f"{'workspace':40} {'files':>6} {'by files':>9} {'by bytes':>9}")
        for index, build in enumerate(LABELLED):
            layout = build()
            # A neutral root: a scan root is judged by its name too ("debug", "processed").
            verdicts = score(layout, base / f"ws{index:02d}")
            everything += verdicts
            print(f"{layout.name:40} {len(verdicts):6d} {100 * accuracy(verdicts):8.1f}% "
                  f"{100 * accuracy(verdicts, by_bytes=True):8.1f}%")
            if args.wrong:
                for v in verdicts:
                    if v.expected != v.got:
                        print(f"    {v.path}: {v.got}, should be {v.expected} ({_size(v.size)})")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"{'all':40} {len(everything):6d} {100 * accuracy(everything):8.1f}% "
          f"{100 * accuracy(everything, by_bytes=True):8.1f}%")
    for title, weight, show in (("by files", lambda v: 1, str),
                                ("by bytes", lambda v: v.size, _size)):
        print(f"\nper category, {title}:")
        print(f"  {'category':12} {'support':>10} {'precision':>10} {'recall':>8} {'F1':>6}")
        for category, support, precision, recall, f1 in f1_table(everything, weight):
            print(f"  {category:12} {show(support):>10} {precision:10.3f} {recall:8.3f} {f1:6.3f}")


if __name__ == "__main__":
    main()
