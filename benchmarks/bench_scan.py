"""Scan speed and memory against du, ncdu and gdu on the same tree, as ratios (issues 2, 28).

    python benchmarks/bench_scan.py                      # 300k and 1M files, warm and cold
    python benchmarks/bench_scan.py --files 300000 --caches warm --runs 7
    python benchmarks/bench_scan.py --classify           # what classification adds
    python benchmarks/bench_scan.py --venv /tmp/v        # as installed: pip install ., not -e
    python benchmarks/bench_scan.py --files 300000 --memory   # peak memory per entry only

Every tool runs as a whole process, as a user would run it (start-up included), over one
generated tree (reused between runs under --dir): ``du -s``, ``ncdu -0 -o /dev/null``,
``gdu -n -p`` (each where installed) and ``mlspace scan`` with each walker
(``MLSPACE_WALKER=native`` and ``=python``). The tools take turns, round after round, in an
order that rotates, so each round compares them on the same machine state; the figure per
tool is the median over rounds of its time divided by du's time in the same round, with the
spread (lowest to highest round). Cold rounds drop the page cache (and the dentry and inode
caches) before every single run, which needs root.

Memory is each process's peak RSS (from wait4). For mlspace it is also given per entry over
the interpreter: (peak of the scan - peak of the same command on an empty folder) / entries.

Start-up is the time from exec to the walk's first getdents64 on the tree (strace, median of
runs), for the native walker. An editable install (``pip install -e``) adds its finder and
``.pth`` files to every start; ``--venv DIR`` measures mlspace as users install it: a venv
at DIR (made when missing) with this checkout pip-installed into it, not editable
(reinstalled each time, so it is the checkout's code), run from outside the checkout.

``--memory`` measures only the peak memory per entry of each walker (best of ``--runs``),
without the timed rounds: the figure to watch while changing the snapshot's columns.

The machine's load (1-minute average) is printed beside each figure: on a shared machine
timings are noisy, so compare the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workspace import generate  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
#: Where the tools run: with --venv, outside the checkout (``python -m`` puts the current
#: folder first on sys.path, which would import the checkout instead of the install).
RUN_DIR: str | None = None


@dataclass
class Tool:
    name: str
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)
    peak_kib: list[int] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)


def tools_for(root: Path, mlspace: list[str]) -> list[Tool]:
    """The tools found on this machine, du first (the yardstick)."""
    tree = str(root)
    found = [Tool("du -s", ["du", "-s", tree])]
    if shutil.which("ncdu"):
        found.append(Tool("ncdu -0 -o /dev/null", ["ncdu", "-0", "-o", "/dev/null", tree]))
    if shutil.which("gdu"):
        found.append(Tool("gdu -n -p", ["gdu", "-n", "-p", tree]))
    for walker in ("native", "python"):
        found.append(Tool(f"mlspace scan ({walker})", [*mlspace, "scan", tree],
                          {"MLSPACE_WALKER": walker}))
    return found


def drop_caches() -> None:
    subprocess.run(["sync"], check=True)
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def run_once(tool: Tool, cold: bool) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one whole run of ``tool``. The peak is measured by
    GNU time, a small process that forks the tool: a child forked from this Python process
    would count this process's pages as its own peak."""
    if cold:
        drop_caches()
    env = {**os.environ, **tool.env}
    with tempfile.NamedTemporaryFile("r") as peak:
        start = time.perf_counter()
        code = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak.name, *tool.command],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=env, cwd=RUN_DIR).returncode
        seconds = time.perf_counter() - start
        kib = int(peak.read().split()[-1])
    if code not in (0, 1):  # 1: mlspace finished with unreadable paths
        raise SystemExit(f"{tool.name} failed with exit code {code}")
    return seconds, kib


def rounds(tools: list[Tool], runs: int, cold: bool) -> None:
    """``runs`` rounds of every tool, in an order that rotates (after one warm-up round when
    the cache is to be warm)."""
    if not cold:
        for tool in tools:
            run_once(tool, cold=False)
    for index in range(runs):
        order = tools[index % len(tools):] + tools[:index % len(tools)]
        for tool in order:
            seconds, peak = run_once(tool, cold)
            tool.seconds.append(seconds)
            tool.peak_kib.append(peak)
            tool.loads.append(os.getloadavg()[0])


def empty_folder_peak(mlspace: list[str], walker: str) -> int:
    """Peak RSS (KiB) of ``mlspace scan`` of an empty folder: the interpreter and what the
    command imports, without any entry."""
    with tempfile.TemporaryDirectory() as empty:
        peaks = [run_once(Tool("empty", [*mlspace, "scan", empty], {"MLSPACE_WALKER": walker}),
                          cold=False)[1] for _ in range(3)]
    return min(peaks)


