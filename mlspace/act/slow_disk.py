"""Asking a folder on a disk that may not answer (a network mount whose server is gone)
which device it is on, without waiting for it.

Planning asks this of the cold tier's folder, on the app's GUI thread too: a stat there
must not freeze the window. The stat runs in a daemon thread and is waited for briefly; a
folder that has not answered counts as unknown, and is not asked again until that stat
has returned, so a dead mount holds one thread, not one per question.
"""

from __future__ import annotations

import os
import threading

#: How long a question waits for its answer (seconds).
PATIENCE = 0.3

_lock = threading.Lock()
_pending: dict[str, threading.Event] = {}  # folders whose stat has not returned yet


def _stat_device(path: str) -> int:
    return os.stat(path).st_dev


def device_of(path: str, patience: float = PATIENCE) -> int | None:
    """``path``'s device, or None when it is not there or does not answer in time."""
    with _lock:
        if path in _pending:
            return None  # still asking since an earlier question: it does not answer
        done = threading.Event()
        _pending[path] = done
    answer: list[int] = []

    def ask() -> None:
        try:
            answer.append(_stat_device(path))
        except OSError:
            pass
        finally:
            with _lock:
                _pending.pop(path, None)
            done.set()

    threading.Thread(target=ask, name="mlspace-device-of", daemon=True).start()
    done.wait(patience)
    return answer[0] if answer else None
