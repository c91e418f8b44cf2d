"""What a text file's head says it is: a table (CSV/TSV) and its columns, a JSON document and
its top-level keys. Read as text from a bounded head, never parsed past it: a table's first
lines and a document's first keys are enough to tell metrics from data.
"""

from __future__ import annotations

import csv
import re

#: A head that decodes with fewer than this share of printable characters is no text.
_PRINTABLE = re.compile(rb"[\t\n\r\x20-\x7e]|[\xc2-\xf4][\x80-\xbf]+")
_KEY = re.compile(r'"((?:[^"\\]|\\.){1,80})"\s*:')


def text_of(head: bytes) -> str | None:
    """``head`` as text, or None when it is binary (a NUL, or mostly unprintable bytes)."""
    sample = head[:4096]
    if not sample or b"\0" in sample:
        return None
    printable = sum(len(m.group(0)) for m in _PRINTABLE.finditer(sample))
    if printable < 0.95 * len(sample):
        return None
    return head.decode("utf-8", "replace")


def table_columns(text: str) -> list[str] | None:
    """The header of a CSV or TSV table (its first line that is no ``#`` comment), when the
    next lines have as many fields; None for anything else."""
    lines = [line for line in text.splitlines()[:12] if line.strip()]
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    complete = lines[:-1] if len(lines) > 2 else lines  # the head may cut the last line
    if len(complete) < 2:
        return None
    for sep in ("\t", ",", ";"):
        try:
            rows = list(csv.reader(complete, delimiter=sep))
        except csv.Error:
            continue
        widths = {len(row) for row in rows}
        if len(widths) == 1 and widths.pop() > 1:
            return [c.strip() for c in rows[0]]
    return None


def json_top_keys(text: str) -> list[str] | None:
    """The keys of a JSON object's first level as far as the head goes (a list of objects:
    the first one's), or None when the text is no JSON object or list."""
    start = text.lstrip()
    if not start or start[0] not in "{[":
        return None
    body = start
    if body[0] == "[":
        inner = body[1:].lstrip()
        if not inner.startswith("{"):
            return [] if inner[:1] in "]\"-0123456789tfn[" else None
        body = inner
    keys: list[str] = []
    depth = 0
    in_string = escaped = False
    at = 0
    for at, char in enumerate(body):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            if depth == 1:
                match = _KEY.match(body, at)
                if match:
                    keys.append(match.group(1))
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                break
    return keys
