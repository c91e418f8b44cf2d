"""Where names only guessed, let what the files are and how their folder is shaped decide.

After the rules (names, extensions, markers) have given every entry a category, some of
those categories are guesses (rules.WEAK): a ``.csv`` that could be data or a run's metrics,
a ``.zip`` or ``.pkl`` or a file with no extension that no rule knows. A folder holding such
guesses is *undecided*; every other folder was decided by names and costs nothing here.

For each undecided folder mlspace looks at one file's head (the one that tells most: the
index of a shard set, else the largest container, else the largest text), through
mlspace.classify.readers.sniff, and then decides each guessed file of the folder from, in
order: what its own bytes said (or, for a binary of the same kind, what its sibling's did);
the words of its name (``history``, ``metrics``; ``model``, ``snapshot``); and its
neighbours (records beside checkpoints or beside a run's logs are logs; a container beside
a model is part of it; pickles beside a job's stdout and stderr are the job's record).
Folder shapes (mlspace.classify.structure) turn numbered siblings with the same members
into checkpoints and shard sets into datasets or caches.

No read is needed where the names decide, and none is possible in a saved scan made
elsewhere (mlspace.index.offline): those folders keep their names' guesses, and the
inventory says how many were judged so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from mlspace.classify.categories import Category
from mlspace.classify.folder_units import make_unit
from mlspace.classify.name_meaning import (
    says_about,
    says_cache,
    says_config,
    says_model,
    says_record,
    says_search_state,
    says_split,
    says_vocab,
)
from mlspace.classify.readers.sniff import DATA, MODEL, RECORD, TRACE, Sniffed, sniff_file
from mlspace.classify.rules import (
    CONTAINER_EXTENSIONS,
    CONTEXTS,
    CompiledRules,
    Context,
)
from mlspace.classify.structure import (
    index_names_shards,
    index_says_cache,
    mirror_shaped,
    numbered_stem,
    repeated_member_sets,
    shards,
    twin_components,
)
from mlspace.safe_read import Unreadable, read_head
from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_DIR

#: At most this many heads are read in one classification: past it, folders keep the
#: names' guesses (and the inventory says so). One head is ~20 µs from the page cache.
MAX_READS = 20_000
#: How much of a shard set's index is read (its first shards' names tell).
INDEX_BYTES = 256 * 1024
#: A record of a run is small; a guessed data file larger than this stays data.
RECORD_MAX_BYTES = 16 * 2**20
_TEXT_EXTENSIONS = frozenset({".json", ".jsonl", ".yaml", ".yml", ".csv", ".tsv", ".txt",
                              ".log", ".out", ".err", ".cfg", ".ini", ".toml", ".xml", ""})
#: Records a run keeps as data files (configs in YAML beside a model stay configs).
_RECORD_EXTENSIONS = frozenset({".json", ".jsonl", ".csv", ".tsv"})
#: A text file named as a model at least this big is the model in text form (LightGBM's
#: model.txt, a tree dump); a smaller one is a note about it.
_TEXT_MODEL_MIN = 16 * 1024
#: What a tool renders of a run beside its records.
_REPORT_EXTENSIONS = frozenset({".html", ".htm"})
#: A table is no config, whatever its name (``environment.csv`` of returns per step).
_TABLE_EXTENSIONS = frozenset({".csv", ".tsv"})
_TEXT_FORMATS = frozenset({"text", "json", "table", "html"})
#: What a tool writes of a run as structured text.
_STRUCTURED_TEXT = frozenset({".json", ".jsonl", ".yaml", ".yml", ".csv", ".tsv"})
#: What a person's project holds and a tool's save never does: code and its docs.
_PROJECT_EXTENSIONS = frozenset({".py", ".ipynb", ".sh", ".md", ".rst", ".toml", ".r", ".jl"})
#: Text a corpus is kept in, one example a line.
_CORPUS_TEXT = frozenset({".txt", ".jsonl", ".csv", ".tsv"})
#: What a profiler writes together: the trace, its compressed form, the page that shows it.
_TRACE_EXTENSIONS = frozenset({".json", ".gz", ".html", ".htm"})
#: Formats that pack a tool's objects whatever the file is called (``datamodule.sav``).
_CONTAINER_FORMATS = frozenset({"pickle", "zip", "hdf5", "torch-zip", "torch-legacy"})
_BY_HOLDING = {MODEL: Category.CHECKPOINT, RECORD: Category.LOG, DATA: Category.DATASET,
               TRACE: Category.DEBUG}
_DATA_OR_MODEL = frozenset({Context.DATASET, Context.AUGMENTED, Context.CHECKPOINT_UNIT,
                            Context.CHECKPOINTS, Context.MODEL})
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


@dataclass
class _Folder:
    """One listed folder's files as the pass sees them."""

    row: int
    context: Context
    entries: list[int]  # files only
    names: list[str]
    sizes: list[int]
    categories: list[int]
    guessed: list[bool]
    dirs: list[int]  # rows of listed subfolders

    @property
    def names_set(self) -> set[str]:
        return set(self.names)


