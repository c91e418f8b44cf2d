"""What ``mlspace scan`` imports before its walk starts: start-up is the time from exec to
the walk's first listing (issue 28's goal is 80 ms), and a heavy module imported on the way
costs tens of milliseconds. numpy and the snapshot's classes load while the native walker's
threads already walk; the app, pyarrow, the classifier, the advice, the actions and the
config files' reader are not for the walk at all. Timing is for the benchmark
(benchmarks/bench_scan.py); this guards what decides it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from trees import write

from mlspace.scan.native import ENV, native_problem

pytestmark = pytest.mark.skipif(native_problem() is not None, reason=native_problem() or "")

#: Modules that must not be loaded when the walk's threads start.
HEAVY = ("numpy", "pyarrow", "PySide6", "mlspace.classify", "mlspace.advise", "mlspace.act",
         "mlspace.config", "mlspace.cli.app", "mlspace.scan.snapshot")

_START_CHILD = r"""
import sys
from mlspace.scan import _walker

Walk = _walker.Walk
HEAVY = sys.argv[2].split(",")


class Watched:
    "The native walk, noting what was loaded when its threads started."
    def __init__(self, *args):
        self.walk = Walk(*args)
    def start(self):
        loaded = [m for m in HEAVY if m in sys.modules]
        print("numpy loaded at the walk's start:", "numpy" in sys.modules, file=sys.stderr)
        print("heavy modules at the walk's start:", ",".join(loaded) or "none",
              file=sys.stderr)
        return self.walk.start()
    def __getattr__(self, name):
        return getattr(self.walk, name)

_walker.Walk = Watched
from mlspace.cli import main
sys.exit(main(["scan", sys.argv[1]]))
"""


def test_the_command_starts_walking_before_numpy_loads(tmp_path: Path) -> None:
    """numpy, pyarrow, Qt, the classifier and the rest of HEAVY load (if at all) after the
    native walk has started."""
    write(tmp_path / "ws" / "f", 10)
    out = subprocess.run([sys.executable, "-c", _START_CHILD, str(tmp_path / "ws"),
                          ",".join(HEAVY)],
                         capture_output=True, text=True, env={**os.environ, ENV: "native"})
    assert out.returncode == 0, out.stderr
    assert "numpy loaded at the walk's start: False" in out.stderr
    assert "heavy modules at the walk's start: none" in out.stderr


def test_only_the_invoked_command_parser_is_built() -> None:
    """main() builds the parser of the command it runs, not all fifteen (each costs
    start-up, and some builders import what their help texts name)."""
    from mlspace.cli.parser import COMMANDS, build_parser

    only = build_parser("scan")
    assert list(only.parse_args(["scan", "x"]).command_parsers) == ["scan"]
    assert set(build_parser().parse_args(["scan", "x"]).command_parsers) == set(COMMANDS)
