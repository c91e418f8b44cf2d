"""A process that has imported mlspace once and forks a fresh ``python -m mlspace`` from itself
for each command a test runs (tests/cli_runner.py starts one per test process).

Why: the suite runs the command line some 400 times, and each real start-up spends about
0.35 s of CPU importing Python, NumPy and mlspace before it does anything, a third of the
suite's CPU on two cores. A forked child starts with those modules loaded and then runs
exactly what ``python -m mlspace ARGS`` runs: ``mlspace/__main__.py`` as ``__main__``, with
the test's argv, working directory, environment and standard streams, and the exit the
interpreter itself makes of it (an exception's traceback, ``SystemExit``'s code, a signal).

Requests come one JSON line at a time on standard input; each answer is one JSON line on
standard output: ``{"status": N}`` as ``subprocess`` reports it (negative for a signal), or
``{"timeout": true}`` when the child ran past its deadline and was killed. Nothing here is
imported by the test process: this file runs as its own program.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import resource
import runpy
import signal
import sys
import time

#: Modules a command may import that must not be loaded ahead of it: the app's Qt side
#: (never run by the command line's tests), Dask's client (its import starts threads that
#: take locks; a fork copies only the thread that forks). pyarrow's allocator keeps one
#: background thread here, which jemalloc itself makes safe across a fork.
_NOT_AHEAD = ("mlspace.ui", "mlspace.cluster", "mlspace.__main__")


def _preload() -> None:
    """Import every mlspace module the command line can reach, and what they import."""
    import mlspace

    for info in pkgutil.walk_packages(mlspace.__path__, "mlspace."):
        if not info.name.startswith(_NOT_AHEAD):
            importlib.import_module(info.name)


def _child(request: dict) -> None:
    """In the forked child: become ``python -m mlspace ARGS`` (this returns to run it)."""
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as the interpreter sets it at start-up
    for fd, path, mode in ((0, request["stdin"], os.O_RDONLY),
                           (1, request["stdout"], os.O_WRONLY | os.O_TRUNC | os.O_CREAT),
                           (2, request["stderr"], os.O_WRONLY | os.O_TRUNC | os.O_CREAT)):
        opened = os.open(path, mode, 0o600)
        os.dup2(opened, fd)
        os.close(opened)
    if request.get("memory"):
        resource.setrlimit(resource.RLIMIT_AS, (request["memory"], request["memory"]))
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[0] = request["cwd"]  # what ``-m`` puts first
    sys.argv = ["-m", *request["argv"]]


def _wait(pid: int, timeout: float | None) -> dict:
    """The child's end as ``subprocess`` reports it, or a timeout after killing it."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, 0 if deadline is None else os.WNOHANG)
        if done:
            return {"status": os.waitstatus_to_exitcode(status)}
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return {"timeout": True}
        time.sleep(0.005)


def serve() -> dict | None:
    """Answer requests until standard input closes; in a child, return its request."""
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            return request
        print(json.dumps(_wait(pid, request.get("timeout"))), flush=True)
    return None


if __name__ == "__main__":
    _preload()
    print(json.dumps({"ready": True}), flush=True)
    chosen = serve()
    if chosen is not None:
        _child(chosen)
        runpy.run_module("mlspace", run_name="__main__", alter_sys=True)
