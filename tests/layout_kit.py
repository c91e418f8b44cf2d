"""The kit tests build workspaces with (tests/layouts.py, tests/layouts_tools.py).

``make(root, spec)`` takes {relative path: content}; content is bytes, a str (written as
UTF-8), an int (that many random bytes), a dict (written as JSON), None for an empty folder,
Link("target") for a symlink, Sparse(size) for a file of a real size that takes no disk (with
its real first and last bytes, if given), or HardLink("other path") for a second link to a
file made before it.
A Labelled workspace is such a spec with, for each file, the category an ML engineer gives it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from mlspace.classify import Inventory, classify
from mlspace.scan import ScanOptions, scan


@dataclass(frozen=True)
class Link:
    target: str


@dataclass(frozen=True)
class HardLink:
    """A second name for a file already in the spec (tools such as timm hard-link copies)."""

    other: str


@dataclass(frozen=True)
class Sparse:
    """A file of ``size`` bytes with no data written: weights and datasets at the sizes the
    tools write them, so that accuracy by bytes means what it does on a real disk. ``head``
    and ``tail``, when given, are its real first and last bytes (what a tool wrote there: a
    format's magic number, a zip's central directory); only the hole between is empty."""

    size: int
    head: bytes = b""
    tail: bytes = b""


def make(root: Path, spec: dict[str, object]) -> Path:
    for rel, content in spec.items():
        path = root / rel
        if content is None:
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Link):
            os.symlink(content.target, path)
        elif isinstance(content, HardLink):
            os.link(root / content.other, path)
        elif isinstance(content, Sparse):
            with open(path, "wb") as f:
                f.truncate(content.size)
                f.write(content.head)
                if content.tail:
                    f.seek(content.size - len(content.tail))
                    f.write(content.tail)
        elif isinstance(content, dict):
            path.write_text(json.dumps(content))
        elif isinstance(content, str):
            path.write_text(content)
        elif isinstance(content, int):
            path.write_bytes(os.urandom(content))
        else:
            path.write_bytes(content)  # type: ignore[arg-type]
    return root


def inventory_of(root: Path) -> Inventory:
    return classify(scan([root], ScanOptions(workers=1)))


def categories_by_path(inv: Inventory) -> dict[str, str]:
    return {p: inv.category(e).id for e, _, p in inv.snapshot.iter_paths()}


def series_at(inv: Inventory, folder: Path):  # noqa: ANN201 - a Series
    return inv.series_by_id[f"series:{folder}"]


def name_of(artifact_id: str | None) -> str | None:
    return artifact_id.rsplit("/", 1)[-1] if artifact_id else None


KB, MB, GB = 1 << 10, 1 << 20, 1 << 30


@dataclass(frozen=True)
class Labelled:
    """A workspace and, for each of its files, the category an ML engineer gives it."""

    name: str
    files: dict[str, tuple[object, str]]  # path -> (content as make() takes it, category id)

    @property
    def spec(self) -> dict[str, object]:
        return {path: content for path, (content, _) in self.files.items()}

    @property
    def labels(self) -> dict[str, str]:
        return {path: category for path, (_, category) in self.files.items()}


def as_category(category: str, files: dict[str, object]) -> dict[str, tuple[object, str]]:
    """``files``, each labelled ``category``."""
    return {path: (content, category) for path, content in files.items()}


def under(folder: str, files: dict[str, object]) -> dict[str, object]:
    """``files`` moved into ``folder``."""
    return {f"{folder}/{path}": content for path, content in files.items()}


def as_json(value: object) -> str:
    """A record as HF and most tools write it."""
    return json.dumps(value, indent=4)  # as HF and most tools write their records
