"""Make a folder one unit of a context: what its files turned out to be, decided as a whole.

The evidence passes (mlspace.classify.evidence, mlspace.classify.loader_cache) find folders
that are one thing, a checkpoint save or a loader's cache, rather than files each of its
own kind; this is how either records it.
"""

from __future__ import annotations

import numpy as np

from mlspace.classify.rules import DEFAULT_CATEGORY, Context
from mlspace.scan import Snapshot


def make_unit(snapshot: Snapshot, row: int, categories: np.ndarray, contexts: np.ndarray,
              dir_rules: np.ndarray, rule: int, context: Context) -> None:
    """Make folder ``row`` one unit of ``context``: its subtree takes the context's category
    (what is below a checkpoint is the checkpoint), its subfolders the context."""
    contexts[row] = context
    dir_rules[row] = rule
    category = DEFAULT_CATEGORY[context]
    for entry in snapshot.subtree(int(snapshot.dir_entry[row])):
        below = snapshot.row_of(entry)
        if below >= 0 and below != row:
            contexts[below] = context
            dir_rules[below] = -1
        if entry != snapshot.dir_entry[row]:
            categories[entry] = category
