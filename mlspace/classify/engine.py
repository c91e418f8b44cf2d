"""The classification pass: decide each folder's context once, then give each file a category
with a dict lookup on its name or extension.

Folders are visited in snapshot row order, which puts every parent before its children, so a
folder's context is decided knowing its parent's. Per file the work is one or two dict
lookups; prefixes, regexes and long suffixes are tried only for names whose extension is
unknown or contested.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from mlspace.classify.categories import Category
from mlspace.classify.extensions import extension_keys, key_text
from mlspace.classify.media import folder_media_category, needs_sample, roboflow_variants
from mlspace.classify.readers.headers import is_core_dump
from mlspace.classify.rules import (
    CORE_DUMP,
    DEFAULT_CATEGORY,
    INHERITED,
    MEDIA,
    SLOW,
    CompiledRules,
    Context,
    FileTable,
)
from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_DIR


@dataclass(frozen=True)
class Classification:
    """Per-entry categories and per-folder contexts and matching rules (-1: none)."""

    categories: np.ndarray  # uint8 per entry
    contexts: np.ndarray  # uint8 per directory row
    dir_rules: np.ndarray  # int16 per directory row


class FolderJudge:
    """Decides a folder's context from its name, its parent and the names inside it."""

    def __init__(self, compiled: CompiledRules) -> None:
        self.rules = compiled.dir_rules
        self.by_name = compiled.by_name
        self.by_marker = compiled.by_marker
        self.regex = compiled.dir_regex
        self.regex_rule = compiled.regex_rule
        self.markers = compiled.markers
        self.patterns = {i: re.compile(r.regex) for i, r in enumerate(self.rules) if r.regex}

    def judge(self, name: str, parent_name: str, parent: Context, children: list[str]
              ) -> tuple[Context, int]:
        candidates = list(self.by_name.get(name, ()))
        match = self.regex.fullmatch(name) if self.regex is not None else None
        if match is not None:
            candidates.append(self.regex_rule[match.lastgroup or ""])
        present = self.markers.intersection(children) if self.markers else frozenset()
        for marker in present:
            candidates.extend(self.by_marker.get(marker, ()))
        for index in sorted(set(candidates)):
            if self._applies(index, name, parent_name, parent, present):
                return self.rules[index].context, index
        if match is not None:
            # The combined regex reports only its first matching alternative; a later regex
            # rule may match too and fit where the first one did not.
            for index, pattern in self.patterns.items():
                if pattern.fullmatch(name) and self._applies(
                    index, name, parent_name, parent, present
                ):
                    return self.rules[index].context, index
        return INHERITED[parent], -1

    def _applies(self, index: int, name: str, parent_name: str, parent: Context,
                 present: frozenset[str]) -> bool:
        rule = self.rules[index]
        return (
            parent in rule.within
            and (not rule.parents or parent_name in rule.parents)
            and (not rule.markers or not rule.markers.isdisjoint(present))
            and (not rule.names or name in rule.names)
            and (not rule.regex or self.patterns[index].fullmatch(name) is not None)
        )


def file_codes(names: list[str], table: FileTable, default: int) -> bytearray:
    """A code per name: a Category value, or MEDIA / CORE_DUMP to be resolved per folder."""
    if table.empty:
        return bytearray([default]) * len(names)
    names_get = table.names.get
    ext_get = table.extensions.get
    learned = table.learned
    out = bytearray(len(names))
    for i, name in enumerate(names):
        code = names_get(name)
        if code is None:
            dot = name.rfind(".")
            ext = name[dot:] if dot > 0 else ""
            code = ext_get(ext)
            if code is None and learned is not None:
                code = learned.get(ext)
                if code is None:
                    code = learned[ext] = _slow_code(name, table, default)
            elif code is None or code == SLOW:
                code = _slow_code(name, table, default)
        out[i] = code
    return out


def _slow_code(name: str, table: FileTable, default: int) -> int:
    """Prefix and regex rules (earliest rule wins), then the longest known suffix."""
    best: tuple[int, int] | None = None  # (rule order, code)
    if table.prefixes and name.startswith(table.prefixes):
        for prefix, code, order in table.prefix_codes:
            if name.startswith(prefix):
                best = (order, code)
                break
    lower = name.lower()
    last_dot = lower.rfind(".")
    for regex in (table.regex, table.hinted_regex):
        if regex is None or (
            regex is table.hinted_regex and lower[last_dot:] not in table.hinted_suffixes
        ):
            continue
        match = regex.fullmatch(name)
        if match is not None:
            code, order = table.regex_codes[match.lastgroup or ""]
            if best is None or order < best[0]:
                best = (order, code)
    if best is not None:
        return best[1]
    if last_dot <= 0:
        return default
    dot = lower.find(".", 1)
    while dot > 0:
        suffix = lower[dot:]
        code = table.long_suffixes.get(suffix)
        if code is None and "." not in suffix[1:]:
            code = table.extensions.get(suffix)
        if code is not None and code != SLOW:
            return code
        dot = lower.find(".", dot + 1)
    return default


def classify_entries(snapshot: Snapshot, compiled: CompiledRules) -> Classification:
    """Categories for every entry; context and matching rule for every listed folder."""
    contexts, rule_of = judge_folders(snapshot, compiled)
    parents = snapshot.parent_rows_of(np.arange(len(snapshot)))
    # Roots (parent -1) read the GENERIC appended at the end; works with no folders listed.
    entry_ctx = np.append(contexts, np.uint8(Context.GENERIC))[parents]
    codes = _codes_by_extension(snapshot, compiled, entry_ctx)
    _resolve_by_name(snapshot, compiled, entry_ctx, codes)
    _resolve_media(snapshot, contexts, parents, codes)
    for entry in np.flatnonzero(codes == CORE_DUMP):
        dumped = is_core_dump(snapshot.path(int(entry)))
        codes[entry] = Category.DEBUG if dumped else DEFAULT_CATEGORY[Context(entry_ctx[entry])]
    categories = codes.astype(np.uint8)
    _categorise_folders(snapshot, categories, contexts)
    return Classification(categories, contexts, rule_of)


