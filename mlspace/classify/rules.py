"""Classification rules as data: what a rule says, and the rules compiled once into lookup
tables the classifier can use at one dict lookup per file (the files they are read from:
mlspace.classify.rule_files).

Why tables and not a list of regexes: trying 60 compiled regexes per file added ~55% to a
scan; deciding per folder (its context) and then looking a file's name and extension up in a
dict added ~4% with the same labels (issue 3's measurements).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from enum import IntEnum

from mlspace.classify.categories import Category


class Context(IntEnum):
    """What a folder is, as far as its contents are concerned."""

    GENERIC = 0
    RUN = 1
    DATASET = 2
    AUGMENTED = 3
    CHECKPOINTS = 4
    CHECKPOINT_UNIT = 5
    LOG = 6
    DEBUG = 7
    CACHE = 8
    OTHER = 9
    #: A folder a model was saved into with save_pretrained(), often a run's output folder too
    #: (HF Trainer's output_dir): the model's weights, config and tokenizer are one checkpoint,
    #: the run's records are logs, and subfolders are judged afresh, as a run's are.
    MODEL = 10
    #: A folder people save tensors into while debugging (debug/, dumps/): the tensors, arrays
    #: and pictures there are debug dumps; anything else (code, a database dump) keeps its
    #: own category, and nothing here is a checkpoint or a dataset.
    DUMPS = 11

    @property
    def key(self) -> str:
        return self.name.lower().replace("_", "-")


CONTEXT_BY_KEY = {c.key: c for c in Context}
#: Context by value, as a tuple: indexing it is ~20x faster than calling Context(value).
CONTEXTS = tuple(Context)

#: What a file in a folder of this context is when no file rule says otherwise.
DEFAULT_CATEGORY = {
    Context.GENERIC: Category.OTHER,
    Context.RUN: Category.OTHER,
    Context.DATASET: Category.DATASET,
    Context.AUGMENTED: Category.AUGMENTED,
    Context.CHECKPOINTS: Category.CHECKPOINT,
    Context.CHECKPOINT_UNIT: Category.CHECKPOINT,
    Context.LOG: Category.LOG,
    Context.DEBUG: Category.DEBUG,
    Context.CACHE: Category.CACHE,
    Context.OTHER: Category.OTHER,
    Context.MODEL: Category.OTHER,
    Context.DUMPS: Category.OTHER,
}

#: The context a subfolder starts from when no folder rule matches it: a run's (or a saved
#: model's) subfolders are plain folders; everything else passes its context down.
INHERITED = {c: (Context.GENERIC if c in (Context.RUN, Context.MODEL) else c) for c in Context}

DEFAULT_DIR_WITHIN = frozenset({Context.GENERIC, Context.RUN, Context.MODEL, Context.DATASET,
                                Context.CHECKPOINTS, Context.LOG})
DEFAULT_FILE_WITHIN = frozenset({Context.GENERIC, Context.RUN, Context.MODEL})
ARTIFACT_KINDS = frozenset({"checkpoint", "run", "dataset", "augmented", "cache", "debug", "log"})

#: File codes beyond the categories: resolved per folder by the classifier.
MEDIA = 7  # images/audio/video: a dataset when many, plots when few
CORE_DUMP = 8  # a file named like a core dump: debug only if its header says ELF core
TRACKER_DB = 9  # an SQLite file: a log only if its schema is an experiment tracker's
SLOW = 255  # in an extension table: look further (prefix, regex, longer suffix)
#: Set on a file's code where only a guess decided it: a rule marked ``weak`` (a suffix that
#: many kinds of file share, such as ``.csv`` or ``.npz``) or no rule at all. What the file
#: is, its name's words and its neighbours may overrule a guess (mlspace.classify.evidence).
WEAK = 0x40
#: Contexts where a file no rule knows is a guess: everywhere a folder's context does not
#: already say what its files are. In a log folder, only containers and formats of no run
#: record are (``best_model.zip`` or MushroomRL's ``agent-1.msh`` in ``logs/`` is a model;
#: its text files and metric arrays are the log they seem).
WEAK_CONTEXTS = frozenset({Context.GENERIC, Context.RUN, Context.MODEL})
CONTAINER_EXTENSIONS = frozenset({"", ".zip", ".pkl", ".pickle", ".joblib", ".bin", ".dat",
                                  ".npz", ".h5", ".hdf5", ".cbm", ".ubj", ".model", ".tar"})
#: What runs write as their records: text, tables, pages, metric arrays, compressed logs.
RECORD_FORMATS = frozenset({".txt", ".log", ".out", ".err", ".json", ".jsonl", ".csv", ".tsv",
                            ".yaml", ".yml", ".md", ".html", ".htm", ".svg", ".xml", ".toml",
                            ".ini", ".cfg", ".npy", ".pb", ".gz", ".txt.gz", ".pdf"})


def guessed_default(ctx: Context, ext: str) -> int:
    """The code of a file no rule knows in ``ctx`` (``ext`` lower case, dot included):
    the context's default, marked WEAK where it is only a guess."""
    default = int(DEFAULT_CATEGORY[ctx])
    if ctx in WEAK_CONTEXTS or (ctx == Context.LOG and (
            ext in CONTAINER_EXTENSIONS or ext not in RECORD_FORMATS)):
        return default | WEAK
    return default


