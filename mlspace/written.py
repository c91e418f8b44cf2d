"""Files written where the user named them: whole, or not at all.

What mlspace writes to a name the user gave (``scan -o``, a report, the app's "Save scan")
goes beside it first and is moved in place once complete, so an interrupted run never
leaves a truncated file that looks whole. The command line and the app both write this
way, so it lives below both.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import stat
import sys
from collections.abc import Iterator
from typing import BinaryIO


class CannotWrite(Exception):
    """The named file could not be written; the message says which and why (the command
    line prints it as one line, exit code 2; the app shows it)."""


@contextlib.contextmanager
def written_in_place(path: str) -> Iterator[str]:
    """The name to write ``path``'s content under: beside it, moved in place once complete
    (and removed if not), so an interrupted run never leaves a truncated file that looks
    whole."""
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        # /dev/null, /dev/stdout, a FIFO: written straight into. Replacing them with a file
        # (as root, `-o /dev/null` did) would break the system for everyone.
        yield path
        return
    target = os.path.realpath(path)  # through a link to a file, never replacing the link
    partial = target + ".partial"
    try:
        yield partial
        os.replace(partial, target)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        if isinstance(err, OSError):
            raise CannotWrite(f"cannot write {path}: {err.strerror or err}") from err
        raise


@contextlib.contextmanager
def binary_output(path: str | None) -> Iterator[BinaryIO]:
    """stdout's bytes, or a file written in place: gzip-compressed when its name ends in
    .gz, as ncdu and gdu read their exports either way."""
    if path is None:
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    with written_in_place(path) as partial:
        opener = gzip.open if path.lower().endswith(".gz") else open
        with opener(partial, "wb") as out:
            yield out  # type: ignore[misc]
