"""mlspace.trust, the ownership rule, as the stores and (later) the cold tier use it: a
file and a folder, reached through links, and what each refusal says. Needs root to give
entries to another uid."""

from __future__ import annotations

import grp
import os
from pathlib import Path

import pytest

from mlspace.safe_read import NOT_THERE, Unreadable
from mlspace.trust import Untrusted, check_file, read_file, reason, store

NEIGHBOUR = 65533
SHARED_GROUP = 65534  # nogroup: nobody, sync and _apt are in it, unlike root's own group

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: chowns to another uid")


@pytest.fixture
def mine(tmp_path: Path) -> Path:
    tmp_path.chmod(0o755)
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "f").write_text("x")
    return folder


def test_links_of_the_user_are_followed_to_the_real_path(mine: Path) -> None:
    (mine.parent / "link").symlink_to("mine")
    (mine / "rel").symlink_to("../link/f")
    assert check_file(mine.parent / "link" / "f") == str(mine / "f")
    assert check_file(mine / "rel") == str(mine / "f")
    assert read_file(mine / "rel", 10) == b"x"
    assert store(mine.parent / "link").real == str(mine)
    assert check_file(mine / ".." / "mine" / "f") == str(mine / "f")


def test_another_users_link_or_file_is_foreign(mine: Path) -> None:
    link = mine.parent / "theirs"
    link.symlink_to("mine")
    os.chown(link, NEIGHBOUR, NEIGHBOUR, follow_symlinks=False)
    with pytest.raises(Untrusted, match=f"is a link that belongs to uid {NEIGHBOUR}") as err:
        check_file(link / "f")
    assert err.value.foreign
    os.chown(mine / "f", NEIGHBOUR, NEIGHBOUR)
    with pytest.raises(Untrusted, match=f"f belongs to uid {NEIGHBOUR}, not to you") as err:
        read_file(mine / "f", 10)
    assert err.value.foreign


def test_loose_modes_are_refused_with_the_command_that_fixes_them(mine: Path) -> None:
    (mine / "f").chmod(0o646)
    with pytest.raises(Untrusted, match=r"can be changed by others \(mode 0646\).*"
                       rf"`chmod go-w {mine}/f`") as err:
        check_file(mine / "f")
    assert not err.value.foreign
    (mine / "f").chmod(0o644)
    mine.chmod(0o775)  # root's own group (no one else is in it): as safe as 0755
    assert check_file(mine / "f") == str(mine / "f")
    os.chown(mine, 0, SHARED_GROUP)
    with pytest.raises(Untrusted, match=rf"{mine}, which holds {mine}/f, can be written by "
                       rf"the group {grp.getgrgid(SHARED_GROUP).gr_name} \(mode 0775\)"):
        check_file(mine / "f")
    mine.chmod(0o1777)  # sticky: nobody else can replace the user's file in it
    assert check_file(mine / "f") == str(mine / "f")
    with pytest.raises(Untrusted, match="so someone else could add or replace the records"):
        store(mine)  # but anyone could add records to it


def test_a_folder_on_the_way_owned_by_another_user_is_refused(mine: Path) -> None:
    os.chown(mine, NEIGHBOUR, NEIGHBOUR)
    with pytest.raises(Untrusted, match=f"{mine}, which holds {mine}/f, belongs to uid "):
        check_file(mine / "f")


def test_what_is_not_there_or_not_a_file(mine: Path) -> None:
    with pytest.raises(Unreadable, match=NOT_THERE):
        check_file(mine / "nothing")
    (mine / "dangling").symlink_to("nothing")
    with pytest.raises(Unreadable, match=NOT_THERE):
        check_file(mine / "dangling")
    os.mkfifo(mine / "fifo")
    with pytest.raises(Unreadable, match="is a FIFO"):
        read_file(mine / "fifo", 10)  # never opened: this would block
    (mine / "loop").symlink_to("loop")
    with pytest.raises(Unreadable, match="too many levels"):
        check_file(mine / "loop")
    err = Unreadable("is a FIFO, not a regular file")
    assert reason(mine / "fifo", err) == f"{mine}/fifo: is a FIFO, not a regular file"


def test_a_store_checks_each_record(mine: Path) -> None:
    records = store(mine)
    os.mkfifo(mine / "fifo.jsonl")
    (mine / "link.jsonl").symlink_to("f")
    assert records.names() == ["f", "fifo.jsonl", "link.jsonl"]
    assert records.read("f", 10) == b"x"
    with pytest.raises(Unreadable, match="FIFO"):
        records.read("fifo.jsonl", 10)
    with pytest.raises(Unreadable, match="symbolic link"):
        records.read("link.jsonl", 10)
    (mine / "f").write_text("0123456789")
    assert records.read_end("f", 3) == b"789"
