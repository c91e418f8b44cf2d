"""Every command the guide shows runs as the guide says: each page's ``mlspace`` lines, in the
order a reader would type them, against the demo workspace written into ``~/ml`` of a home of
the page's own (conftest points HOME and the XDG folders into tmp), in-process through
``mlspace.cli.main``. The conventions are the ones docs/development.md states at its top."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from docs_pages import NOT_RUN, PLACEHOLDERS, Command, commands, name, pages, shown_commands

from mlspace.act import journal
from mlspace.cli import main
from mlspace.cli.parser import COMMANDS
from mlspace.demo import generate
from mlspace.index import history

#: What ``mlspace`` does without a command and without opening the window.
_NO_WINDOW = ("--install-desktop", "--uninstall-desktop", "--version", "--help", "-h")


def _opens_the_window(words: list[str]) -> bool:
    return not words or (words[0] not in COMMANDS and words[0] not in _NO_WINDOW)


def test_the_guide_shows_commands_to_run() -> None:
    """The test below has something to hold: most pages show commands, and most run."""
    shown = shown_commands()
    assert len({c.page for c in shown}) >= 8
    assert sum(not c.skipped for c in shown) >= 40


def test_every_command_left_out_says_why() -> None:
    unexplained = [c.where for c in shown_commands()
                   if NOT_RUN.split(":")[0] in c.comment and not (c.skipped and c.why_skipped)]
    assert unexplained == []


def test_every_command_that_opens_the_window_is_left_out() -> None:
    """The app's window cannot be driven from here (tests/gui does that): a command that
    would open it must say it is not run, rather than hang the test."""
    running = [c.where for c in shown_commands() if not c.skipped and _opens_the_window(c.words())]
    assert running == []


def test_every_placeholder_is_one_the_convention_names() -> None:
    """An upper-case word the test does not fill in would reach mlspace as written and fail
    in a way the reader cannot tell from the page: only the conventional ones are used."""
    odd = [(c.where, w) for c in shown_commands() if not c.skipped for w in c.words()
           if w.isupper() and len(w) > 1 and w not in PLACEHOLDERS]
    assert odd == []


class _Reader:
    """Runs a page's commands as its reader would, in one home and one working folder."""

    def __init__(self, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.workspace = generate(home / "ml")
        (home / "cold").mkdir()  # a cold tier for dry runs (on the same disk)
        self.capsys = capsys

    def run(self, words: list[str]) -> tuple[int, str, str]:
        self.capsys.readouterr()
        try:
            code = main(words)
        except SystemExit as stop:  # argparse: --help, or a usage error
            code = stop.code if isinstance(stop.code, int) else 2
        out, err = self.capsys.readouterr()
        return code, out, err

    def fill_in(self, word: str) -> str:
        if word.startswith("~"):
            return os.path.expanduser(word)
        if word == "ID":
            code, out, err = self.run(["plan", str(self.workspace), "--format", "json"])
            assert code == 0, err
            return json.loads(out)["suggestions"][0]["id"]
        if word == "CLEANUP_ID":
            return journal.history()[0].id
        if word == "SCAN_ID":
            return history.entries()[-1].id
        return word


def _runs(page: Path) -> list[Command]:
    return [c for c in commands(page) if not c.skipped]


@pytest.mark.parametrize("page", [p for p in pages() if _runs(p)], ids=name)
def test_every_command_on_the_page_runs(page: Path, isolated_user_dirs: Path,
                                        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    reader = _Reader(isolated_user_dirs, capsys)
    work = tmp_path / "work"  # where -o FILE and relative names land
    work.mkdir()
    monkeypatch.chdir(work)
    for command in _runs(page):
        words = [reader.fill_in(w) for w in command.words()]
        code, out, err = reader.run(words)
        said = f"{command.where}: mlspace {' '.join(words)}\n{out[-2000:]}\n{err[-2000:]}"
        assert code == command.exit_code, said
        assert "Traceback" not in err and "internal error" not in err, said
