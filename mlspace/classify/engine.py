"""The classification pass: decide each folder's context once, then give each file a category
with a dict lookup on its name or extension.

Folders are visited in snapshot row order, which puts every parent before its children, so a
folder's context is decided knowing its parent's. Per file the work is one or two dict
lookups; prefixes, regexes and long suffixes are tried only for names whose extension is
unknown or contested.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mlspace.classify.categories import Category
from mlspace.classify.media import (
    SAMPLE_SIZE,
    folder_media_category,
    needs_sample,
    roboflow_variants,
)
from mlspace.classify.names import NameColumns
from mlspace.classify.readers.headers import is_core_dump
from mlspace.classify.rules import (
    CONTEXTS,
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
class FolderVerdicts:
    """Per listed folder: its context and the rule that decided it (-1: inherited)."""

    contexts: np.ndarray  # uint8 per directory row
    dir_rules: np.ndarray  # int16 per directory row


@dataclass(frozen=True)
class Classification(FolderVerdicts):
    """Folder verdicts plus a category for every entry."""

    categories: np.ndarray  # uint8 per entry


class FolderJudge:
    """Decides a folder's context from its name, its parent and the names inside it."""

    def __init__(self, compiled: CompiledRules) -> None:
        self.rules = compiled.dir_rules
        self.by_name = compiled.by_name
        self.by_marker = compiled.by_marker
        self.regex = compiled.dir_regex
        self.regex_rule = compiled.regex_rule
        self.markers = compiled.markers
        self.patterns = compiled.dir_patterns
        self._mentions: dict[tuple[str, frozenset[str]], tuple[tuple[int, ...], bool, bool]] = {}
        self._verdicts: dict[tuple[str, frozenset[str], Context, str], tuple[Context, int]] = {}

    def judge(self, name: str, parent_name: str, parent: Context, present: frozenset[str]
              ) -> tuple[Context, int]:
        """The context of folder ``name`` given its parent and the marker names it holds, and
        the rule that decided it (-1: inherited). Workspaces repeat themselves (checkpoint-500
        in every run), so what mentions a name and each verdict are remembered; a verdict
        depends on the parent's name only when a rule that could decide it names parents."""
        mentioned = self._mentions.get((name, present))
        if mentioned is None:
            mentioned = self._mentions[name, present] = self._mentioning(name, present)
        candidates, regex_matched, by_parent_name = mentioned
        if not candidates:  # most folders: no rule so much as mentions them
            return INHERITED[parent], -1
        key = (name, present, parent, parent_name if by_parent_name else "")
        verdict = self._verdicts.get(key)
        if verdict is None:
            verdict = self._verdicts[key] = self._decide(
                candidates, regex_matched, name, parent_name, parent, present)
        return verdict

    def _mentioning(self, name: str, present: frozenset[str]
                    ) -> tuple[tuple[int, ...], bool, bool]:
        """(rules that mention the folder by name, regex or marker; whether the combined
        regex matched; whether any rule that could decide names parents)."""
        candidates = list(self.by_name.get(name, ()))
        match = self.regex.fullmatch(name) if self.regex is not None else None
        if match is not None:
            candidates.append(self.regex_rule[match.lastgroup or ""])
        for marker in present:
            candidates.extend(self.by_marker.get(marker, ()))
        ordered = tuple(sorted(set(candidates)))
        deciders = [self.rules[i] for i in ordered]
        if match is not None:
            deciders += [self.rules[i] for i in self.patterns]
        return ordered, match is not None, any(rule.parents for rule in deciders)

    def _decide(self, candidates: tuple[int, ...], regex_matched: bool, name: str,
                parent_name: str, parent: Context, present: frozenset[str]
                ) -> tuple[Context, int]:
        for index in candidates:
            if self._applies(index, name, parent_name, parent, present):
                return self.rules[index].context, index
        if regex_matched:
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
    out = bytearray(len(names))
    for i, name in enumerate(names):
        code = names_get(name)
        if code is None:
            dot = name.rfind(".")
            code = ext_get(name[dot:].lower() if dot > 0 else "")
            if code is None:
                # No rule knows this extension (a multi-dot suffix ending in it would have
                # made it SLOW): only a prefix or regex rule can say more.
                code = _rule_code(name, table)
                code = default if code is None else code
            elif code == SLOW:
                code = _slow_code(name, table, default)
        out[i] = code
    return out


