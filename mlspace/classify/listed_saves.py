"""Files a run's record lists with a score each are the run's saves, whatever their format.

A sweep's driver that writes ``results.json`` with ``{"trials": [{"alpha": 0.1, "val_mse":
5.29, "weights": "outputs/ridge_sweep/ridge_alpha0.1.npy"}, ...]}`` says, in its own words,
which files beside it are fitted models: NumPy arrays or joblib files that by name and bytes
would pass for data. The record is the run's log. This is issue 27's "records found, not
listed": found by shape (a JSON named as a record, a list of mappings that each name a file
here and score it), never by a tool's file name.

One head read per folder, as for any guessed folder: the record is that read, and when it
lists nothing, its bytes stand as the folder's evidence like any other file's would.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from mlspace.classify.file_verdicts import TEXT_EXTENSIONS, Folder, ext_of
from mlspace.classify.name_meaning import says_record
from mlspace.classify.readers.listed_scores import json_list_scores
from mlspace.classify.readers.sniff import Sniffed, sniff_bytes

#: A record read whole to find what it lists; a bigger JSON is no list of a few saves.
RECORD_BYTES = 256 * 1024


@dataclass(frozen=True)
class Listing:
    """What a folder's record said: the files it scores (positions in the folder), or,
    listing none, what its bytes are (the folder's one read)."""

    record: int
    saves: frozenset[int]
    sniffed: Sniffed | None


def record_of(folder: Folder) -> int | None:
    """The guessed JSON named as a run's record (results, trials, history...) beside two or
    more guessed files that are not text: the one file worth reading here, if any."""
    binaries = sum(1 for n, g in zip(folder.names, folder.guessed, strict=True)
                   if g and ext_of(n) not in TEXT_EXTENSIONS)
    if binaries < 2:
        return None
    records = [at for at, (n, g, size) in enumerate(zip(folder.names, folder.guessed,
                                                        folder.sizes, strict=True))
               if g and ext_of(n) == ".json" and 0 < size <= RECORD_BYTES
               and says_record(n.rsplit(".", 1)[0])]
    return max(records, key=lambda at: folder.sizes[at]) if records else None


def read_listing(folder: Folder, record: int, folder_path: str, head: bytes) -> Listing:
    """The saves the record (its bytes ``head``) scores among the folder's guessed
    binaries."""
    members = {n: at for at, (n, g) in enumerate(zip(folder.names, folder.guessed,
                                                     strict=True))
               if g and ext_of(n) not in TEXT_EXTENSIONS}
    try:
        parsed: object = json.loads(head.decode("utf-8"))
    except (ValueError, RecursionError):
        parsed = None
    name = folder.names[record]
    found = json_list_scores(folder_path, set(members), [name],
                             lambda path: parsed if os.path.basename(path) == name else None)
    # Scored by a metric whose name says which way is better (val_mse, accuracy): an
    # index's per-shard counts and sizes score nothing.
    saves = frozenset(members[n] for n in found[0]) \
        if found and len(found[0]) >= 2 and found[2] is not None else frozenset()
    # Only a record that lists nothing stands as the folder's evidence: sniff it then.
    return Listing(record, saves, None if saves else sniff_bytes(head, head))