def apply_evidence(snapshot: Snapshot, categories: np.ndarray, guessed: np.ndarray,
                   contexts: np.ndarray, dir_rules: np.ndarray, compiled: CompiledRules,
                   rows_with_guesses: np.ndarray) -> EvidenceReport:
    """Settle the guessed categories (``guessed``: bool per entry) of the folders in
    ``rows_with_guesses``, and the folder shapes that make numbered saves: ``categories``,
    ``contexts`` and ``dir_rules`` change in place."""
    report = EvidenceReport()
    # A folder a tool's rule recognised is decided by its names: the tool's own files
    # there are what the rule says (Ray's pickled params are its trial's record, and are
    # never opened).
    tools = np.array([rule.tool is not None for rule in compiled.dir_rules] + [False])
    rows = [r for r in np.unique(rows_with_guesses).tolist()
            if r >= 0 and CONTEXTS[contexts[r]] in _EVIDENCE_CONTEXTS and not tools[dir_rules[r]]]
    _numbered_saves(snapshot, categories, contexts, dir_rules, compiled, rows)
    for row in rows:
        if CONTEXTS[contexts[row]] not in _EVIDENCE_CONTEXTS:
            continue  # became a checkpoint above
        folder = _folder(snapshot, categories, guessed, contexts, row)
        if not any(folder.guessed):
            continue
        _settle(snapshot, folder, categories, contexts, dir_rules, compiled, report)
    return report


