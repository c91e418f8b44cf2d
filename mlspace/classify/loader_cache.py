"""What a library keeps as a cache of its own: a dataset's processed copy beside the raw
files it was built from, and a folder named a cache whose files are named by digests.

Graph and vision loaders (PyTorch Geometric, OGB, torchvision's older datasets) keep one
folder per dataset: ``raw/`` as published and ``processed/``, the library's own
serialisation of it, which the library rebuilds from ``raw/`` whenever it is missing. An
engineer reads such a ``processed/`` as a cache: deleting it costs one re-processing, never
data. Two things tell it apart from a project's own processed data (cookiecutter's
``data/raw`` and ``data/processed``, which stays a dataset): the pair sits in a folder named
for one dataset rather than in a generic data folder, and ``processed/`` holds only
serialised objects (torch or pickle files), not tables, arrays or media a person would open.

A folder whose name says cache (``persistent_cache/``, ``feature-cache/``) and whose every
file is named by a digest of what it holds (MONAI's PersistentDataset, a content-addressed
store), or most of whose files lie under digest-named folders (joblib's ``Memory``), is that
cache, whatever the files' extension says: nobody names a checkpoint by a 64-hex hash, a
cache keys its entries so.
"""

from __future__ import annotations

import numpy as np

from mlspace.classify.folder_units import make_unit
from mlspace.classify.name_meaning import says_cache
from mlspace.classify.rules import CONTEXTS, CompiledRules, Context
from mlspace.classify.structure import digest_named
from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_DIR

#: What a library writes when it serialises its own objects.
_SERIALISED = (".pt", ".pth", ".pkl", ".pickle")
#: Folders that gather a project's data, not one dataset's forms.
_DATA_ROOTS = frozenset({"data", "datasets", "dataset", "input", "inputs"})
#: Contexts that already say what is inside (a cache), or that nothing may reclassify.
_SEALED = frozenset({Context.CACHE, Context.OTHER})


def mark_loader_caches(snapshot: Snapshot, categories: np.ndarray, contexts: np.ndarray,
                       dir_rules: np.ndarray, compiled: CompiledRules,
                       row_names: tuple[str, ...] | list[str]) -> None:
    """Turn every ``processed/`` dataset folder that is a loader's copy of its ``raw/``
    sibling into a cache (``categories``, ``contexts`` and ``dir_rules`` change in place)."""
    for row, name in enumerate(row_names):
        if "cache" in name.lower() and CONTEXTS[contexts[row]] not in _SEALED \
                and says_cache(name) and (_only_digests(snapshot, row)
                                          or _digest_keyed(snapshot, row, dir_rules)):
            make_unit(snapshot, row, categories, contexts, dir_rules,
                      compiled.evidence["evidence-digest-cache"], Context.CACHE)
            continue
        if name != "processed" or CONTEXTS[contexts[row]] != Context.DATASET:
            continue
        parent = int(snapshot.dir_parent[row])
        if parent < 0 or row_names[parent].lower() in _DATA_ROOTS \
                or "raw" not in snapshot.child_names(parent):
            continue
        if _only_serialised(snapshot, row):
            make_unit(snapshot, row, categories, contexts, dir_rules,
                      compiled.evidence["evidence-loader-cache"], Context.CACHE)


def _file_names(snapshot: Snapshot, row: int) -> list[str]:
    first, count = int(snapshot.dir_first[row]), int(snapshot.dir_count[row])
    kinds = snapshot.kind[first:first + count].tolist()
    names = snapshot.child_names(row)
    return [n for n, k in zip(names, kinds, strict=True) if k != KIND_DIR]


def _only_serialised(snapshot: Snapshot, row: int) -> bool:
    files = _file_names(snapshot, row)
    return bool(files) and all(n.lower().endswith(_SERIALISED) for n in files)


def _only_digests(snapshot: Snapshot, row: int) -> bool:
    files = _file_names(snapshot, row)
    return bool(files) and all(digest_named(n) for n in files)


#: How many entries below a cache folder are looked at for its keys; a bigger one keeps its
#: names' verdict (a cache that size is judged by its files' own digests, above).
_KEYED_LOOK = 20_000


def _digest_keyed(snapshot: Snapshot, row: int, dir_rules: np.ndarray) -> bool:
    """Most files below the folder lie under a digest-named folder or are one (joblib's
    ``cache/joblib/<module>/<function>/<hash>/output.pkl``, with each function's
    ``func_code.py`` beside its keys): a cache keyed by what it holds, nested. Not where a
    rule knew a folder below (HF datasets' build folders in a custom ``hf_cache/``): what
    the rule made of it stands."""
    root = int(snapshot.dir_entry[row])
    files = keyed = 0
    stack: list[tuple[int, bool]] = [(root, False)]
    while stack:
        entry, under_key = stack.pop()
        for child in snapshot.children(entry):
            files += snapshot.kind[child] != KIND_DIR
            if files + len(stack) > _KEYED_LOOK:
                return False
            is_key = under_key or digest_named(snapshot.name(child))
            if snapshot.kind[child] == KIND_DIR:
                below = snapshot.row_of(child)
                if below >= 0 and dir_rules[below] >= 0:
                    return False
                stack.append((child, is_key))
            elif is_key:
                keyed += 1
    return keyed >= 2 and 2 * keyed >= files
