"""What a save's name promises about keeping it: the roles a tool's naming protects, and
the saves whose names give no order to thin them by (a fixed-name file overwritten in place,
a version folder named by an id)."""

from __future__ import annotations

import re

from mlspace.classify.model import Artifact

#: Roles whose checkpoints are kept at every risk level: what the tool's naming promises.
PROTECTED_ROLES = frozenset({"best", "last", "final", "top-k", "export"})


def is_fixed_name_save(m: Artifact) -> bool:
    """A checkpoint file whose name says nothing about its order (``params.pt``): the tool
    overwrites it in place at each save, so it is no older step to thin out."""
    return (not m.is_dir and m.step is None and m.epoch is None and not m.metrics
            and m.role is None)


def is_named_version(m: Artifact) -> bool:
    """A save folder named by an id, not a number (a model store's ``iris_clf/qjjkpgho4cp/``
    beside the ``latest`` that names the newest): each is a version someone saved and named
    on purpose, of some run, not an older step of one run to thin out."""
    return (m.is_dir and m.step is None and m.epoch is None and not m.metrics
            and m.role is None and not _DATED.search(m.name))


#: A date or time in a name orders the saves by it (Ray Train's checkpoint_2026-11-30_20-33-23).
_DATED = re.compile(r"\d{4}-?\d{2}-?\d{2}[T_\-]?\d{2}")