def _folder(snapshot: Snapshot, categories: np.ndarray, guessed: np.ndarray,
            contexts: np.ndarray, row: int) -> _Folder:
    first, count = int(snapshot.dir_first[row]), int(snapshot.dir_count[row])
    span = np.arange(first, first + count)
    is_dir = snapshot.kind[span] == KIND_DIR
    files = span[~is_dir]
    names = snapshot.child_names(row)
    file_names = [n for n, d in zip(names, is_dir.tolist(), strict=True) if not d]
    dir_rows = snapshot.rows_of(span[is_dir])
    return _Folder(row, CONTEXTS[contexts[row]], files.tolist(), file_names,
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
            if row in holders and not _holds_run_records(snapshot, row, categories,
                                                         contexts):
                make_unit(snapshot, row, categories, contexts, dir_rules, rule,
                           Context.CHECKPOINT_UNIT)


def _holds_run_records(snapshot: Snapshot, row: int, categories: np.ndarray,
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
def _settle(snapshot: Snapshot, folder: _Folder, categories: np.ndarray, contexts: np.ndarray,
            dir_rules: np.ndarray, compiled: CompiledRules, report: EvidenceReport) -> None:
    sharded = shards(n for n, g in zip(folder.names, folder.guessed, strict=True) if g)
    if sharded and says_cache(_base(snapshot.dir_path(folder.row))):
        # Shards in a folder named a cache (wds-cache/) are a loader's copy of them.
        make_unit(snapshot, folder.row, categories, contexts, dir_rules,
                   compiled.evidence["evidence-shard-cache"], Context.CACHE)
        return
    index = _index_of(folder) if sharded else None
    if index is not None:
        text = _index_text(snapshot, folder.entries[index], report)
        # An index names its shards; a lone JSON that names none (a run's params.json
        # beside numbered model files and metric CSVs) makes no shard set.
        if text is None or index_names_shards(text, sharded):
            _shard_set(snapshot, folder, index, set(sharded), text, categories, contexts,
                       dir_rules, compiled)
            return
    chosen = _representative(folder)
    sniffed = None
    if chosen is not None:
        sniffed = _sniff(snapshot, folder.entries[chosen], folder.sizes[chosen], report)
    verdicts = _verdicts(snapshot, folder, chosen, sniffed, categories, contexts)
    for at, category in verdicts.items():
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


def _ext(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def _representative(folder: _Folder) -> int | None:
    """The guessed file whose head tells most: the largest container or binary, else the
    largest text file."""
    guessed = [i for i, g in enumerate(folder.guessed) if g]
    binary = [i for i in guessed if _ext(folder.names[i]) not in _TEXT_EXTENSIONS
              or _ext(folder.names[i]) == ""]
    pool = binary or guessed
    return max(pool, key=lambda i: (folder.sizes[i], folder.names[i])) if pool else None


def _index_of(folder: _Folder) -> int | None:
    """A shard set's index: the one JSON file beside the shards."""
    jsons = [i for i, n in enumerate(folder.names) if n.endswith(".json")]
    return jsons[0] if len(jsons) == 1 else None


def _index_text(snapshot: Snapshot, entry: int, report: EvidenceReport) -> str | None:
    """The head of a shard set's index, as text (None when it cannot be read)."""
    if report.reads >= MAX_READS:
        report.over_budget += 1
        return None
    report.reads += 1
    try:
        return read_head(snapshot.path(entry), INDEX_BYTES).decode("utf-8", "replace")
    except Unreadable:
        report.unreadable += 1
        return None


def _shard_set(snapshot: Snapshot, folder: _Folder, index: int, sharded: set[str],
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


def _verdicts(snapshot: Snapshot, folder: _Folder, chosen: int | None,
              sniffed: Sniffed | None, categories: np.ndarray, contexts: np.ndarray
              ) -> dict[int, Category]:
    """The category of each guessed file of the folder (by position), where evidence
    settles it; the others keep their guess."""
    said = _BY_HOLDING.get(sniffed.holds) if sniffed and sniffed.holds else None
    chosen_ext = _ext(folder.names[chosen]) if chosen is not None else None
    twins = twin_components(folder.names)
    checkpoint_twins = {twins[n] for n, c in zip(folder.names, folder.categories, strict=True)
                        if n in twins and c == Category.CHECKPOINT}
    model_stems = _checkpoint_stems(folder, chosen if said == Category.CHECKPOINT else None)
    holds_model = said == Category.CHECKPOINT or _holds_checkpoints(snapshot, folder, contexts) \
        or _names_models(folder)
    log_shaped = _log_shaped(snapshot, folder, categories, contexts)
    series_here = _numbered_models(folder) >= 2
    records_only = _records_only(folder, contexts)
    record_files = _record_files(folder, contexts)
    # One model saved as files of this folder (not checkpoint folders below it: TF
    # Serving's models.config beside its model versions is the server's), in no project's
    # folder (beside train.py, config.json is the project's).
    one_model = not series_here and not log_shaped and not _project_files(folder) and (
        said == Category.CHECKPOINT or any(
            c == Category.CHECKPOINT and not g
            for c, g in zip(folder.categories, folder.guessed, strict=True)))
    # The extension whose bytes, read here, are a container (``.sav`` holding a pickle).
    packed = chosen_ext if sniffed is not None and sniffed.format in _CONTAINER_FORMATS \
        else None
    tables_here = any(g and _ext(n) in _TABLE_EXTENSIONS
                      for n, g in zip(folder.names, folder.guessed, strict=True))
    # In a folder a rule calls a log folder, a container stays part of the log unless its
    # own bytes or name say model (Ray's params.pkl beside a trial's checkpoints).
    plain = folder.context != Context.LOG
    verdicts: dict[int, Category] = {}
    for at, name in enumerate(folder.names):
        if not folder.guessed[at]:
            continue
        if folder.sizes[at] == 0:
            if log_shaped:
                verdicts[at] = Category.LOG  # a run's marker beside its records
            continue  # an empty file says nothing of its own
        ext = _ext(name)
        text = (ext in _TEXT_EXTENSIONS and ext != "") or (
            at == chosen and sniffed is not None and sniffed.format in _TEXT_FORMATS)
        guess = folder.categories[at]
        small = folder.sizes[at] <= RECORD_MAX_BYTES
        if name in twins and twins[name] in checkpoint_twins:
            verdicts[at] = Category.CHECKPOINT  # a component of a fixed-name checkpoint
        elif small and holds_model and says_vocab(name):
            verdicts[at] = Category.CHECKPOINT  # the vocabulary the models beside it read
        elif not text and small and says_record(name) and not says_model(name) \
                and said == Category.CHECKPOINT:
            # A pickle named a record (result.pkl, trials.pkl) holds the search's record,
            # even when fitted estimators travel inside it.
            verdicts[at] = Category.LOG
        elif not text and small and says_search_state(name) and not says_model(name) \
                and not holds_model and said != Category.CHECKPOINT:
            # A search's pickled state beside no model (TPOT's population.pkl, Nevergrad's
            # optimizer.pkl) resumes the search: it is the search's record, as its trials are.
            verdicts[at] = Category.LOG
        elif not text and _stem(name) in model_stems:
            verdicts[at] = Category.CHECKPOINT  # m.vocab beside m.model: one model's parts
        elif at == chosen and said is not None:
            verdicts[at] = said
        elif said is not None and not text and ext == chosen_ext:
            verdicts[at] = said  # a sibling of the same kind
        elif said == Category.DEBUG and ext in _TRACE_EXTENSIONS \
                and not (small and (says_record(name) or says_config(name))):
            # A trace beside the profiler page that shows it (VizTracer's result.json: too
            # big to be the small record its name would make it).
            verdicts[at] = Category.DEBUG
        elif text and small and says_record(name):
            verdicts[at] = Category.LOG
        elif not text and says_model(name):
            verdicts[at] = Category.CHECKPOINT
        elif one_model and text and small and ext not in _TABLE_EXTENSIONS \
                and (says_config(name) or says_about(name)) and not says_record(name):
            # What describes the one model saved here is part of it: its config, metadata
            # and version (PyTorch Tabular's config.yml, AutoGluon's metadata.json).
            verdicts[at] = Category.CHECKPOINT
        elif small and (holds_model or log_shaped) and ext in _RECORD_EXTENSIONS \
                and not (says_config(name) and ext not in _TABLE_EXTENSIONS):
            verdicts[at] = Category.LOG  # a record of the run beside its checkpoints or logs
        elif small and series_here and tables_here and ext in _RECORD_EXTENSIONS:
            # A config beside one model is that model's; beside a series of saves and the
            # run's records it is the run's own (d3rlpy's params.json).
            verdicts[at] = Category.LOG
        elif not text and small and says_record(name) and not says_model(name):
            verdicts[at] = Category.LOG  # a pickled record: trials, history, results
        elif text and folder.sizes[at] >= _TEXT_MODEL_MIN and says_model(name) \
                and not says_record(name) and not says_config(name):
            verdicts[at] = Category.CHECKPOINT  # a model dumped as text (boosted trees)
        elif small and records_only and not holds_model and text \
                and (says_config(name) or ext in _REPORT_EXTENSIONS):
            # Beside a run's records and no model, its parameters and its rendered report
            # are part of the record (a config beside a model stays the model's).
            verdicts[at] = Category.LOG
        elif plain and holds_model and not text and small \
                and (ext in CONTAINER_EXTENSIONS or ext == packed):
            verdicts[at] = Category.CHECKPOINT  # state saved with the model beside it
        elif record_files and small and ext in _STRUCTURED_TEXT:
            # Beside a record, in a folder of nothing but structured text, the rest is the
            # same run's record (SMAC's scenario.json and intensifier.json beside its
            # runhistory.json).
            verdicts[at] = Category.LOG
        elif text and ext in _CORPUS_TEXT and says_split(name) and not (
                says_record(name) or says_config(name) or says_model(name)):
            verdicts[at] = Category.DATASET  # a corpus split: src-train.txt, val.jsonl
        elif log_shaped and (not text or ext == "") and guess != Category.DATASET and small:
            # What a job left beside its stdout and stderr; a tracker's counters
            # (last_put_version) beside its records.
            verdicts[at] = Category.LOG
    return verdicts


def _stem(name: str) -> str:
    return name.split(".", 1)[0]


def _checkpoint_stems(folder: _Folder, sniffed_model: int | None) -> set[str]:
    """Stems of the checkpoint files the names decided, of guessed binaries named as models,
    and of the file whose bytes said model: a guessed file sharing one is a part of that
    model (SentencePiece's ``m.vocab`` beside ``m.model``)."""
    stems = {_stem(n) for n, c, g in zip(folder.names, folder.categories, folder.guessed,
                                         strict=True)
             if (c == Category.CHECKPOINT and not g)
             or (g and _ext(n) not in _TEXT_EXTENSIONS and says_model(n))}
    if sniffed_model is not None:
        stems.add(_stem(folder.names[sniffed_model]))
    return stems - {""}


def _records_only(folder: _Folder, contexts: np.ndarray) -> bool:
    """A folder of a run's records: every file names decided is a log, and no subfolder is
    data or a model (a project's root, with its train.log beside corpus/, is not one)."""
    decided = [c for c, g in zip(folder.categories, folder.guessed, strict=True) if not g]
    return bool(decided) and all(c == Category.LOG for c in decided) and not any(
        CONTEXTS[contexts[r]] in _DATA_OR_MODEL for r in folder.dirs)


def _project_files(folder: _Folder) -> bool:
    """Code or docs in the folder: a person's project, not a tool's save."""
    return any(_ext(n) in _PROJECT_EXTENSIONS for n in folder.names)


def _record_files(folder: _Folder, contexts: np.ndarray) -> bool:
    """A folder of a run's record files: nothing but small structured text (JSON, YAML,
    tables), one of them named a record, and no subfolder of data or models."""
    return any(says_record(n) for n in folder.names) and all(
        _ext(n) in _STRUCTURED_TEXT and size <= RECORD_MAX_BYTES
        for n, size in zip(folder.names, folder.sizes, strict=True)) and not any(
        CONTEXTS[contexts[r]] in _DATA_OR_MODEL for r in folder.dirs)


def _numbered_models(folder: _Folder) -> int:
    """How many files of the folder are numbered saves named as models (``model_1000.d3``)
    or checkpoints already: more than one makes a series here."""
    return sum(1 for n, c in zip(folder.names, folder.categories, strict=True)
               if numbered_stem(n.split(".", 1)[0]) is not None
               and (c == Category.CHECKPOINT or says_model(n)))


def _names_models(folder: _Folder) -> bool:
    """Guessed binaries named as models (``model_1000.d3``, ``policy_snapshot``): they are
    this folder's checkpoints, so its small tables and JSON are the run's records."""
    return any(g and s > 0 and _ext(n) not in _TEXT_EXTENSIONS and says_model(n)
               for n, g, s in zip(folder.names, folder.guessed, folder.sizes, strict=True))


def _holds_checkpoints(snapshot: Snapshot, folder: _Folder, contexts: np.ndarray) -> bool:
    """Checkpoint files (not guessed) or checkpoint folders directly inside the folder."""
    if any(c == Category.CHECKPOINT and not g
           for c, g in zip(folder.categories, folder.guessed, strict=True)):
        return True
    return any(CONTEXTS[contexts[r]] in (Context.CHECKPOINT_UNIT, Context.CHECKPOINTS)
               for r in folder.dirs)


def _log_shaped(snapshot: Snapshot, folder: _Folder, categories: np.ndarray,
                contexts: np.ndarray) -> bool:
    """A folder of a run's records: log files (not guessed) beside the guesses, or every
    subfolder holding logs."""
    if any(c == Category.LOG and not g
           for c, g in zip(folder.categories, folder.guessed, strict=True)):
        return True
    # Subfolders the tool filled with log files itself (catboost_info/learn/ with event
    # files); a log folder a rule knows by name (a project's logs/ or runs/) says nothing
    # about its parent, and neither does an empty one (a tool's tmp/).
    writing = False
    for row in folder.dirs:
        first, count = int(snapshot.dir_first[row]), int(snapshot.dir_count[row])
        if CONTEXTS[contexts[row]] == Context.LOG or not count:
            continue
        if not np.any(categories[first:first + count] == Category.LOG):
            return False
        writing = True
    return writing
