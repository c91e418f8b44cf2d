"""What guarding a large workspace costs: CPU share and memory over a simulated day.

Builds a workspace of FILES small files (default 200,000; ``--files 1000000`` for the 1M
tree of the issue, which takes long to build on a small machine) spread over RUNS run
folders of Hugging Face style checkpoints, learns it once (the one scan), then times real
rounds of :func:`mlspace.guard.rounds.guard_round`: quiet rounds (no run wrote anything:
a few stats per run) and rounds after one run wrote a checkpoint (that run folder is
rescanned). A day is then 144 quiet rounds (a disk that is not filling is looked at every
10 minutes) plus CKPTS checkpoints per run, each costing one changed round; the CPU share
is that day's CPU time over 86,400 s. Memory: the peak of traced Python allocations over
300 rounds, first and last 100 compared (flat means nothing accumulates).

Run: python benchmarks/bench_guard_cost.py [--files N] [--runs R] [--ckpts C]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import tracemalloc
from pathlib import Path

from mlspace.guard.rounds import guard_round
from mlspace.guard.state import GuardState


def build(root: Path, files: int, runs: int) -> None:
    per_run = files // runs
    for r in range(runs):
        run = root / "outputs" / f"run-{r:04d}"
        ckpts = max(per_run // 50, 1)
        for c in range(ckpts):
            folder = run / f"checkpoint-{(c + 1) * 100}"
            folder.mkdir(parents=True)
            for f in range(min(50, per_run)):
                (folder / f"shard-{f:03d}.bin").write_bytes(b"x")


def cpu_of(fn) -> float:  # noqa: ANN001 - a round to time
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--ckpts", type=int, default=48, help="checkpoints per run per day")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as tmp:
        os.environ["XDG_STATE_HOME"] = os.environ["XDG_DATA_HOME"] = tmp + "/home"
        root = Path(tmp) / "ws"
        t = time.time()
        build(root, args.files, args.runs)
        print(f"built {args.files:,} files in {args.runs} runs ({time.time() - t:.0f} s)")
        state = GuardState()
        roots = [str(root)]
        learn = cpu_of(lambda: guard_round(roots, {}, state, warn=lambda *a: []))
        print(f"learning (the one scan) + first round: {learn:.2f} s CPU")
        quiet = [cpu_of(lambda: guard_round(roots, {}, state, warn=lambda *a: []))
                 for _ in range(20)]
        changed = []
        for n in range(10):
            run = root / "outputs" / f"run-{n:04d}" / f"checkpoint-{10 ** 6 + n}"
            run.mkdir()
            for f in range(50):
                (run / f"shard-{f:03d}.bin").write_bytes(b"x")
            changed.append(cpu_of(lambda: guard_round(roots, {}, state,
                                                      warn=lambda *a: [])))
        q, c = sorted(quiet)[len(quiet) // 2], sorted(changed)[len(changed) // 2]
        day = 144 * q + args.runs * args.ckpts * c
        print(f"quiet round: {q * 1000:.1f} ms CPU; round after a checkpoint: "
              f"{c * 1000:.1f} ms CPU")
        print(f"a day ({args.runs} runs x {args.ckpts} checkpoints): {day:.1f} s CPU = "
              f"{100 * day / 86400:.3f}% of one core")
        tracemalloc.start()
        peaks = []
        for n in range(300):
            guard_round(roots, {}, state, now=time.time() + n * 600, warn=lambda *a: [])
            peaks.append(tracemalloc.get_traced_memory()[0])
        tracemalloc.stop()
        first, last = max(peaks[:100]), max(peaks[-100:])
        print(f"memory held over 300 rounds (a simulated 50 h): first 100 rounds "
              f"{first / 1e6:.2f} MB, last 100 {last / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
