"""Where a command's results go: stdout, or the file the user named with -o, written so that
an interrupted run never leaves a truncated file that looks whole."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import TextIO

from mlspace.cli.exits import UsageError
from mlspace.written import written_in_place


def is_dataset_output(path: str | None) -> bool:
    """-o names a folder (FOLDER/, or one that exists): the scan is saved as a dataset."""
    return bool(path) and (path.endswith(os.sep) or os.path.isdir(path))


@contextlib.contextmanager
def dataset_target(path: str) -> Iterator[str]:
    """The folder a dataset is written into: made now, or empty, or holding an earlier
    dataset mlspace saved (which the new one replaces). A folder holding anything else is
    refused: a dataset is never written among a user's files. A folder made here and left
    empty by a failure is removed again."""
    from mlspace.index.sniff import is_saved_dataset

    folder = path.rstrip(os.sep) or os.sep
    made = False
    try:
        if not os.path.lexists(folder):
            os.mkdir(folder)
            made = True
        elif not os.path.isdir(folder):
            raise UsageError(f"{path} exists and is not a folder: name a folder for the "
                             "dataset, or a FILE.parquet")
        elif os.listdir(folder) and not is_saved_dataset(folder):
            raise UsageError(f"{path} holds other files, not a scan mlspace saved: name a new "
                             "folder for the dataset (nothing was written)")
    except OSError as err:
        raise UsageError(f"cannot write {path}: {err.strerror or err}") from err
    try:
        yield folder
    except BaseException as err:
        if made:
            with contextlib.suppress(OSError):
                os.rmdir(folder)
        if isinstance(err, OSError):
            raise UsageError(f"cannot write {path}: {err.strerror or err}") from err
        raise


def wants_json(args: argparse.Namespace) -> bool:
    """--format json, or no --format and -o FILE.json (a table in a .json file would
    break whatever reads it)."""
    if args.format:
        return bool(args.format == "json")
    return (args.output or "").lower().endswith(".json")


@contextlib.contextmanager
def output_stream(path: str | None) -> Iterator[TextIO]:
    """stdout, or a file written in place (see written_in_place)."""
    if path is None:
        # Names that are not valid UTF-8 go out as the bytes they are on disk.
        sys.stdout.reconfigure(errors="surrogateescape")  # type: ignore[union-attr]
        yield sys.stdout
        return
    with written_in_place(path) as partial, \
            open(partial, "w", encoding="utf-8", errors="surrogateescape", newline="") as out:
        yield out


def discard_stdout() -> None:
    """The reader of stdout went away (``| head`` has what it wanted): what is still
    written goes to /dev/null, so neither this nor the interpreter's final flush fails."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def write_checked(folder: str, files: dict[str, str],
                  check: Callable[[str, list[str]], str | None]) -> str | None:
    """Write ``files`` ({name: text}) into ``folder`` only once ``check(staging, names)``
    (run on a private copy of them) found nothing wrong; returns what it found, and then
    nothing was written. A unit that does not verify is never left behind."""
    import tempfile

    staging = tempfile.mkdtemp(prefix=".mlspace-check-", dir=folder)
    try:
        for name, text in files.items():
            with open(os.path.join(staging, name), "w", encoding="utf-8") as out:
                out.write(text)
        problem = check(staging, list(files))
    finally:
        for name in os.listdir(staging):
            os.unlink(os.path.join(staging, name))
        os.rmdir(staging)
    if problem is not None:
        return problem
    for name, text in files.items():
        with output_stream(os.path.join(folder, name)) as out:
            out.write(text)
    return None


def tell_skipped(problems: list[str]) -> None:
    """What a command left out of mlspace's own stores (a damaged journal file, a folder
    others could write), one ``mlspace: ...`` line each on stderr."""
    for problem in problems:
        print(f"mlspace: {problem}", file=sys.stderr)
