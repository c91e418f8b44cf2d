"""The one bounded reader: whatever sits under a record's name, it answers at once, with a
reason, and never reads past its cap."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hostile_helpers import answers_quickly
from hypothesis import given, settings
from hypothesis import strategies as st

from mlspace import safe_read
from mlspace.safe_read import Unreadable, iter_blocks, read_bytes, read_head, read_text


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "core"
    os.mkfifo(fifo)
    with pytest.raises(Unreadable, match="FIFO"):
        answers_quickly(read_head, str(fifo), 18)


def test_a_symlink_to_dev_zero_is_not_followed(tmp_path: Path) -> None:
    link = tmp_path / "pr"
    link.symlink_to("/dev/zero")
    with pytest.raises(Unreadable, match="symbolic link"):
        answers_quickly(read_bytes, str(link))


def test_a_character_device_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Unreadable, match="character device"):
        answers_quickly(read_bytes, "/dev/zero")


def test_a_symlink_to_a_regular_file_outside_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    link = tmp_path / "tree" / "trainer_state.json"
    link.parent.mkdir()
    link.symlink_to(outside)
    with pytest.raises(Unreadable, match="symbolic link"):
        read_text(str(link))


def test_a_folder_and_a_missing_file_have_reasons(tmp_path: Path) -> None:
    with pytest.raises(Unreadable, match="folder"):
        read_bytes(str(tmp_path))
    with pytest.raises(Unreadable, match="no longer there"):
        read_bytes(str(tmp_path / "gone"))


def test_size_cap_refuses_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * 1001)
    with pytest.raises(Unreadable, match="larger than 1,000"):
        read_bytes(str(big), 1000)
    assert read_bytes(str(big), 1001) == b"x" * 1001


def test_a_header_read_takes_only_the_head(tmp_path: Path) -> None:
    f = tmp_path / "core.1234"
    f.write_bytes(b"\x7fELF" + b"\0" * 100)
    assert read_head(str(f), 18) == b"\x7fELF" + b"\0" * 14


def test_blocks_stop_at_the_size_seen_when_opened(tmp_path: Path) -> None:
    f = tmp_path / "shard.bin"
    f.write_bytes(os.urandom(3 * 1000 + 7))
    assert b"".join(iter_blocks(str(f), 1000)) == f.read_bytes()


def test_a_swap_between_lstat_and_open_is_caught(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    record = tmp_path / "trainer_state.json"
    record.write_text("{}")
    other = tmp_path / "other.json"
    other.write_text("[]")
    real_open = os.open

    def swapping_open(path: str, flags: int, *args: object, **kwargs: object) -> int:
        os.replace(other, record)  # another file takes the name after the lstat
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(safe_read.os, "open", swapping_open)
    with pytest.raises(Unreadable, match="replaced"):
        read_bytes(str(record))


@settings(max_examples=50, deadline=None)
@given(data=st.binary(max_size=4096))
def test_any_bytes_round_trip(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    f = tmp_path_factory.mktemp("fuzz") / "record"
    f.write_bytes(data)
    assert read_bytes(str(f)) == data
    assert read_head(str(f), 18) == data[:18]
