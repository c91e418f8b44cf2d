"""What a save's name promises about keeping it: the roles a tool's naming protects, and
the saves whose names give no order to thin them by (a fixed-name file overwritten in place,
a version folder named by an id)."""

from __future__ import annotations

import re
from typing import Protocol, TypeVar

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


#: A config's or trial's id in a save's name: a run of hex digits with a letter among them
#: (``33273df29d``, a digest's head), at least this long. A number alone (a step, a date) is
#: no id.
_ID_TOKEN = re.compile(r"(?<![0-9a-f])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{8,}(?![0-9a-f])",
                       re.I)


def config_ids(names: list[str]) -> dict[str, str] | None:
    """Each save's id, where the saves of one folder are several configs' (a search's
    ``<config digest>_e<budget>.joblib``: each config trained at growing budgets): every name
    holds one id and at least two differ. Then each id's saves are a series of their own,
    its highest budget that config's latest; the budgets of different configs order
    nothing. None where the names are one series' (no id, or one for all)."""
    ids = {}
    for name in names:
        found = _ID_TOKEN.findall(name)
        if len(found) != 1:
            return None
        ids[name] = found[0].lower()
    return ids if len(set(ids.values())) > 1 else None


class _Named(Protocol):
    name: str


_Save = TypeVar("_Save", bound=_Named)
#: Saves grouped by (folder row, whether they are folders, config id: "" for none).
SaveGroups = dict[tuple[int, bool, str], list[_Save]]


def split_by_config(by_folder: SaveGroups[_Save]) -> SaveGroups[_Save]:
    """Each folder's saves, as one group per config where their names carry several
    configs' ids (config_ids); the other folders' saves as they were."""
    out: SaveGroups[_Save] = {}
    for (row, is_dir, _), found in by_folder.items():
        ids = config_ids([c.name for c in found]) if len(found) > 1 else None
        for save in found:
            out.setdefault((row, is_dir, ids[save.name] if ids else ""), []).append(save)
    return out
