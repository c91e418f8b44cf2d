"""The one error a saved scan raises when it cannot be opened, with the reason in words."""

from __future__ import annotations


class CannotOpen(Exception):
    """A file that is not a saved scan mlspace can read: damaged, truncated, someone else's
    Parquet, a malformed or absurd ncdu export, or a format version from a newer mlspace.
    The message is the reason, ready for ``mlspace: cannot open FILE: <reason>``."""
