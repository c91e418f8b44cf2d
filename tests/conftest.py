"""Shared fixtures: every test runs offscreen and with its own config, data and trash dirs.

In CI (the ``CI`` variable set, as ``.ci/run`` and most CI services set it) a skipped test
fails the run unless its reason is on ``CI_ALLOWED_SKIPS``: a missing tool or a refused mount
is lost coverage, and must not pass for green. Hypothesis runs derandomized there, so a
failure found in CI is found again by the same command.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# Where PYTHONDONTWRITEBYTECODE is set (this CI image sets it), pytest would rewrite the
# asserts of every test module again in every worker on every run, about 8 s of each
# worker's start; let it keep the rewritten modules in __pycache__ as it does by default.
sys.dont_write_bytecode = False
sys.path.insert(0, str(Path(__file__).resolve().parent))
# The GUI's helpers (gui_helpers), also used by hostile tests that open the window: importable
# whichever folder of tests a run starts from.
sys.path.insert(1, str(Path(__file__).resolve().parent / "gui"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from cleanup_helpers import cold, disk  # noqa: E402, F401 - tmpfs fixtures, registered here

IN_CI = bool(os.environ.get("CI"))


def pytest_configure(config: pytest.Config) -> None:
    """Compile mlspace's modules to bytecode once, before the workers start. The tests run
    the CLI as a program about 300 times; where PYTHONDONTWRITEBYTECODE is set (this CI
    image sets it) and the package is installed editable, no ``.pyc`` is ever written, and
    each of those programs compiled all its modules from source again: about 0.3 s each.
    Python reads bytecode that exists whatever that variable says."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        import compileall

        compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "mlspace"),
                               quiet=1)

# The only skips a CI run accepts: a substring of the skip's reason -> why CI cannot run it.
CI_ALLOWED_SKIPS = {
    "torch and lightning are not installed":
        "reading checkpoints that real Lightning wrote needs torch (about 1 GB); CI does not "
        "install it, and the corpus of Lightning's files covers the format",
    "folders here are not 4096 bytes":
        "gdu counts 4096 bytes per folder; where CI's temporary folder sits on a filesystem "
        "with other folder sizes (tmpfs, btrfs), gdu's totals differ from du's by design",
}


def _skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def _fail_unexpected_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    """In CI, turn a skip whose reason is not on the allowlist into a failure that says so."""
    if not (IN_CI and report.skipped) or hasattr(report, "wasxfail"):
        return
    reason = _skip_reason(report)
    if not any(allowed in reason for allowed in CI_ALLOWED_SKIPS):
        report.outcome = "failed"
        report.longrepr = (f"skipped in CI, and not on CI_ALLOWED_SKIPS in tests/conftest.py: "
                           f"{reason}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> object:
    outcome = yield
    _fail_unexpected_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> object:
    outcome = yield
    _fail_unexpected_skip(outcome.get_result())


def pytest_report_header(config: pytest.Config) -> list[str]:
    if not IN_CI:
        return []
    return ["CI: a skip fails the run unless on CI_ALLOWED_SKIPS in tests/conftest.py:",
            *(f"  allowed: {reason!r}: {why}" for reason, why in CI_ALLOWED_SKIPS.items()),
            "CI: hypothesis profile 'ci': derandomize=True (each test's seed is fixed by its "
            "source), no example database, print_blob=True (a failure prints its "
            "@reproduce_failure line)"]


if IN_CI:
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
    settings.load_profile("ci")


@pytest.fixture(autouse=True)
def isolated_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point HOME and the XDG dirs at a fresh folder, so no test reads or writes the real
    user's config, journal or trash."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                     ("XDG_CACHE_HOME", ".cache"), ("XDG_STATE_HOME", ".local/state")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(var, str(home / sub))
    return home


@pytest.fixture
def tiny_walk_budgets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut every walk after a handful of entries, so even a small tree is scanned in many
    chunks, merged in whatever order the workers finish them, and handed on to a listing
    consumer a few at a time."""
    from mlspace.scan import scanner

    monkeypatch.setattr(scanner, "IN_PROCESS_BUDGET", 3)
    monkeypatch.setattr(scanner, "WORKER_BUDGET", 4)
    monkeypatch.setattr(scanner, "LISTING_ENTRIES", 5)
