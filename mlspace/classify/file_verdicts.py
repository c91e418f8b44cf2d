"""What each guessed file of one folder is, from the folder's evidence: the bytes one of its
files showed, the words of the names, and the neighbours.

mlspace.classify.evidence picks the folder and reads one head; this module turns that, and
what the names decided around it, into a category per guessed file. The order of the tests
in verdicts() is the order of trust: a fixed-name checkpoint's parts, then what bytes said,
then names, then neighbours.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from mlspace.classify.categories import Category
from mlspace.classify.name_meaning import (
    says_about,
    says_config,
    says_job_status,
    says_model,
    says_predictions,
    says_record,
    says_search_state,
    says_split,
    says_vocab,
)
from mlspace.classify.readers.sniff import DATA, MODEL, RECORD, TRACE, Sniffed
from mlspace.classify.rules import CONTAINER_EXTENSIONS, CONTEXTS, Context
from mlspace.classify.structure import numbered_stem, twin_components
from mlspace.scan import Snapshot

#: Extensions of text files (and none: a tool's counters and markers are text).
TEXT_EXTENSIONS = frozenset({".json", ".jsonl", ".yaml", ".yml", ".csv", ".tsv", ".txt",
                             ".log", ".out", ".err", ".cfg", ".ini", ".toml", ".xml", ".html",
                             ".htm", ""})
#: A record of a run is small; a guessed data file larger than this stays data.
RECORD_MAX_BYTES = 16 * 2**20
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
#: What a job's status marker is written as: plain text, JSON, or no extension at all.
_STATUS_EXTENSIONS = frozenset({"", ".json", ".txt"})
#: Text a model's computation graph is exported as, beside its weights.
_PROGRAM_EXTENSIONS = frozenset({".json", ".xml", ".pbtxt", ".yaml", ".yml"})
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

@dataclass
class Folder:
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


def ext_of(name: str) -> str:
    """A file name's extension, lower case with its dot ("" for none or a dotfile)."""
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def verdicts(snapshot: Snapshot, folder: Folder, chosen: int | None,
              sniffed: Sniffed | None, categories: np.ndarray, contexts: np.ndarray
              ) -> dict[int, Category]:
    """The category of each guessed file of the folder (by position), where evidence
    settles it; the others keep their guess."""
    said = _BY_HOLDING.get(sniffed.holds) if sniffed and sniffed.holds else None
    chosen_ext = ext_of(folder.names[chosen]) if chosen is not None else None
    twins = twin_components(folder.names)
    checkpoint_twins = {twins[n] for n, c in zip(folder.names, folder.categories, strict=True)
                        if n in twins and c == Category.CHECKPOINT}
    model_stems = _checkpoint_stems(folder, chosen if said == Category.CHECKPOINT else None)
    holds_model = said == Category.CHECKPOINT or _holds_checkpoints(snapshot, folder, contexts) \
        or _names_models(folder)
    log_shaped = _log_shaped(snapshot, folder, categories, contexts)
    series_here = _numbered_models(folder) >= 2
    records_only = _records_only(folder, contexts)
    record_files = _record_files(folder, contexts, said == Category.LOG)
    # One model saved as files of this folder (not checkpoint folders below it: TF
    # Serving's models.config beside its model versions is the server's), in no project's
    # folder (beside train.py, config.json is the project's).
    one_model = not series_here and not log_shaped and not _project_files(folder) and (
        said == Category.CHECKPOINT or any(
            c == Category.CHECKPOINT and not g
            for c, g in zip(folder.categories, folder.guessed, strict=True)))
    # Arrays beside no model and no log: a description here is theirs.
    # Every file of the folder shares one stem, and that stem is a model's.
    stems = {_stem(n) for n in folder.names}
    one_stem_model = len(stems) == 1 and bool(stems & model_stems) and len(folder.names) > 1
    describes_data = not holds_model and not log_shaped and any(
        c == Category.DATASET and ext_of(n) not in TEXT_EXTENSIONS
        for n, c in zip(folder.names, folder.categories, strict=True))
    # The extension whose bytes, read here, are a container (``.sav`` holding a pickle).
    packed = chosen_ext if sniffed is not None and sniffed.format in _CONTAINER_FORMATS \
        else None
    tables_here = any(g and ext_of(n) in _TABLE_EXTENSIONS
                      for n, g in zip(folder.names, folder.guessed, strict=True))
    # In a folder a rule calls a log folder, a container stays part of the log unless its
    # own bytes or name say model (Ray's params.pkl beside a trial's checkpoints).
    plain = folder.context != Context.LOG
    records_folder = says_record(os.path.basename(snapshot.dir_path(folder.row)))
    verdicts: dict[int, Category] = {}
    for at, name in enumerate(folder.names):
        if not folder.guessed[at]:
            continue
        if folder.sizes[at] == 0:
            if log_shaped:
                verdicts[at] = Category.LOG  # a run's marker beside its records
            continue  # an empty file says nothing of its own
        ext = ext_of(name)
        text = (ext in TEXT_EXTENSIONS and ext != "") or (
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
        elif small and ext in _TABLE_EXTENSIONS and records_folder and not says_split(name) \
                and said in (None, Category.DATASET, Category.LOG):
            # A table in a folder named for a run's results (results/, metrics/, eval/,
            # benchmarks/) is what the run measured, not data to train on: read, it is
            # a table either way.
            verdicts[at] = Category.LOG
        elif small and records_folder and says_predictions(name) \
                and said in (None, Category.DATASET, Category.LOG):
            # What a model predicted, kept with the run's results (Ludwig's
            # churned_probabilities.npy and predictions.parquet): its output, not data.
            verdicts[at] = Category.LOG
        elif small and ext in _STATUS_EXTENSIONS and says_job_status(name) \
                and said in (None, Category.LOG):
            # How a job ended, written where its logs are (TorchX's SUCCESS, a launcher's
            # status.json): the job's record.
            verdicts[at] = Category.LOG
        elif ext in _REPORT_EXTENSIONS and records_folder and said != Category.DEBUG:
            # A page rendered in a folder named for a run's results or reports is the
            # run's report (an explainer's explanations/, an evaluation's report.html).
            verdicts[at] = Category.LOG
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
        elif one_stem_model and text and small and ext in _PROGRAM_EXTENSIONS:
            # An exported model's program beside its weights, the folder holding nothing
            # else (Paddle's mlp.json beside mlp.pdiparams, OpenVINO's model.xml).
            verdicts[at] = Category.CHECKPOINT
        elif one_model and text and small and ext not in _TABLE_EXTENSIONS \
                and (says_config(name) or says_about(name)) and not says_record(name):
            # What describes the one model saved here is part of it: its config, metadata
            # and version (PyTorch Tabular's config.yml, AutoGluon's metadata.json).
            verdicts[at] = Category.CHECKPOINT
        elif describes_data and text and small and says_about(name) and not says_record(name):
            # What describes the arrays beside it is part of them (a memmapped store's
            # meta.json of shapes and dtypes, a dump's storage_metadata.json).
            verdicts[at] = Category.DATASET
        elif small and (holds_model or log_shaped) and (ext in _RECORD_EXTENSIONS or (
                at == chosen and sniffed is not None and sniffed.format == "json")) \
                and not (says_config(name) and ext not in _TABLE_EXTENSIONS):
            # A record of the run beside its checkpoints or logs, also one whose name hides
            # that it is JSON (Metaflow's 0.task_begin).
            verdicts[at] = Category.LOG
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
    _same_kind_as_models(folder, verdicts)
    return verdicts


def _same_kind_as_models(folder: Folder, verdicts: dict[int, Category]) -> None:
    """A guessed binary left undecided, of the kind the evidence made models here, is one
    too (Pyro's ``best.params`` beside ``step_300.params``, which shares a stem with a
    sniffed ``step_300.optim``)."""
    kinds = {ext_of(folder.names[at]) for at, c in verdicts.items()
             if c == Category.CHECKPOINT} - TEXT_EXTENSIONS
    for at, name in enumerate(folder.names):
        if folder.guessed[at] and at not in verdicts and folder.sizes[at] > 0 \
                and ext_of(name) in kinds:
            verdicts[at] = Category.CHECKPOINT


def _stem(name: str) -> str:
    return name.split(".", 1)[0]


def _checkpoint_stems(folder: Folder, sniffed_model: int | None) -> set[str]:
    """Stems of the checkpoint files the names decided, of guessed binaries named as models,
    and of the files whose bytes said model: a guessed file sharing one is a part of that
    model (SentencePiece's ``m.vocab`` beside ``m.model``)."""
    stems = {_stem(n) for n, c, g in zip(folder.names, folder.categories, folder.guessed,
                                         strict=True)
             if (c == Category.CHECKPOINT and not g)
             or (g and ext_of(n) not in TEXT_EXTENSIONS and says_model(n))}
    if sniffed_model is not None:
        # The file whose bytes said model, and its siblings of the same kind, which the
        # same verdict makes models (Pyro's step_300.params beside step_300.optim).
        kind = ext_of(folder.names[sniffed_model])
        stems |= {_stem(n) for n, g in zip(folder.names, folder.guessed, strict=True)
                  if g and ext_of(n) == kind}
    return stems - {""}


def _records_only(folder: Folder, contexts: np.ndarray) -> bool:
    """A folder of a run's records: every file names decided is a log, and no subfolder is
    data or a model (a project's root, with its train.log beside corpus/, is not one)."""
    decided = [c for c, g in zip(folder.categories, folder.guessed, strict=True) if not g]
    return bool(decided) and all(c == Category.LOG for c in decided) \
        and not _data_or_model_below(folder, contexts)


def _data_or_model_below(folder: Folder, contexts: np.ndarray) -> bool:
    """A subfolder holding data or a model: its parent is more than a run's records."""
    return any(CONTEXTS[contexts[r]] in _DATA_OR_MODEL for r in folder.dirs)


def _project_files(folder: Folder) -> bool:
    """Code or docs in the folder: a person's project, not a tool's save."""
    return any(ext_of(n) in _PROJECT_EXTENSIONS for n in folder.names)


def _record_files(folder: Folder, contexts: np.ndarray, sniffed_record: bool) -> bool:
    """A folder of a run's record files: nothing but small structured text (JSON, YAML,
    tables), one of them named a record or read as one (``sniffed_record``: the file
    whose head was read is a record), and no subfolder of data or models."""
    return (sniffed_record or any(says_record(n) for n in folder.names)) and all(
        ext_of(n) in _STRUCTURED_TEXT and size <= RECORD_MAX_BYTES
        for n, size in zip(folder.names, folder.sizes, strict=True)) \
        and not _data_or_model_below(folder, contexts)


def _numbered_models(folder: Folder) -> int:
    """How many files of the folder are numbered saves named as models (``model_1000.d3``)
    or checkpoints already: more than one makes a series here."""
    return sum(1 for n, c in zip(folder.names, folder.categories, strict=True)
               if numbered_stem(n.split(".", 1)[0]) is not None
               and (c == Category.CHECKPOINT or says_model(n)))


def _names_models(folder: Folder) -> bool:
    """Guessed binaries named as models (``model_1000.d3``, ``policy_snapshot``): they are
    this folder's checkpoints, so its small tables and JSON are the run's records."""
    return any(g and s > 0 and ext_of(n) not in TEXT_EXTENSIONS and says_model(n)
               for n, g, s in zip(folder.names, folder.guessed, folder.sizes, strict=True))


def _holds_checkpoints(snapshot: Snapshot, folder: Folder, contexts: np.ndarray) -> bool:
    """Checkpoint files (not guessed) or checkpoint folders directly inside the folder."""
    if any(c == Category.CHECKPOINT and not g
           for c, g in zip(folder.categories, folder.guessed, strict=True)):
        return True
    return any(CONTEXTS[contexts[r]] in (Context.CHECKPOINT_UNIT, Context.CHECKPOINTS)
               for r in folder.dirs)


def _log_shaped(snapshot: Snapshot, folder: Folder, categories: np.ndarray,
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