def _rule_code(name: str, table: FileTable) -> int | None:
    """What the prefix and regex rules say (the earliest matching rule wins), if anything."""
    best: tuple[int, int] | None = None  # (rule order, code)
    if table.prefixes and name.startswith(table.prefixes):
        for prefix, code, order in table.prefix_codes:
            if name.startswith(prefix):
                best = (order, code)
                break
    for regex in (table.regex, table.hinted_regex):
        if regex is None or (
            regex is table.hinted_regex
            and name[name.rfind("."):].lower() not in table.hinted_suffixes
        ):
            continue
        match = regex.fullmatch(name)
        if match is not None:
            code, order = table.regex_codes[match.lastgroup or ""]
            if best is None or order < best[0]:
                best = (order, code)
    return best[1] if best is not None else None


def _slow_code(name: str, table: FileTable, default: int) -> int:
    """Prefix and regex rules, then the longest known suffix."""
    code = _rule_code(name, table)
    if code is not None:
        return code
    lower = name.lower()
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
    names = NameColumns(snapshot)
    folders = judge_folders(snapshot, compiled, names)
    categories = classify_files(snapshot, compiled, names, folders)
    return Classification(folders.contexts, folders.dir_rules, categories)


def classify_files(snapshot: Snapshot, compiled: CompiledRules, names: NameColumns,
                   folders: FolderVerdicts) -> np.ndarray:
    """A category (uint8) for every entry, given each folder's context."""
    contexts = folders.contexts
    parents = snapshot.all_parent_rows()
    # Roots (parent -1) read the GENERIC appended at the end; works with no folders listed.
    entry_ctx = np.append(contexts, np.uint8(Context.GENERIC))[parents]
    codes = _codes_by_extension(snapshot, compiled, entry_ctx, names)
    _resolve_by_name(snapshot, compiled, entry_ctx, codes)
    _resolve_media(snapshot, contexts, parents, codes)
    for entry in np.flatnonzero(codes == CORE_DUMP):
        dumped = is_core_dump(snapshot.path(int(entry)))
        codes[entry] = Category.DEBUG if dumped else DEFAULT_CATEGORY[CONTEXTS[entry_ctx[entry]]]
    categories = codes.astype(np.uint8)
    _categorise_folders(snapshot, categories, contexts)
    return categories


def judge_folders(snapshot: Snapshot, compiled: CompiledRules, names: NameColumns
                  ) -> FolderVerdicts:
    """Each folder's context and the index of the rule that decided it (-1: inherited)."""
    rows = len(snapshot.dir_entry)
    judge = FolderJudge(compiled)
    present = markers_present(snapshot, compiled.markers, names)
    dir_names = snapshot.names_of(snapshot.dir_entry)
    judged: list[tuple[Context, int]] = [(Context.GENERIC, -1)] * rows
    no_markers: frozenset[str] = frozenset()
    for row, parent_row in enumerate(snapshot.dir_parent.tolist()):
        name = dir_names[row]
        if parent_row < 0:
            name = dir_names[row] = name.rstrip("/").rsplit("/", 1)[-1]
            parent_ctx, parent_name = Context.GENERIC, ""
        else:
            parent_ctx, parent_name = judged[parent_row][0], dir_names[parent_row]
        judged[row] = judge.judge(name, parent_name, parent_ctx, present.get(row, no_markers))
    return FolderVerdicts(np.array([ctx for ctx, _ in judged], dtype=np.uint8),
                          np.array([rule for _, rule in judged], dtype=np.int16))


