"""On every labelled workspace (the tools' own layouts, tests/layouts.py LABELLED), at least
98% of the files and of the bytes are in the category an ML engineer gives them (issue 13)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from layouts import LABELLED, Labelled, accuracy, score

TARGET = 0.98


@pytest.mark.parametrize("build", LABELLED, ids=lambda build: build.__name__)
def test_files_and_bytes_are_where_an_ml_engineer_puts_them(
        tmp_path: Path, build: Callable[[], Labelled]) -> None:
    # A neutral root name: a scan root is judged by its name too ("debug", "processed").
    verdicts = score(build(), tmp_path / "ws")
    wrong = [f"{v.path}: {v.got}, should be {v.expected}" for v in verdicts
             if v.got != v.expected]
    assert accuracy(verdicts) >= TARGET, wrong
    assert accuracy(verdicts, by_bytes=True) >= TARGET, wrong


def test_every_layout_labels_every_file_it_makes_and_has_weight() -> None:
    """Labels and files are one table, and sizes are real: accuracy by bytes means something."""
    for build in LABELLED:
        layout = build()
        assert layout.labels.keys() == layout.spec.keys()
        assert len({label for label in layout.labels.values()}) >= 2, layout.name
