"""A command run with its stderr on a pseudo-terminal, as from a shell: mlspace shows its
progress line only there, and a test waits for that line (the walk is under way) instead of
sleeping for a guessed time."""

from __future__ import annotations

import os
import select


def read_until(fd: int, marker: bytes, timeout_s: float = 60) -> bytes:
    """What the terminal showed, up to and including the first chunk holding ``marker``."""
    seen = b""
    while marker not in seen:
        ready, _, _ = select.select([fd], [], [], timeout_s)
        assert ready, f"no {marker!r} within {timeout_s:.0f} s; seen: {seen[-500:]!r}"
        seen += os.read(fd, 4096)
    return seen


def read_all(fd: int) -> bytes:
    """The rest the terminal shows until its other side closes (or half a second of quiet)."""
    out = b""
    while select.select([fd], [], [], 0.5)[0]:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the terminal's other side is closed
            break
        if not chunk:
            break
        out += chunk
    return out