def markers_present(snapshot: Snapshot, markers: frozenset[str], names: NameColumns
                    ) -> dict[int, frozenset[str]]:
    """For each folder row holding any of ``markers``, which ones (found without decoding
    every folder's children)."""
    wanted = sorted(markers)
    found, which = names.entries_named(wanted)
    present: dict[int, set[str]] = {}
    rows = snapshot.parent_rows_of(found).tolist()
    for row, index in zip(rows, which.tolist(), strict=True):
        if row >= 0:
            present.setdefault(row, set()).add(wanted[index])
    return {row: frozenset(held) for row, held in present.items()}


#: Marks an entry whose code the extension alone cannot give.
_UNDECIDED = -1


def _codes_by_extension(snapshot: Snapshot, compiled: CompiledRules, entry_ctx: np.ndarray,
                        names: NameColumns) -> np.ndarray:
    """Codes from (context, extension) for every entry at once; _UNDECIDED where the name
    itself must be looked at: unknown or contested extensions, names that an exact-name rule
    knows (``metrics.csv`` is a log where ``*.csv`` is data), very long extensions. Folders
    get a placeholder: their category comes from their context."""
    empty = np.array([compiled.file_tables[ctx].empty for ctx in Context])
    groups = names.extension_groups(needed=~empty[entry_ctx] & (snapshot.kind != KIND_DIR))
    # One column per extension, and a last one (read by group -1) for those not worked out.
    table = np.full((len(Context), len(groups.extensions) + 1), _UNDECIDED, dtype=np.int16)
    for ctx in Context:
        file_table = compiled.file_tables[ctx]
        if file_table.empty:
            table[ctx, :] = DEFAULT_CATEGORY[ctx]
            continue
        for column, ext in enumerate(groups.extensions):
            code = file_table.extensions.get(ext.lower())
            if code is None and file_table.closed:
                # Nothing but the extension could decide here, and no rule knows this one.
                table[ctx, column] = DEFAULT_CATEGORY[ctx]
            elif code is not None and code != SLOW:
                table[ctx, column] = code
    codes = table[entry_ctx, groups.group]
    rule_names = sorted({n for t in compiled.file_tables.values() for n in t.names})
    by_name = np.array([[compiled.file_tables[ctx].names.get(n, -1) for n in rule_names]
                        for ctx in Context], dtype=np.int16)
    named, which = names.entries_named(rule_names)
    name_codes = by_name[entry_ctx[named], which]
    # -1: a rule of another context names it; here the extension decides.
    codes[named[name_codes >= 0]] = name_codes[name_codes >= 0]
    codes[snapshot.kind == KIND_DIR] = DEFAULT_CATEGORY[Context.GENERIC]
    return codes


def _resolve_by_name(snapshot: Snapshot, compiled: CompiledRules, entry_ctx: np.ndarray,
                     codes: np.ndarray) -> None:
    """Look at the names the extension could not decide, one by one."""
    undecided = np.flatnonzero(codes == _UNDECIDED)
    for value in np.flatnonzero(np.bincount(entry_ctx[undecided], minlength=len(Context))):
        ctx = CONTEXTS[value]
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
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    counts = np.diff(np.r_[starts, len(media)]).tolist()
    folder_ctx = [CONTEXTS[c] for c in np.append(contexts, Context.GENERIC)[rows[starts]]]
    sampled = [needs_sample(ctx, count) for ctx, count in zip(folder_ctx, counts, strict=True)]
    # The first few names of each folder that needs a look, decoded in one call.
    picks = [media[s : s + SAMPLE_SIZE] for s, need in zip(starts, sampled, strict=True) if need]
    names = iter(snapshot.names_of(np.concatenate(picks)) if picks else [])
    folder_codes = []
    for ctx, count, need in zip(folder_ctx, counts, sampled, strict=True):
        sample = [next(names) for _ in range(min(count, SAMPLE_SIZE))] if need else []
        folder_codes.append(folder_media_category(ctx, count, sample))
    codes[media] = np.repeat(folder_codes, counts)
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
    folders = np.flatnonzero(snapshot.kind == KIND_DIR)
    unlisted = folders[snapshot.rows_of(folders) < 0]
    parents = snapshot.parent_rows_of(unlisted)
    has_parent = parents >= 0
    categories[unlisted[has_parent]] = defaults[inherited[contexts[parents[has_parent]]]]
