"""Human formatting of sizes, ages and durations, shared by the CLI, the reports and the app."""

from __future__ import annotations


def size(n: int | float) -> str:
    """Bytes in binary units, as du -h and ncdu show them: '1.5 GiB'."""
    import humanize  # here: most commands' start-up (the walk's) needs no size in words

    return humanize.naturalsize(n, binary=True, format="%.1f")


def change(n: int) -> str:
    """A change of size with its sign: '+1.5 GiB', '−300.0 MiB' (a minus sign, not a
    hyphen), '0 Bytes'."""
    if n == 0:
        return size(0)
    return ("+" if n > 0 else "\u2212") + size(abs(n))


def duration(seconds: float) -> str:
    """A scan or run time: '850 ms', '12.3 s', '4 min 05 s'."""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes} min {secs:02d} s"


def age(seconds: float) -> str:
    """A span of time in its largest sensible unit, rounded: '3 hours', '17 days',
    '4 months', '2 years' ('just now' under a minute). Days are kept up to 60 (a 17-day-old
    checkpoint is not "a month" old), months up to two years."""
    days = seconds / 86400
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return plural(round(seconds / 60), "minute")
    if days < 1:
        return plural(round(seconds / 3600), "hour")
    if days < 60:
        return plural(round(days), "day")
    if days < 730:
        return plural(round(days / 30.44), "month")
    return plural(round(days / 365.25), "year")


def ago(seconds: float) -> str:
    """'just now', or '17 days ago'."""
    text = age(seconds)
    return text if text == "just now" else f"{text} ago"


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 item', '3 items', '1,204 checkpoints'; ``many`` where adding an s is wrong."""
    return f"{count(n)} {word if n == 1 else many or word + 's'}"


def count(n: int) -> str:
    """A count with thousands separators: '1,234,567'."""
    return f"{n:,}"
