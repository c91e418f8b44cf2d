"""Record what a tool wrote, compactly, for the first-contact corpus (issue 27).

Every tool folder's ``make_fixtures.py`` runs the real tool into a scratch folder and calls
``write_capture`` on it. ``capture.json`` then holds every file and folder the tool wrote:

- small files verbatim: text (UTF-8, up to ``TEXT_LIMIT``) as ``"text"``, other bytes (up to
  ``BINARY_LIMIT``) as ``"b64"``;
- bigger files as their real ``"size"`` with their real first and last ``EDGE`` bytes
  (``"head"``, ``"tail"``, base64): headers for a format sniffer, and a zip's central
  directory at its end (torch files, zipped policies), without committing big blobs;
- empty folders as ``{"dir": true}``, symbolic links as ``{"link": target}``, and a second
  hard link to a file as ``{"hardlink": first path}``.

tests/layouts_corpus.py turns it back into a tree (layout_kit.make, the big files sparse).
Standard library only: it runs in the tools' own virtual environment.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import tempfile
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

TEXT_LIMIT = 64 * 1024
BINARY_LIMIT = 16 * 1024
EDGE = 4096


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _file_entry(path: Path, size: int) -> dict[str, object]:
    data = path.read_bytes() if size <= TEXT_LIMIT else b""
    if size <= TEXT_LIMIT:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and "\0" not in text:
            return {"size": size, "text": text}
        if size <= BINARY_LIMIT:
            return {"size": size, "b64": _b64(data)}
    with open(path, "rb") as f:
        head = f.read(EDGE)
        f.seek(max(size - EDGE, EDGE))
        tail = f.read()
    return {"size": size, "head": _b64(head), "tail": _b64(tail)}


def capture(root: Path) -> dict[str, dict[str, object]]:
    """Every entry under ``root`` (relative POSIX path -> entry), in sorted order."""
    entries: dict[str, dict[str, object]] = {}
    inodes: dict[tuple[int, int], str] = {}
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        here = Path(folder)
        for name in sorted(dirs + files):
            path = here / name
            rel = path.relative_to(root).as_posix()
            info = path.lstat()
            if path.is_symlink():
                entries[rel] = {"link": os.readlink(path)}
            elif path.is_dir():
                if not any(path.iterdir()):
                    entries[rel] = {"dir": True}
            elif (info.st_dev, info.st_ino) in inodes and info.st_nlink > 1:
                entries[rel] = {"hardlink": inodes[(info.st_dev, info.st_ino)]}
            else:
                inodes[(info.st_dev, info.st_ino)] = rel
                entries[rel] = _file_entry(path, info.st_size)
        dirs[:] = [d for d in dirs if not (here / d).is_symlink()]
    return dict(sorted(entries.items()))


def write_capture(root: Path, dest: Path, **about: object) -> dict[str, dict[str, object]]:
    """Capture ``root`` into ``dest/capture.json`` with ``about`` (tool, version, command)."""
    entries = capture(root)
    (dest / "capture.json").write_text(
        json.dumps({**about, "entries": entries}, indent=1, ensure_ascii=False) + "\n")
    return entries


def write_expected(dest: Path, entries: dict[str, dict[str, object]], label: object,
                   checkpoints: list[dict[str, object]], **about: object) -> None:
    """``dest/expected.json``: ``label(path)`` (a category id) for every file of the capture,
    and the best and latest checkpoints each run's own records name."""
    labels = {path: label(path) for path, entry in entries.items()  # type: ignore[operator]
              if "dir" not in entry}
    (dest / "expected.json").write_text(json.dumps(
        {**about, "labels": labels, "checkpoints": checkpoints}, indent=1) + "\n")


def record(dest: Path, run: Callable[[Path], list[dict[str, object]]],
           label: Callable[[str], str], package: str, **about: object) -> None:
    """Run the tool (``run(workspace)`` returns, per run, the best and latest checkpoints as
    the tool named them) in a fresh scratch workspace, then write ``capture.json`` and
    ``expected.json`` into ``dest``, with the installed version of ``package``."""
    about = {**about, "package": package, "version": version(package),
             "python": sys.version.split()[0]}
    with tempfile.TemporaryDirectory(prefix="mlspace-corpus-") as tmp:
        work = Path(tmp) / "ws"
        work.mkdir()
        cwd = os.getcwd()
        os.chdir(work)
        try:
            checkpoints = run(work)
        finally:
            os.chdir(cwd)
        entries = write_capture(work, dest, **about)
    write_expected(dest, entries, label, checkpoints, tool=about.get("tool"))
