"""Running as a good neighbour: the guard lowers its own CPU priority (nice 10) and asks
for the idle I/O class, so its few stats and light rescans wait behind the training run's
reads and writes. ``ioprio_set`` has no Python wrapper; it is called by its syscall number
where that is known (x86-64, arm64), else through ``ionice`` when installed."""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import shutil
import subprocess

_IOPRIO_SET = {"x86_64": 251, "aarch64": 30}
_IOPRIO_WHO_PROCESS, _IOPRIO_CLASS_IDLE, _CLASS_SHIFT = 1, 3, 13


def lower_priority() -> list[str]:
    """Nice 10 and idle I/O for this process; what took effect."""
    done = []
    with contextlib.suppress(OSError):
        os.nice(10)
        done.append("nice 10")
    number = _IOPRIO_SET.get(platform.machine())
    if number is not None:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.syscall(number, _IOPRIO_WHO_PROCESS, 0,
                        _IOPRIO_CLASS_IDLE << _CLASS_SHIFT) == 0:
            done.append("idle I/O")
            return done
    tool = shutil.which("ionice")
    if tool and subprocess.run([tool, "-c", "3", "-p", str(os.getpid())],
                               capture_output=True, check=False).returncode == 0:
        done.append("idle I/O")
    return done
