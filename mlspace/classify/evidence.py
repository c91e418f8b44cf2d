"""Where names only guessed, let what the files are and how their folder is shaped decide.

After the rules (names, extensions, markers) have given every entry a category, some of
those categories are guesses (rules.WEAK): a ``.csv`` that could be data or a run's metrics,
a ``.zip`` or ``.pkl`` or a file with no extension that no rule knows. A folder holding such
guesses is *undecided*; every other folder was decided by names and costs nothing here.

For each undecided folder mlspace looks at one file's head (the one that tells most: the
index of a shard set, else the largest container, else the largest text), through
mlspace.classify.readers.sniff, and then decides each guessed file of the folder
(mlspace.classify.file_verdicts) from, in order: what its own bytes said (or, for a binary
of the same kind, what its sibling's did); the words of its name (``history``,
``metrics``; ``model``, ``snapshot``); and its neighbours (records beside checkpoints or
beside a run's logs are logs; a container beside a model is part of it; pickles beside a
job's stdout and stderr are the job's record). Folder shapes (mlspace.classify.structure)
turn numbered siblings with the same members into checkpoints and shard sets into
datasets or caches.

No read is needed where the names decide, and none is possible in a saved scan made
elsewhere (mlspace.index.offline): those folders keep their names' guesses, and the
inventory says how many were judged so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from mlspace.classify.categories import Category
from mlspace.classify.file_verdicts import (
    TEXT_EXTENSIONS,
    Folder,
    ext_of,
    verdicts,
)
from mlspace.classify.folder_units import make_unit
from mlspace.classify.listed_saves import Listing, read_listing, record_of
from mlspace.classify.name_meaning import says_cache
from mlspace.classify.readers.sniff import Sniffed, sniff_file
from mlspace.classify.rules import (
    CONTEXTS,
    CompiledRules,
    Context,
)
from mlspace.classify.structure import (
    index_names_shards,
    index_says_cache,
    mirror_shaped,
    repeated_member_sets,
    shards,
)
from mlspace.safe_read import Unreadable, read_head
from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_DIR

#: At most this many heads are read in one classification: past it, folders keep the
#: names' guesses (and the inventory says so). One head is ~20 µs from the page cache.
MAX_READS = 20_000
#: How much of a shard set's index is read (its first shards' names tell).
INDEX_BYTES = 256 * 1024
_EVIDENCE_CONTEXTS = frozenset({Context.GENERIC, Context.RUN, Context.MODEL, Context.LOG})


@dataclass
class EvidenceReport:
    """What the evidence pass did: heads read, and folders it could not look into."""

    reads: int = 0
    unreadable: int = 0
    over_budget: int = 0
    notes: list[str] = field(default_factory=list)

    def warnings(self) -> tuple[str, ...]:
        out = []
        if self.unreadable:
            out.append(f"{self.unreadable} folder(s) with files that names alone do not "
                       "settle could not be read (a saved scan, or no permission): they are "
                       "classified by their names")
        if self.over_budget:
            out.append(f"{self.over_budget} folder(s) past the {MAX_READS:,} files mlspace "
                       "reads in one scan are classified by their names")
        return tuple(out)


def apply_evidence(snapshot: Snapshot, categories: np.ndarray, guessed: np.ndarray,
                   contexts: np.ndarray, dir_rules: np.ndarray, compiled: CompiledRules,
                   rows_with_guesses: np.ndarray) -> EvidenceReport:
    """Settle the guessed categories (``guessed``: bool per entry) of the folders in
    ``rows_with_guesses``, and the folder shapes that make numbered saves: ``categories``,
    ``contexts`` and ``dir_rules`` change in place."""
    report = EvidenceReport()
    # A folder a tool's rule recognised is decided by names alone: the tool's own files
    # there are what its rules say (Ray's pickled params are its trial's record, and are
    # never opened), and what else is there is judged by its name and neighbours (a
    # script's model_epoch1.npz in a folder that Lightning's metrics.csv marks as a run).
    tools = np.array([rule.tool is not None for rule in compiled.dir_rules] + [False])
    rows = [r for r in np.unique(rows_with_guesses).tolist()
            if r >= 0 and CONTEXTS[contexts[r]] in _EVIDENCE_CONTEXTS]
    _numbered_saves(snapshot, categories, contexts, dir_rules, compiled, rows)
    for row in rows:
        if CONTEXTS[contexts[row]] not in _EVIDENCE_CONTEXTS:
            continue  # became a checkpoint above
        folder = _folder(snapshot, categories, guessed, contexts, row)
        if not any(folder.guessed):
            continue
        _settle(snapshot, folder, categories, contexts, dir_rules, compiled, report,
                may_read=not tools[dir_rules[row]])
    return report


def _folder(snapshot: Snapshot, categories: np.ndarray, guessed: np.ndarray,
            contexts: np.ndarray, row: int) -> Folder:
    first, count = int(snapshot.dir_first[row]), int(snapshot.dir_count[row])
    span = np.arange(first, first + count)
    is_dir = snapshot.kind[span] == KIND_DIR
    files = span[~is_dir]
    names = snapshot.child_names(row)
    file_names = [n for n, d in zip(names, is_dir.tolist(), strict=True) if not d]
    dir_rows = snapshot.rows_of(span[is_dir])
    return Folder(row, CONTEXTS[contexts[row]], files.tolist(), file_names,
                   snapshot.apparent[files].tolist(), categories[files].tolist(),
                   guessed[files].tolist(), [r for r in dir_rows.tolist() if r >= 0])


# ----------------------------------------------------------------------- numbered saves
def _numbered_saves(snapshot: Snapshot, categories: np.ndarray, contexts: np.ndarray,
                    dir_rules: np.ndarray, compiled: CompiledRules, guessed_rows: list[int]
                    ) -> None:
    """Sibling folders that repeat the same member set under a number, one of those members
    a checkpoint file, are the saves of one series: each is one checkpoint."""
    holders = _rows_holding_checkpoint_files(snapshot, categories, contexts)
    candidates = sorted(set(holders) | set(guessed_rows))
    by_parent: dict[int, list[int]] = {}
    for row in candidates:
        parent = int(snapshot.dir_parent[row])
        if parent >= 0 and CONTEXTS[contexts[row]] in _EVIDENCE_CONTEXTS:
            by_parent.setdefault(parent, []).append(row)
    rule = compiled.evidence["evidence-numbered-saves"]
    for rows in by_parent.values():
        if len(rows) < 2:
            continue
        members = {_base(snapshot.dir_path(r)): (r, frozenset(snapshot.child_names(r)))
                   for r in rows}
        for name in repeated_member_sets({n: m for n, (_, m) in members.items()}):
            row = members[name][0]
            if row in holders and not holds_run_records(snapshot, row, categories,
                                                         contexts):
                make_unit(snapshot, row, categories, contexts, dir_rules, rule,
                           Context.CHECKPOINT_UNIT)


def holds_run_records(snapshot: Snapshot, row: int, categories: np.ndarray,
                       contexts: np.ndarray) -> bool:
    """A folder holding logs (a job's output, a tracker's folder) is a run, not a save:
    numbered runs of a sweep are never a series to thin out."""
    first, count = int(snapshot.dir_first[row]), int(snapshot.dir_count[row])
    span = np.arange(first, first + count)
    if np.any(categories[span[snapshot.kind[span] != KIND_DIR]] == Category.LOG):
        return True
    below = snapshot.rows_of(span[snapshot.kind[span] == KIND_DIR])
    return bool(np.any(np.isin(contexts[below[below >= 0]], [Context.LOG, Context.RUN])))


def _rows_holding_checkpoint_files(snapshot: Snapshot, categories: np.ndarray,
                                   contexts: np.ndarray) -> set[int]:
    """Folders in a plain context that hold a checkpoint file directly."""
    files = np.flatnonzero((categories == Category.CHECKPOINT) & (snapshot.kind != KIND_DIR))
    rows = snapshot.parent_rows_of(files)
    rows = np.unique(rows[rows >= 0])
    plain = np.isin(contexts[rows], [int(c) for c in _EVIDENCE_CONTEXTS])
    return set(rows[plain].tolist())


def _base(path: str) -> str:
    return os.path.basename(path.rstrip("/"))


# ------------------------------------------------------------------------ one folder
def _settle(snapshot: Snapshot, folder: Folder, categories: np.ndarray, contexts: np.ndarray,
            dir_rules: np.ndarray, compiled: CompiledRules, report: EvidenceReport,
            may_read: bool = True) -> None:
    sharded = shards(n for n, g in zip(folder.names, folder.guessed, strict=True) if g)
    if sharded and says_cache(_base(snapshot.dir_path(folder.row))):
        # Shards in a folder named a cache (wds-cache/) are a loader's copy of them.
        make_unit(snapshot, folder.row, categories, contexts, dir_rules,
                   compiled.evidence["evidence-shard-cache"], Context.CACHE)
        return
    record = record_of(folder) if may_read else None
    head = _head(snapshot, folder.entries[record], report) if record is not None else None
    listing = read_listing(folder, record, snapshot.dir_path(folder.row), head) \
        if record is not None and head is not None else None
    if listing is not None and (listing.saves or not sharded):
        _listed(snapshot, folder, listing, categories, contexts)
        return
    index = _index_of(folder) if sharded and may_read else None
    if index is not None:
        text = head.decode("utf-8", "replace") if index == record and head is not None \
            else _index_text(snapshot, folder.entries[index], report)  # read once, not twice
        # An index names its shards; a lone JSON that names none (a run's params.json
        # beside numbered model files and metric CSVs) makes no shard set.
        if text is None or index_names_shards(text, sharded):
            _shard_set(snapshot, folder, index, set(sharded), text, categories, contexts,
                       dir_rules, compiled)
            return
    chosen = _representative(folder) if may_read and record is None else None
    sniffed = None
    if chosen is not None:
        sniffed = _sniff(snapshot, folder.entries[chosen], folder.sizes[chosen], report)
    decided = verdicts(snapshot, folder, chosen, sniffed, categories, contexts)
    for at, category in decided.items():
        categories[folder.entries[at]] = category


def _listed(snapshot: Snapshot, folder: Folder, listing: Listing, categories: np.ndarray,
            contexts: np.ndarray) -> None:
    """Settle a folder whose record was its one read: the files the record scores are
    saves and the record the run's log; the rest are judged with them as neighbours. A
    record that lists none is the folder's evidence, as a sniffed file is."""
    if not listing.saves:
        decided = verdicts(snapshot, folder, listing.record, listing.sniffed, categories,
                           contexts)
    else:
        for at, category in ((at, Category.CHECKPOINT) for at in listing.saves):
            folder.categories[at], folder.guessed[at] = category, False
            categories[folder.entries[at]] = category
        folder.categories[listing.record], folder.guessed[listing.record] = Category.LOG, False
        categories[folder.entries[listing.record]] = Category.LOG
        decided = verdicts(snapshot, folder, None, None, categories, contexts)
    for at, category in decided.items():
        categories[folder.entries[at]] = category