def judge_folders(snapshot: Snapshot, compiled: CompiledRules) -> tuple[np.ndarray, np.ndarray]:
    """Each folder's context and the index of the rule that decided it (-1: inherited)."""
    rows = len(snapshot.dir_entry)
    contexts = np.zeros(rows, dtype=np.uint8)
    rule_of = np.full(rows, -1, dtype=np.int16)
    judge = FolderJudge(compiled)
    dir_names: list[str] = [""] * rows
    for row in range(rows):
        entry = int(snapshot.dir_entry[row])
        parent_row = int(snapshot.dir_parent[row])
        name = snapshot.name(entry)
        if parent_row < 0:
            name = name.rstrip("/").rsplit("/", 1)[-1]
            parent_ctx, parent_name = Context.GENERIC, ""
        else:
            parent_ctx, parent_name = Context(contexts[parent_row]), dir_names[parent_row]
        dir_names[row] = name
        children = snapshot.child_names(row) if judge.markers else []
        contexts[row], rule_of[row] = judge.judge(name, parent_name, parent_ctx, children)
    return contexts, rule_of


#: Marks an entry whose code the extension alone cannot give.
_UNDECIDED = -1


def _codes_by_extension(snapshot: Snapshot, compiled: CompiledRules, entry_ctx: np.ndarray
                        ) -> np.ndarray:
    """Codes from (context, extension) for every entry at once; _UNDECIDED where the name
    itself must be looked at: unknown or contested extensions, extensions that an exact-name
    rule also uses (``metrics.csv`` is a log where ``*.csv`` is data), long extensions."""
    keys, too_long = extension_keys(snapshot)
    unique, inverse = np.unique(keys, return_inverse=True)
    table = np.full((len(Context), len(unique)), _UNDECIDED, dtype=np.int16)
    for ctx in Context:
        file_table = compiled.file_tables[ctx]
        name_exts = {_extension_of(n) for n in file_table.names}
        for u, key in enumerate(unique):
            ext = key_text(key)
            if ext in name_exts:
                continue
            code = file_table.extensions.get(ext)
            if file_table.empty or (code is None and file_table.learned is not None):
                # Nothing but the extension could decide here, and no rule knows this one.
                table[ctx, u] = DEFAULT_CATEGORY[ctx]
            elif code is not None and code != SLOW:
                table[ctx, u] = code
    codes = table[entry_ctx, inverse.reshape(-1)]
    codes[too_long] = _UNDECIDED
    return codes


def _extension_of(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def _resolve_by_name(snapshot: Snapshot, compiled: CompiledRules, entry_ctx: np.ndarray,
                     codes: np.ndarray) -> None:
    """Look at the names the extension could not decide, one by one."""
    undecided = np.flatnonzero(codes == _UNDECIDED)
    for ctx in np.unique(entry_ctx[undecided]):
        ctx = Context(int(ctx))
        entries = undecided[entry_ctx[undecided] == ctx]
        names = snapshot.names_of(entries)
        found = file_codes(names, compiled.file_tables[ctx], int(DEFAULT_CATEGORY[ctx]))
        codes[entries] = np.frombuffer(found, dtype=np.uint8)


def _resolve_media(snapshot: Snapshot, contexts: np.ndarray, parents: np.ndarray,
                   codes: np.ndarray) -> None:
    """Images and audio, folder by folder (media.folder_media_category), then Roboflow's
    augmented variants, found by the ".rf." in their names without a per-file loop."""
    media = np.flatnonzero(codes == MEDIA)
    if not len(media):
        return
    rows = parents[media]  # a folder's children are contiguous, so rows come in runs
    bounds = np.flatnonzero(np.diff(rows)) + 1
    for members, row in zip(np.split(media, bounds), rows[np.r_[0, bounds]], strict=True):
        ctx = Context(int(contexts[row])) if row >= 0 else Context.GENERIC
        sample = snapshot.names_of(members[:8]) if needs_sample(ctx, len(members)) else []
        codes[members] = folder_media_category(ctx, len(members), sample)
    roboflow = snapshot.names_containing(b".rf.")
    roboflow = roboflow[codes[roboflow] == Category.DATASET]
    if len(roboflow):
        names = dict(zip(roboflow.tolist(), snapshot.names_of(roboflow), strict=True))
        codes[roboflow_variants(names)] = Category.AUGMENTED


def _categorise_folders(snapshot: Snapshot, categories: np.ndarray, contexts: np.ndarray) -> None:
    """A listed folder takes its context's category; a folder that could not be listed (or
    was not entered) takes what its parent passes down."""
    defaults = np.array([DEFAULT_CATEGORY[c] for c in Context], dtype=np.uint8)
    inherited = np.array([INHERITED[c] for c in Context], dtype=np.uint8)
    categories[snapshot.dir_entry] = defaults[contexts]
    unlisted = np.flatnonzero(snapshot.kind == KIND_DIR)
    unlisted = unlisted[np.isin(unlisted, snapshot.dir_entry, invert=True)]
    parents = snapshot.parent_rows_of(unlisted)
    has_parent = parents >= 0
    categories[unlisted[has_parent]] = defaults[inherited[contexts[parents[has_parent]]]]
