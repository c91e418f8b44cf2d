"""The user guide as data: its pages (README.md and docs/*.md), their headings as GitHub
anchors them, their links, and the commands their shell blocks show, for the tests that hold
the guide to what it says (tests/unit/test_docs_*.py).

The commands' conventions are the ones docs/development.md states at its top: ``~/ml`` is the
workspace, ``ID``, ``CLEANUP_ID`` and ``SCAN_ID`` stand for ids the reader would copy from an
earlier command's output, a trailing ``# not run by the docs test: <why>`` keeps a command out
of the run, and ``# exits N`` names the exit code a command is documented to give.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHELL_BLOCKS = ("bash", "console", "sh", "shell")
NOT_RUN = "not run by the docs test:"
PLACEHOLDERS = ("ID", "CLEANUP_ID", "SCAN_ID")

_FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")
_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_INLINE_CODE = re.compile(r"`[^`\n]*(?:\n(?![ \t]*\n)[^`\n]*)*`")  # within a paragraph
_EXITS = re.compile(r"\bexits (\d+)\b")
_SHELL_OPERATORS = ("|", "&&", "||", ";", ">", "<", "$(", "`")


def pages() -> list[Path]:
    """Every page of the guide: the front door and each page behind it."""
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def name(page: Path) -> str:
    return page.relative_to(REPO).as_posix()


def _prose(text: str) -> str:
    """The page with its code blanked (fenced blocks and inline code made spaces, line breaks
    kept), so a ``[x](y)`` or a ``# comment`` shown as code is neither a link nor a heading,
    while a link whose words wrap onto the next line is still one."""
    lines, fence = [], None
    for line in text.splitlines():
        opened = _FENCE.match(line.lstrip())
        if fence is None and opened:
            fence = opened.group(1)
            lines.append("")
        elif fence is not None:
            if line.strip().startswith(fence) and line.strip().strip(fence[0]) == "":
                fence = None
            lines.append("")
        else:
            lines.append(line)
    return _INLINE_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), "\n".join(lines))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text as rendered (links and emphasis reduced
    to their words), lower case, every character but letters, digits, ``_``, ``-`` and
    spaces dropped, and each space made a ``-``."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading's anchor on the page; a repeated heading gets ``-1``, ``-2``... as on
    GitHub."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in _headings(page):
        base = slug(line)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def _headings(page: Path) -> list[tuple[int, str]]:
    text = page.read_text(encoding="utf-8")
    raw, prose = text.splitlines(), _prose(text).splitlines()
    out = []
    for number, line in enumerate(prose, 1):
        if re.match(r"^ {0,3}#{1,6}\s", line):  # a heading outside code, read as written
            out.append((number, re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$",
                                         raw[number - 1]).group(1)))
    return out


@dataclass(frozen=True)
class Link:
    page: Path
    line: int
    target: str


def links(page: Path) -> list[Link]:
    """Every inline link and image of the page's prose."""
    prose = _prose(page.read_text(encoding="utf-8"))
    return [Link(page, prose.count("\n", 0, m.start()) + 1, m.group(1))
            for m in _LINK.finditer(prose)]


@dataclass(frozen=True)
class Command:
    """One ``mlspace ...`` line of a shell block."""

    page: Path
    line: int
    text: str  # as written, without a leading "$ "
    comment: str  # what follows " #", stripped

    @property
    def where(self) -> str:
        return f"{name(self.page)}:{self.line}"

    @property
    def skipped(self) -> bool:
        return self.comment.startswith(NOT_RUN)

    @property
    def why_skipped(self) -> str:
        return self.comment[len(NOT_RUN):].strip()

    @property
    def exit_code(self) -> int:
        """0, unless the comment says the command ``exits N``."""
        found = _EXITS.search(self.comment)
        return int(found.group(1)) if found else 0

    def words(self) -> list[str]:
        """The command's words after ``mlspace``, as a shell would split them (``~`` is left
        for the caller to expand); a pipe, a redirection or a second command is refused: a
        reader could not tell what the docs test ran."""
        code = self.text.partition(" #")[0]
        for operator in _SHELL_OPERATORS:
            if operator in code:
                raise ValueError(f"{self.where}: {operator!r} in a documented command; show "
                                 "one mlspace command a line")
        words = shlex.split(code)
        assert words[0] == "mlspace"
        return words[1:]


def commands(page: Path) -> list[Command]:
    """The ``mlspace`` lines of the page's bash/console/sh blocks, in order; a line ending
    in ``\\`` goes on on the next."""
    out: list[Command] = []
    fence, language, pending, start = None, "", "", 0
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        opened = _FENCE.match(line.lstrip())
        if fence is None:
            if opened:
                fence, language = opened.group(1), opened.group(2).lower()
            continue
        if line.strip().startswith(fence) and line.strip().strip(fence[0]) == "":
            fence = None
            continue
        if language not in SHELL_BLOCKS:
            continue
        stripped = line.strip()
        if not pending:
            start = number
            if stripped.startswith("$ "):
                stripped = stripped[2:].lstrip()
            if not stripped.startswith("mlspace "):
                continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        whole = pending + stripped
        pending = ""
        _, hashed, comment = whole.partition(" #")
        out.append(Command(page, start, whole, comment.strip() if hashed else ""))
    return out


def shown_commands() -> list[Command]:
    return [c for page in pages() for c in commands(page)]