def _sniff(snapshot: Snapshot, entry: int, size: int, report: EvidenceReport
           ) -> Sniffed | None:
    if report.reads >= MAX_READS:
        report.over_budget += 1
        return None
    report.reads += 1
    found = sniff_file(snapshot.path(entry), size)
    if found is None:
        report.unreadable += 1
    return found


def _representative(folder: Folder) -> int | None:
    """The guessed file whose head tells most: a structured text describing a guessed
    binary of the same stem (OpenVINO's ``classifier.xml`` beside ``classifier.bin``: raw
    weights say nothing, their description does), else the largest container or binary,
    else the largest text file."""
    guessed = [i for i, g in enumerate(folder.guessed) if g]
    binary = [i for i in guessed if ext_of(folder.names[i]) not in TEXT_EXTENSIONS
              or ext_of(folder.names[i]) == ""]
    binary_stems = {folder.names[i].split(".", 1)[0] for i in binary}
    described = [i for i in guessed if ext_of(folder.names[i]) in _DESCRIPTIONS
                 and folder.names[i].split(".", 1)[0] in binary_stems]
    if described:
        return max(described, key=lambda i: (folder.sizes[i], folder.names[i]))
    pool = binary or guessed
    return max(pool, key=lambda i: (folder.sizes[i], folder.names[i])) if pool else None