def startup_ms(mlspace: list[str], root: Path, runs: int) -> float | None:
    """Median milliseconds from exec to the first getdents64 on ``root`` (native walker),
    by strace's timestamps; None without strace."""
    if not shutil.which("strace"):
        return None
    times = []
    for _ in range(runs):
        with tempfile.NamedTemporaryFile("r", suffix=".strace") as trace:
            subprocess.run(["strace", "--seccomp-bpf", "-f", "-ttt", "-y", "-e",
                            "trace=execve,getdents64",
                            "-o", trace.name, *mlspace, "scan", str(root)],
                           env={**os.environ, "MLSPACE_WALKER": "native"}, cwd=RUN_DIR,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            text = trace.read()
        start = re.search(r"^\d+ +(\d+\.\d+) execve\(", text, re.M)
        first = re.search(rf"^\d+ +(\d+\.\d+) getdents64\(\d+<{re.escape(str(root))}>", text,
                          re.M)
        if start and first:
            times.append((float(first.group(1)) - float(start.group(1))) * 1000)
    return statistics.median(times) if times else None


def entries_of(mlspace: list[str], root: Path) -> tuple[int, int]:
    """(entries, bytes on disk) of the tree, as mlspace counts them; checked against du."""
    code = ("import json, sys; from mlspace.scan import scan; s = scan([sys.argv[1]]); "
            "print(json.dumps([len(s), s.grand_totals().disk_usage]))")
    out = subprocess.run([mlspace[0], "-c", code, str(root)], capture_output=True,
                         text=True, check=True, cwd=RUN_DIR)
    entries, disk = json.loads(out.stdout)
    return entries, disk


def report(tools: list[Tool], entries: int, empty_kib: dict[str, int], label: str) -> None:
    du = tools[0]
    print(f"\n{label}")
    print(f"{'tool':28} {'median s':>9} {'ratio to du':>12} {'spread':>13} {'peak RSS':>10} "
          f"{'B/entry':>8} {'load':>10}")
    for tool in tools:
        ratios = [s / d for s, d in zip(tool.seconds, du.seconds, strict=True)]
        peak = statistics.median(tool.peak_kib)
        per_entry = ""
        walker = tool.env.get("MLSPACE_WALKER")
        if walker:
            per_entry = f"{(peak - empty_kib[walker]) * 1024 / entries:.1f}"
        loads = f"{min(tool.loads):.1f}-{max(tool.loads):.1f}"
        print(f"{tool.name:28} {statistics.median(tool.seconds):9.3f} "
              f"{statistics.median(ratios):11.2f}x {min(ratios):6.2f}-{max(ratios):.2f}x "
              f"{peak / 1024:8.0f} MB {per_entry:>8} {loads:>10}")


def installed(venv: Path) -> list[str]:
    """The command line of mlspace pip-installed (not editable) from this checkout into the
    venv at ``venv``, made when missing; reinstalled without its dependencies otherwise."""
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", str(REPO)], check=True)
    else:
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps",
                        "--force-reinstall", str(REPO)], check=True)
    return [str(python), "-m", "mlspace"]


def memory(root: Path, mlspace: list[str], entries: int, empty_kib: dict[str, int],
           runs: int) -> None:
    """Each walker's peak RSS per entry over the interpreter, best of ``runs``."""
    for walker in ("native", "python"):
        tool = Tool(f"mlspace scan ({walker})", [*mlspace, "scan", str(root)],
                    {"MLSPACE_WALKER": walker})
        peak = min(run_once(tool, cold=False)[1] for _ in range(runs))
        print(f"{tool.name:28} peak {peak / 1024:6.1f} MB, "
              f"{(peak - empty_kib[walker]) * 1024 / entries:.1f} B/entry over the interpreter "
              f"(load {os.getloadavg()[0]:.1f})")


