"""`mlspace --demo` reuses one folder in mlspace's cache instead of leaving a new temporary
folder (124 GiB apparent) behind every time, and never replaces a folder that is not a demo."""

from __future__ import annotations

import os
from pathlib import Path

from mlspace.demo import demo_home, fresh_demo, is_demo


def test_each_demo_replaces_the_last_in_one_cache_folder(isolated_user_dirs: Path) -> None:
    first = fresh_demo()
    (first / "outputs" / "mine.txt").write_text("written while trying the demo")
    second = fresh_demo()
    assert first == second == demo_home()
    assert is_demo(second) and not (second / "outputs" / "mine.txt").exists()
    assert os.listdir(demo_home().parent) == ["ml-workspace"]
    assert str(demo_home()).startswith(os.environ["XDG_CACHE_HOME"])


def test_a_folder_without_the_demo_marker_is_left_alone(isolated_user_dirs: Path) -> None:
    home = demo_home()
    home.mkdir(parents=True)
    (home / "precious.txt").write_text("not a demo")
    made = fresh_demo()
    assert made != home and is_demo(made)
    assert (home / "precious.txt").read_text() == "not a demo"