#: Text formats that describe a binary beside them (a graph, a header, a manifest).
_DESCRIPTIONS = frozenset({".xml", ".param", ".prototxt"})


def _index_of(folder: Folder) -> int | None:
    """A shard set's index: the one JSON file beside the shards."""
    jsons = [i for i, n in enumerate(folder.names) if n.endswith(".json")]
    return jsons[0] if len(jsons) == 1 else None


def _index_text(snapshot: Snapshot, entry: int, report: EvidenceReport) -> str | None:
    """The head of a shard set's index, as text (None when it cannot be read)."""
    head = _head(snapshot, entry, report)
    return None if head is None else head.decode("utf-8", "replace")


def _head(snapshot: Snapshot, entry: int, report: EvidenceReport) -> bytes | None:
    """The first INDEX_BYTES of an index or a record, one of the budget's reads (None when
    over budget or unreadable)."""
    if report.reads >= MAX_READS:
        report.over_budget += 1
        return None
    report.reads += 1
    try:
        return read_head(snapshot.path(entry), INDEX_BYTES)
    except Unreadable:
        report.unreadable += 1
        return None


def _shard_set(snapshot: Snapshot, folder: Folder, index: int, sharded: set[str],
               text: str | None, categories: np.ndarray, contexts: np.ndarray,
               dir_rules: np.ndarray, compiled: CompiledRules) -> None:
    """Numbered shards beside their index: a dataset, or the cache a streaming loader made
    of a remote copy, when the index names them compressed while they lie here unpacked,
    or when the folder is shaped like a mirror (kept under a digest of where it came
    from)."""
    cache = (text is not None and index_says_cache(text, folder.names_set)) \
        or mirror_shaped(snapshot.dir_path(folder.row))
    context = Context.CACHE if cache else Context.DATASET
    rule = compiled.evidence["evidence-shard-cache" if cache else "evidence-shards"]
    if cache:
        make_unit(snapshot, folder.row, categories, contexts, dir_rules, rule, context)
        return
    contexts[folder.row] = context
    dir_rules[folder.row] = rule
    for at, name in enumerate(folder.names):
        if name in sharded or at == index:
            categories[folder.entries[at]] = Category.DATASET
