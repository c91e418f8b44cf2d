"""The policy-run log: one line per unattended run, so the app can say on its next start
what ran while it was closed.

An unattended run (``apply-policy``, the guard) appends its summary to one JSON-lines file
in mlspace's data dir, also when it moved nothing; its cleanup, if it moved anything, has a
journal of its own (:mod:`mlspace.act.journal`). Reading takes the newest end of the file
only, and leaves out lines a crash cut short or that are no run record.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from mlspace import trust
from mlspace.act.fields import count, fault, number, text_or_none, texts
from mlspace.config import data_dir
from mlspace.safe_read import NOT_THERE, Unreadable


def policy_runs_file() -> Path:
    return data_dir() / "policy-runs.jsonl"


def record_policy_run(summary: dict) -> None:
    """Append one unattended run's summary (also runs that moved nothing), so the app can
    say on its next start what ran while it was closed. Best effort: a run is not failed
    because its summary could not be written (its journal, if it moved anything, was)."""
    path = policy_runs_file()
    with contextlib.suppress(OSError):
        trust.make_folders(path.parent)
        with open(path, "a", encoding="utf-8", errors="surrogateescape",
                  opener=trust.private_opener) as f:
            f.write(json.dumps(summary) + "\n")
            f.flush()
            os.fsync(f.fileno())


#: How much of the end of the policy-run log is read: its newest runs, thousands of them.
POLICY_RUNS_READ = 8 << 20
_RUN = {"time": number, "exit_code": lambda v: type(v) is int, "freed": count,
        "moved_items": count, "skipped_items": count, "held_items": count,
        "roots": texts, "cleanup_id": text_or_none, "policy": text_or_none,
        "report": text_or_none, "stopped": text_or_none, "host": text_or_none,
        "dry_run": lambda v: type(v) is bool}


def policy_runs() -> list[dict]:
    """Every recorded policy run that can be read, newest first (see
    :func:`read_policy_runs`)."""
    return read_policy_runs()[0]


def read_policy_runs() -> tuple[list[dict], list[str]]:
    """The recorded policy runs, newest first, and what could not be used. The log is read
    through the bounded reader from a folder that passes the ownership rule, its last
    POLICY_RUNS_READ bytes only; a line cut short by a crash is skipped silently, and lines
    that are not a run record are counted in the message naming the file."""
    path = policy_runs_file()
    try:
        data = trust.store(path.parent).read_end(path.name, POLICY_RUNS_READ)
    except Unreadable as err:
        if str(err) == NOT_THERE:
            return [], []
        return [], [f"the policy-run log is not read: {trust.reason(path, err)}"]
    lines = data.decode("utf-8", "surrogateescape").splitlines()
    if len(data) == POLICY_RUNS_READ and lines:
        lines = lines[1:]  # the first may begin before what was read
    runs, bad = [], 0
    for line in lines:
        try:
            run = json.loads(line)
        except (ValueError, RecursionError):
            continue  # a line cut short by a crash
        if fault(run, _RUN, ("time",), "a run") is None:
            runs.append(run)
        else:
            bad += 1
    problems = [f"skipped {bad} line{'s' if bad > 1 else ''} of {path} that "
                f"{'are' if bad > 1 else 'is'} no policy run"] if bad else []
    return sorted(runs, key=lambda r: -float(r["time"])), problems
