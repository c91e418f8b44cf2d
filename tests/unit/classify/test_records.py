"""Record files are read safely: only regular files, only up to a limit, never blocking."""

from __future__ import annotations

import os
from pathlib import Path

from mlspace.classify.readers.records import read_json, read_text


def test_reads_whole_text_up_to_the_limit(tmp_path: Path) -> None:
    record = tmp_path / "latest"
    record.write_text("global_step200\n")
    assert read_text(str(record)) == "global_step200\n"
    assert read_text(str(record), limit=15) == "global_step200\n"
    assert read_text(str(record), limit=14) is None  # larger than allowed: not read


def test_a_large_record_is_read_in_full(tmp_path: Path) -> None:
    record = tmp_path / "trainer_state.json"
    record.write_text('{"log_history": [' + ",".join(["{}"] * 900_000) + "]}")
    assert os.path.getsize(record) > 2**20  # more than one read() call
    assert len(read_json(str(record))["log_history"]) == 900_000  # type: ignore[index]


def test_missing_empty_folder_and_fifo_give_nothing(tmp_path: Path) -> None:
    assert read_text(str(tmp_path / "absent")) is None
    (tmp_path / "empty").write_bytes(b"")
    assert read_text(str(tmp_path / "empty")) == ""
    assert read_json(str(tmp_path / "empty")) is None
    assert read_text(str(tmp_path)) is None
    os.mkfifo(tmp_path / "fifo")
    assert read_text(str(tmp_path / "fifo")) is None
