"""User exclude patterns, compiled once into one matcher.

A pattern without a slash is a glob on the entry's name (``*.tmp``, ``.git``); a pattern with a
slash is a glob on the entry's absolute path (``*/wandb/*/tmp``). That is what ``du --exclude``
and ``ncdu --exclude`` users expect. Written as people also write them, ``data/`` is the name
``data``, and a path that starts neither with ``/`` nor with ``*`` (``data/laion-subset``,
``./data``) is one below a scanned folder, at any depth: as written, it matched nothing.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable


def compile_excludes(patterns: tuple[str, ...]) -> Callable[[str, str], bool] | None:
    """Return ``matches(dir_prefix, name)`` for the patterns, or None when there are none, so the
    walker's hot loop pays nothing for the feature unless it is used."""
    if not patterns:
        return None
    patterns = tuple(map(_as_meant, patterns))
    name_globs = [fnmatch.translate(p) for p in patterns if "/" not in p]
    path_globs = [fnmatch.translate(p) for p in patterns if "/" in p]
    name_re = re.compile("|".join(name_globs)).match if name_globs else None
    path_re = re.compile("|".join(path_globs)).match if path_globs else None

    def matches(prefix: str, name: str) -> bool:
        if name_re is not None and name_re(name):
            return True
        return path_re is not None and path_re(prefix + name) is not None

    return matches


def _as_meant(pattern: str) -> str:
    """A pattern as the matcher reads it (see the module doc): 'data/' is 'data', and
    './data' or 'data/laion-subset' is '*/data' or '*/data/laion-subset'."""
    meant = pattern.rstrip("/") or pattern
    while meant.startswith("./"):
        meant = meant[2:]
    if "/" in meant and not meant.startswith(("/", "*")):
        meant = "*/" + meant
    return meant
