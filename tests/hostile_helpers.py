"""Shared by the hostile tests: run the CLI so that a hang or a runaway read fails the test
instead of stopping the suite, and answer in-process calls within a deadline."""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

from cli_runner import run_mlspace

from mlspace.classify.readers.records import TrainerState

#: Far more than any command on these small trees needs (about a second each).
CLI_TIMEOUT = 60.0
#: Address space a CLI run may take: a read of /dev/zero hits this within a second or two
#: instead of taking the machine's memory.
CLI_MEMORY = 4 * 2**30


def _limit_memory() -> None:
    """In the child, before exec: cap the address space (a runaway read fails fast)."""
    resource.setrlimit(resource.RLIMIT_AS, (CLI_MEMORY, CLI_MEMORY))


def mlspace_cli(*args: str, timeout: float = CLI_TIMEOUT) -> subprocess.CompletedProcess[str]:
    """``mlspace ARGS`` in a subprocess with a deadline and a memory cap; a command that
    does not return in time fails the test (subprocess kills it)."""
    return run_mlspace(*args, timeout=timeout, memory=CLI_MEMORY)


def python_cli(code: str, *args: str, timeout: float = CLI_TIMEOUT
               ) -> subprocess.CompletedProcess[str]:
    """``python -c CODE ARGS`` with the same deadline and memory cap: for in-process calls
    that, broken, would read without end (a runaway read must not take the test runner's
    memory)."""
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=timeout, preexec_fn=_limit_memory)


def assert_clean_run(result: subprocess.CompletedProcess[str], code: int = 0) -> None:
    """A normal run: the expected exit code and no Python traceback."""
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == code, result.stdout + result.stderr


def answers_quickly(fn: Callable[..., Any], *args: Any, seconds: float = 20.0) -> Any:
    """``fn(*args)`` in a daemon thread: a call that blocks fails the test instead of
    hanging it (the thread is left behind, blocked, until the test process ends)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as err:  # noqa: BLE001 - handed back to the test
            box["error"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{getattr(fn, '__name__', fn)} did not return"
    if "error" in box:
        raise box["error"]
    return box["value"]


def suggested_paths(plan: Any) -> set[str]:
    return {p for s in plan.suggestions for p in s.paths}


def touches(paths: set[str], target: str) -> bool:
    """True if removing ``paths`` would remove ``target`` or anything inside it."""
    return any(p == target or target.startswith(p + "/") or p.startswith(target + "/")
               for p in paths)


def finite(value: object) -> bool:
    """None, or a number (not a bool) that is a finite float (a 400-digit int is not)."""
    if value is None:
        return True
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def sane_record(state: TrainerState) -> None:
    """What a reader hands on: finite numbers of the right type, or nothing."""
    assert state.global_step is None or type(state.global_step) is int
    assert finite(state.global_step) and finite(state.epoch) and finite(state.best_metric)
    assert state.best_checkpoint is None or isinstance(state.best_checkpoint, str)
    for step, metrics in state.evals_by_step.items():
        assert type(step) is int and finite(step)
        assert all(isinstance(k, str) and type(v) is float and finite(v) for k, v in metrics)
    assert all(type(v) is float and finite(v) for _, v in state.eval_metrics)
    assert all(type(s) is int and finite(s) and finite(e)
               for s, e in state.epochs_by_step.items())


#: A uid no user of the test machine has: the neighbour on a shared machine.
NEIGHBOUR = 65533


def as_user(uid: int, work: Callable[[], Any]) -> Any:
    """``work()`` in a forked child that is ``uid`` (and gid), as another user on the same
    machine would run it; returns what it returned (as JSON). Needs root."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 0
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            payload = json.dumps(work()).encode()
        except BaseException as err:  # noqa: BLE001 - reported to the parent
            payload, code = json.dumps({"error": repr(err)}).encode(), 1
        with os.fdopen(write_end, "wb") as out:
            out.write(payload)
        os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        payload = pipe.read()
    os.waitpid(pid, 0)
    result = json.loads(payload)
    assert not (isinstance(result, dict) and "error" in result), result
    return result