@dataclass(frozen=True)
class DirRule:
    id: str
    context: Context
    names: frozenset[str] = frozenset()
    regex: str | None = None
    markers: frozenset[str] = frozenset()
    parents: frozenset[str] = frozenset()
    within: frozenset[Context] = DEFAULT_DIR_WITHIN
    tool: str | None = None
    artifact: str | None = None
    #: Suffixes of files such a folder never holds: one below it refutes the rule
    #: (mlspace.classify.refuted).
    refuted_by: frozenset[str] = frozenset()


#: What a folder turned out to be from its files' contents and its shape, where no rule
#: named it (mlspace.classify.evidence): the rule recorded for it, for the artifacts.
EVIDENCE_RULES = {
    rule.id: rule for rule in (
        DirRule("evidence-numbered-saves", Context.CHECKPOINT_UNIT, artifact="checkpoint"),
        DirRule("evidence-pointed-saves", Context.CHECKPOINT_UNIT, artifact="checkpoint"),
        DirRule("evidence-shard-cache", Context.CACHE, artifact="cache"),
        DirRule("evidence-loader-cache", Context.CACHE, artifact="cache"),
        DirRule("evidence-digest-cache", Context.CACHE, artifact="cache"),
        DirRule("evidence-shards", Context.DATASET, artifact="dataset"),
        DirRule("evidence-report-site", Context.LOG, artifact="log"),
    )
}


@dataclass(frozen=True)
class FileRule:
    id: str
    code: int  # a Category value (maybe | WEAK), MEDIA, CORE_DUMP or TRACKER_DB
    names: frozenset[str] = frozenset()
    suffixes: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()
    regex: str | None = None
    over_suffixes: frozenset[str] = frozenset()
    within: frozenset[Context] = DEFAULT_FILE_WITHIN


@dataclass(frozen=True)
class FileTable:
    """Everything needed to classify a file name in one context."""

    names: dict[str, int]
    extensions: dict[str, int]  # last extension (lower case) -> code, or SLOW
    long_suffixes: dict[str, int]  # suffixes spanning several dots, lower case
    prefixes: tuple[str, ...]
    prefix_codes: tuple[tuple[str, int, int], ...]  # (prefix, code, rule order)
    regex: re.Pattern[str] | None  # rules without over_suffixes: tried for any unknown name
    hinted_regex: re.Pattern[str] | None  # rules with over_suffixes: tried only for those
    hinted_suffixes: frozenset[str]
    regex_codes: dict[str, tuple[int, int]]  # group name -> (code, rule order)
    #: The order of the earliest regex rule: a prefix rule before it wins without a regex
    #: being tried (TensorBoard's event files, named by host and pid, end in anything).
    first_regex_order: int = sys.maxsize
    #: Nothing but the extension can decide here (no prefix rules, no open regex, no
    #: multi-dot suffixes), so an unknown extension means the context's default.
    closed: bool = False

    @property
    def empty(self) -> bool:
        return not (self.names or self.extensions or self.prefixes or self.regex
                    or self.hinted_regex)


