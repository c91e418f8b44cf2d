"""Odd things a user types or a tree holds, at the command line: a clear message, no
traceback, and reports whose markup an odd name cannot break."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_runner import run_mlspace
from markdown_it import MarkdownIt
from workspaces import hf_run

from mlspace.report.render import _md_code, _md_text


def mlspace(*args: str) -> subprocess.CompletedProcess[str]:
    return run_mlspace(*args, timeout=120)


@pytest.mark.parametrize("command", ["scan", "inventory", "plan"])
def test_a_file_named_as_the_folder_to_scan_is_refused(tmp_path: Path, command: str) -> None:
    """`mlspace scan FILE` / `plan FILE`: says it is not a folder, exit 2."""
    afile = tmp_path / "model.safetensors"
    afile.write_bytes(b"\0" * 100)
    result = mlspace(command, str(afile))
    assert result.returncode == 2
    assert f"{afile} is not a folder" in result.stderr and "Traceback" not in result.stderr


def _rendered(markdown: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(markdown)


@pytest.mark.parametrize("name", ["a`b", "``start", "end`", "x|y", "<b>bold</b>", "tab\there",
                                  "new\nline", "`` ` ``"])
def test_a_name_stays_one_code_span(name: str) -> None:
    """Backticks, pipes, HTML and control characters in a name: still one code span."""
    html = _rendered(f"| Path |\n|---|\n| {_md_code(name)} |\n")
    assert html.count("<code>") == 1 and "<b>" not in html
    assert html.count("<td>") == 1


def test_plain_text_gets_no_markup() -> None:
    """A suggestion title with HTML, emphasis and link syntax renders as the same text."""
    text = "Remove <script>x</script> *all* [of](them) | now_please"
    html = _rendered(_md_text(text))
    assert "<script>" not in html and "<em>" not in html and "<a " not in html
    assert "*all*" in html and "[of](them)" in html


def test_a_markdown_report_of_a_tree_with_backticks_in_names(tmp_path: Path) -> None:
    """A report of a run whose folder name holds a backtick and HTML renders cleanly."""
    root = tmp_path / "ws"
    hf_run(root / "exp`1<i>")
    out = tmp_path / "r.md"
    result = mlspace("report", str(root), "-o", str(out))
    assert result.returncode == 0, result.stderr
    html = _rendered(out.read_text())
    assert "<i>" not in html
    assert "exp`1&lt;i&gt;" in html
