"""Human formatting of sizes, ages and durations, shared by the CLI, the reports and the app."""

from __future__ import annotations

import humanize


def size(n: int | float) -> str:
    """Bytes in binary units, as du -h and ncdu show them: '1.5 GiB'."""
    return humanize.naturalsize(n, binary=True, format="%.1f")


def duration(seconds: float) -> str:
    """A scan or run time: '850 ms', '12.3 s', '4 min 05 s'."""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes} min {secs:02d} s"


def age(seconds: float) -> str:
    """How long ago: 'just now', '3 hours', '12 days', '2 years'."""
    return "just now" if seconds < 60 else humanize.naturaldelta(seconds)


def count(n: int) -> str:
    """A count with thousands separators: '1,234,567'."""
    return f"{n:,}"