@dataclass
class RuleSet:
    dir_rules: list[DirRule]
    file_rules: list[FileRule]
    warnings: list[str] = field(default_factory=list)

    def compile(self) -> CompiledRules:
        return CompiledRules(self)


class CompiledRules:
    """Folder rules indexed by name, one regex and markers; file tables per context."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.dir_rules = rules.dir_rules + list(EVIDENCE_RULES.values())
        #: The index of each evidence rule in dir_rules, by its id.
        self.evidence = {rule.id: len(rules.dir_rules) + i
                         for i, rule in enumerate(EVIDENCE_RULES.values())}
        self.by_name: dict[str, list[int]] = {}
        self.by_marker: dict[str, list[int]] = {}
        regex_parts = []
        self.regex_rule: dict[str, int] = {}
        for i, rule in enumerate(self.dir_rules):
            if rule.names:
                for name in rule.names:
                    self.by_name.setdefault(name, []).append(i)
            elif rule.regex:
                group = f"d{i}"
                regex_parts.append(f"(?P<{group}>{rule.regex})")
                self.regex_rule[group] = i
            else:
                for marker in rule.markers:
                    self.by_marker.setdefault(marker, []).append(i)
        self.dir_regex = re.compile("|".join(regex_parts)) if regex_parts else None
        self.dir_patterns = {i: re.compile(r.regex) for i, r in enumerate(self.dir_rules)
                             if r.regex}
        self.markers = frozenset(m for rule in self.dir_rules for m in rule.markers)
        self.file_tables = {ctx: _file_table(rules.file_rules, ctx) for ctx in Context}


def _file_table(rules: list[FileRule], ctx: Context) -> FileTable:
    names: dict[str, int] = {}
    extensions: dict[str, int] = {}
    long_suffixes: dict[str, int] = {}
    prefix_codes: list[tuple[str, int, int]] = []
    regex_parts: list[str] = []
    hinted_parts: list[str] = []
    regex_codes: dict[str, tuple[int, int]] = {}
    contested: set[str] = set()
    for order, rule in enumerate(rules):
        if ctx not in rule.within:
            continue
        for name in rule.names:
            names.setdefault(name, rule.code)
        for suffix in rule.suffixes:
            target = long_suffixes if suffix.count(".") > 1 else extensions
            target.setdefault(suffix, rule.code)
            if suffix.count(".") > 1:
                contested.add(suffix[suffix.rfind(".") :])
        prefix_codes.extend((p, rule.code, order) for p in rule.prefixes)
        if rule.regex:
            group = f"f{order}"
            parts = hinted_parts if rule.over_suffixes else regex_parts
            parts.append(f"(?P<{group}>{rule.regex})")
            regex_codes[group] = (rule.code, order)
        contested.update(rule.over_suffixes)
    open_rules = bool(prefix_codes or regex_parts or long_suffixes)
    fast_extensions = {ext: code for ext, code in extensions.items() if ext not in contested}
    fast_extensions.update((ext, SLOW) for ext in contested)
    return FileTable(
        names=names,
        extensions=fast_extensions,
        long_suffixes={**long_suffixes, **{e: c for e, c in extensions.items() if e in contested}},
        prefixes=tuple(p for p, _, _ in prefix_codes),
        prefix_codes=tuple(prefix_codes),
        regex=re.compile("|".join(regex_parts)) if regex_parts else None,
        hinted_regex=re.compile("|".join(hinted_parts)) if hinted_parts else None,
        hinted_suffixes=frozenset(
            s for rule in rules if ctx in rule.within and rule.regex for s in rule.over_suffixes
        ),
        regex_codes=regex_codes,
        first_regex_order=min((order for _, order in regex_codes.values()),
                              default=sys.maxsize),
        closed=not open_rules,
    )