def classification(root: Path, runs: int, python: str) -> None:
    """What classifying adds to a scan, as the CLI classifies (while the walk runs, then the
    rest of the inventory), against a plain scan, run by run in one process each."""
    code = r"""
import json, sys, time
import numpy as np
from mlspace.classify import EntryClassifier, classify, load_rules
from mlspace.scan import scan
rules = load_rules().compile()
same = None
if sys.argv[2] == "1":
    classifier = EntryClassifier(rules)
    t0 = time.perf_counter()
    snap = scan([sys.argv[1]], on_listing=classifier.add)
    during = classify(snap, during_scan=classifier)
    seconds = time.perf_counter() - t0
    after = classify(snap, rules)  # untimed: the honest check that both ways agree
    same = bool(np.array_equal(during.categories, after.categories)
                and during.artifacts == after.artifacts and during.series == after.series)
else:
    t0 = time.perf_counter()
    snap = scan([sys.argv[1]])
    seconds = time.perf_counter() - t0
print(json.dumps([seconds, same]))
"""
    added, agree = [], []
    for _ in range(runs):
        (plain, _), (classified, same) = (
            json.loads(subprocess.run([python, "-c", code, str(root), flag], cwd=RUN_DIR,
                                      capture_output=True, text=True, check=True).stdout)
            for flag in ("0", "1"))
        added.append(classified / plain - 1)
        agree.append(same)
    low, high = _median_interval(added)
    print(f"classification adds {100 * statistics.median(added):+.1f}% to the scan (default "
          f"walker; median of {runs} paired runs, 95% interval {100 * low:+.1f}% to "
          f"{100 * high:+.1f}%; load {os.getloadavg()[0]:.1f}); classified during the scan "
          f"= classified after it: {all(agree)}")


def _median_interval(values: list[float], resamples: int = 4000) -> tuple[float, float]:
    """A 95% bootstrap interval for the median of ``values``: on a noisy machine single
    runs differ by tens of percent, so the median alone says too little."""
    rng = random.Random(0)
    medians = sorted(statistics.median(rng.choices(values, k=len(values)))
                     for _ in range(resamples))
    return medians[int(0.025 * resamples)], medians[int(0.975 * resamples) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--files", type=int, nargs="+", default=[300_000, 1_000_000])
    parser.add_argument("--caches", choices=("warm", "cold", "both"), default="both")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/mlspace-bench"))
    parser.add_argument("--runs", type=int, default=5, help="rounds per tree and cache state")
    parser.add_argument("--classify", action="store_true",
                        help="also measure what classification adds")
    parser.add_argument("--venv", type=Path, help="measure mlspace pip-installed (not "
                        "editable) into the venv at VENV (made when missing)")
    parser.add_argument("--memory", action="store_true",
                        help="only each walker's peak memory per entry")
    args = parser.parse_args()
    global RUN_DIR
    mlspace = [sys.executable, "-m", "mlspace"]
    if args.venv:
        mlspace, RUN_DIR = installed(args.venv), tempfile.gettempdir()
    cold_states = {"warm": [False], "cold": [True], "both": [False, True]}[args.caches]
    if not Path("/usr/bin/time").exists():
        raise SystemExit("needs GNU time at /usr/bin/time for peak memory (apt-get install time)")
    if True in cold_states and os.geteuid() != 0 and not args.memory:
        raise SystemExit("cold runs drop the page cache, which needs root (or --caches warm)")
    print(f"machine: {platform.node()}, {platform.machine()}, {os.cpu_count()} CPUs, "
          f"{platform.platform()}, Python {platform.python_version()}")
    print(f"load at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    empty_kib = {w: empty_folder_peak(mlspace, w) for w in ("native", "python")}
    print(f"interpreter (mlspace scan of an empty folder): native {empty_kib['native'] / 1024:.0f}"
          f" MB, python {empty_kib['python'] / 1024:.0f} MB peak RSS")
    for files in args.files:
        root = generate(args.dir / f"tree-{files}", files)
        entries, disk = entries_of(mlspace, root)
        du_disk = int(subprocess.run(["du", "-s", "-B1", str(root)], capture_output=True,
                                     text=True, check=True).stdout.split()[0])
        print(f"\ntree {root}: {entries:,} entries; mlspace total equals du -s -B1: "
              f"{disk == du_disk}")
        if args.memory:
            memory(root, mlspace, entries, empty_kib, args.runs)
            continue
        started = startup_ms(mlspace, root, 5)
        if started is not None:
            print(f"start-up: {started:.0f} ms from exec to the first getdents64 on the tree "
                  "(native walker, under strace, median of 5)")
        for cold in cold_states:
            tools = tools_for(root, mlspace)
            random.Random(files).shuffle(tools[1:])
            rounds(tools, args.runs, cold)
            report(tools, entries, empty_kib,
                   f"{files:,} files, {'cold' if cold else 'warm'} cache, {args.runs} rounds")
        if args.classify:
            classification(root, args.runs, mlspace[0])
    print(f"\nload at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
