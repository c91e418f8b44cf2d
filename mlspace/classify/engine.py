"""The classification pass: decide each folder's context once, then give each entry a
category from its folder's context and its name, stretch by stretch of a scan.

Per stretch, names are looked at with numpy (mlspace.classify.names): each entry's extension
group meets a (context x extension) table, marker files and exact-name rules are found
byte for byte, and only names that neither can decide go through the rules one by one
(mlspace.classify.name_rules). Media folders are sampled a few names each, and dataset files
are read at their names' ends in numpy: the "_aug<k>" of a copy augmentation wrote beside its
original, the ".rf.<hash>" of a Roboflow export.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mlspace.classify.categories import Category
from mlspace.classify.evidence import EvidenceReport, apply_evidence
from mlspace.classify.folder_judge import FolderJudge
from mlspace.classify.loader_cache import mark_loader_caches
from mlspace.classify.media import (
    SAMPLE_SIZE,
    folder_media_category,
    needs_sample,
    roboflow_variants,
)
from mlspace.classify.name_rules import file_codes
from mlspace.classify.names import ExtensionGroups, NameColumns, NameSet
from mlspace.classify.pointed_saves import mark_numbered_saves, mark_pointed_saves
from mlspace.classify.readers.headers import is_core_dump, is_tracker_db
from mlspace.classify.refuted import refute_folders
from mlspace.classify.report_sites import mark_report_sites
from mlspace.classify.rules import (
    CONTEXTS,
    CORE_DUMP,
    DEFAULT_CATEGORY,
    INHERITED,
    MEDIA,
    SLOW,
    TRACKER_DB,
    WEAK,
    CompiledRules,
    Context,
    FileTable,
    guessed_default,
)
from mlspace.classify.sidecars import mark_sidecars
from mlspace.scan import Snapshot
from mlspace.scan.listing import Listing
from mlspace.scan.walker import KIND_DIR


@dataclass(frozen=True)
class Classification:
    """Per listed folder its context, the rule that decided it (-1: inherited) and its name;
    per entry its category."""

    contexts: np.ndarray  # uint8 per directory row
    dir_rules: np.ndarray  # int16 per directory row
    categories: np.ndarray  # uint8 per entry
    folder_names: tuple[str, ...]  # per directory row ("" for the root "/")
    evidence: EvidenceReport = field(default_factory=EvidenceReport)


def classify_entries(snapshot: Snapshot, compiled: CompiledRules) -> Classification:
    """Categories for every entry; context and matching rule for every listed folder."""
    classifier = EntryClassifier(compiled)
    for listing in snapshot.listings():
        classifier.add(listing)
    return classifier.finish(snapshot)


class EntryClassifier:
    """Classifies a scan's entries stretch by stretch, in entry order: as the scan records
    them (``scan(..., on_listing=classifier.add)``, so the work happens while the workers
    walk) or all at once (classify_entries). finish() completes it for the snapshot.

    A stretch's folders are judged in order, which puts every parent before its children,
    so a folder's context is decided knowing its parent's; then each entry's category comes
    from its folder's context and its name or extension.
    """

    def __init__(self, compiled: CompiledRules) -> None:
        self.compiled = compiled
        self.judge = FolderJudge(compiled)
        self.wanted = _WantedNames(compiled)
        self.by_extension = _ExtensionCodes(compiled)
        self.contexts = bytearray()  # per folder row
        self.rules: list[int] = []  # per folder row
        self.codes = bytearray()  # per entry; CORE_DUMP and TRACKER_DB settled in finish()
        self.folder_names: dict[int, str] = {}  # folder entry -> name
        self.folder_parents: dict[int, int] = {}  # folder entry -> row listing it (-1: root)
        self.row_names: list[str] = []  # per folder row, the folder's name
        self.roboflow_names: dict[int, str] = {}  # entry -> name of Roboflow-style images
        self.marker_sets: dict[tuple[int, ...], frozenset[str]] = {}  # see _markers_by_row
        self.guessing_rows: list[np.ndarray] = []  # rows holding files only guessed at

    def add(self, listing: Listing) -> None:
        if listing.first_entry != len(self.codes) or listing.first_row != len(self.contexts):
            raise ValueError("stretches of a scan must be classified in order")
        names = NameColumns(listing)
        parents = listing.local_parent_rows()
        named, which = names.entries_named(self.wanted.names)
        self._remember_folders(listing, parents)
        markers = self.wanted.is_marker[which]
        self._judge_folders(listing, parents[named[markers]], which[markers])
        # A copy (a view would pin self.contexts, which the next stretch appends to). An
        # entry no folder lists (a scan root) reads the GENERIC appended at the end.
        contexts = np.frombuffer(bytes(self.contexts), dtype=np.uint8)
        entry_ctx = np.append(contexts, np.uint8(Context.GENERIC))[parents]
        codes, groups = _codes_by_extension(listing, entry_ctx, names, self.by_extension)
        # Exact-name file rules, for files; -1 where only another context's rule names it
        # (the extension decides there).
        name_codes = self.wanted.codes[entry_ctx[named], which]
        ruled = (name_codes >= 0) & (listing.kind[named] != KIND_DIR)
        codes[named[ruled]] = name_codes[ruled]
        _resolve_by_name(listing, names, self.compiled, entry_ctx, codes)
        _resolve_media(listing, contexts, parents, codes, self.row_names)
        data, ext_bytes = _dataset_files(codes, groups)
        augmented = names.tagged_before_end(data, ext_bytes, b"_aug", _AUG_DIGITS)
        codes[data[augmented]] = Category.AUGMENTED
        self._note_roboflow(listing, names, data[~augmented], ext_bytes[~augmented])
        guessing = parents[(codes & WEAK) != 0]
        if len(guessing):
            self.guessing_rows.append(np.unique(guessing))
        self.codes += codes.astype(np.uint8).tobytes()

    def finish(self, snapshot: Snapshot) -> Classification:
        """The classification of ``snapshot``, which must be the scan that was fed in."""
        if len(self.codes) != len(snapshot) or len(self.contexts) != len(snapshot.dir_entry):
            raise ValueError("this classifier was not fed the whole of this snapshot")
        contexts = np.frombuffer(bytes(self.contexts), dtype=np.uint8).copy()
        rules = np.array(self.rules, dtype=np.int16)
        categories = np.frombuffer(self.codes, dtype=np.uint8).copy()
        judged_again = refute_folders(snapshot, categories, contexts, rules, self.compiled)
        guessed = (categories & WEAK) != 0
        if judged_again:
            self.guessing_rows.append(np.asarray(judged_again, dtype=np.int64))
        categories &= np.uint8(~WEAK & 0xFF)
        for code, (is_it, category) in _BY_HEADER.items():
            for entry in np.flatnonzero(categories == code).tolist():
                row = snapshot.parent_row(entry)
                ctx = CONTEXTS[contexts[row]] if row >= 0 else Context.GENERIC
                categories[entry] = category if is_it(snapshot.path(entry)) \
                    else DEFAULT_CATEGORY[ctx]
        categories[roboflow_variants(self.roboflow_names)] = Category.AUGMENTED
        report = EvidenceReport()
        if self.guessing_rows:
            report = apply_evidence(snapshot, categories, guessed, contexts, rules,
                                    self.compiled, np.concatenate(self.guessing_rows))
        mark_pointed_saves(snapshot, categories, contexts, rules, self.compiled)
        mark_numbered_saves(snapshot, categories, contexts, rules, self.compiled)
        mark_loader_caches(snapshot, categories, contexts, rules, self.compiled, self.row_names)
        mark_report_sites(snapshot, categories, contexts, rules, self.compiled)
        mark_sidecars(snapshot, categories, contexts)
        _categorise_folders(snapshot, categories, contexts)
        return Classification(contexts, rules, categories, tuple(self.row_names), report)

    def _note_roboflow(self, listing: Listing, names: NameColumns, images: np.ndarray,
                       ext_bytes: np.ndarray) -> None:
        """Dataset images named like Roboflow's exports, "<stem>.rf.<32 hex>.<ext>": which of
        them are augmented variants is decided in finish(), across the whole scan. ".rf." sits
        at a fixed distance from the end of such a name, so only those names are decoded."""
        images = images[names.bytes_before_end(images, ext_bytes + _ROBOFLOW_TAIL, b".rf.")]
        self.roboflow_names.update(zip((images + listing.first_entry).tolist(),
                                       listing.names_of(images), strict=True))

    def _remember_folders(self, listing: Listing, parents: np.ndarray) -> None:
        """Names and listing rows of the stretch's folders: later stretches list them."""
        local = np.flatnonzero(listing.kind == KIND_DIR)
        for entry, name, parent in zip((local + listing.first_entry).tolist(),
                                       listing.names_of(local), parents[local].tolist(),
                                       strict=True):
            if parent < 0:  # a scan root is named by its path ("" for "/")
                name = os.path.basename(os.path.normpath(name))
            self.folder_names[entry] = name
            self.folder_parents[entry] = parent

    def _judge_folders(self, listing: Listing, marker_rows: np.ndarray, markers: np.ndarray
                       ) -> None:
        """Judge the stretch's folders, given the markers found in it (the row holding each,
        in order, and which of self.wanted.names it is)."""
        present = self._markers_by_row(marker_rows, markers)
        no_markers: frozenset[str] = frozenset()
        judge, names, parents = self.judge.judge, self.folder_names, self.folder_parents
        contexts, row_names = self.contexts, self.row_names
        for row, entry in enumerate(listing.dir_entry.tolist(), start=listing.first_row):
            name, parent_row = names[entry], parents[entry]
            if parent_row < 0:
                parent_ctx, parent_name = Context.GENERIC, ""
            else:
                parent_ctx, parent_name = CONTEXTS[contexts[parent_row]], row_names[parent_row]
            context, rule = judge(name, parent_name, parent_ctx, present.get(row, no_markers))
            contexts.append(context)
            self.rules.append(rule)
            row_names.append(name)

    def _markers_by_row(self, marker_rows: np.ndarray, markers: np.ndarray
                        ) -> dict[int, frozenset[str]]:
        """The marker names each folder row holds. Rows come in runs (a folder's children
        are contiguous), and folders of one tool hold the same few markers, so each run's
        set is made once per distinct combination."""
        if not len(marker_rows):
            return {}
        starts = np.flatnonzero(np.r_[True, marker_rows[1:] != marker_rows[:-1]])
        ends = np.r_[starts[1:], len(marker_rows)].tolist()
        indices = markers.tolist()
        present = {}
        for row, start, end in zip(marker_rows[starts].tolist(), starts.tolist(), ends,
                                   strict=True):
            if row >= 0:
                held = tuple(indices[start:end])
                marker_set = self.marker_sets.get(held)
                if marker_set is None:
                    all_names = self.wanted.names.names
                    marker_set = self.marker_sets[held] = frozenset(all_names[i] for i in held)
                present[row] = marker_set
        return present


class _WantedNames:
    """The names looked for in every stretch, as one NameSet: marker files of folder rules
    and the names of exact-name file rules, with each one's code per context (-1: none)."""

    def __init__(self, compiled: CompiledRules) -> None:
        rule_names = {n for t in compiled.file_tables.values() for n in t.names}
        self.names = NameSet(sorted(compiled.markers | rule_names))
        self.is_marker = np.array([n in compiled.markers for n in self.names.names], dtype=bool)
        self.codes = np.array(
            [[compiled.file_tables[ctx].names.get(n, -1) for n in self.names.names]
             for ctx in Context], dtype=np.int16).reshape(len(Context), len(self.names.names))


#: Names only a file's header can settle, settled in finish(): what the header reader
#: says, and the category of a file it recognises (else its folder's default).
_BY_HEADER: dict[int, tuple[Callable[[str], bool], Category]] = {
    CORE_DUMP: (is_core_dump, Category.DEBUG),
    TRACKER_DB: (is_tracker_db, Category.LOG),
}
#: Bytes from ".rf." to the extension's dot in a Roboflow export name: ".rf." + 32 hex.
_ROBOFLOW_TAIL = 36
#: Copies augmentation wrote beside the originals are named "<stem>_aug<k>.<ext>", k up to this
#: many digits.
_AUG_DIGITS = 3
#: Marks an entry whose code the extension alone cannot give.
_UNDECIDED = -1


class _ExtensionCodes:
    """What the extension alone says in each context, worked out once per extension:
    a Category value or pseudo-code, or _UNDECIDED where the name must be looked at."""

    def __init__(self, compiled: CompiledRules) -> None:
        self.compiled = compiled
        self.known: dict[str, list[int]] = {}
        # Per context: whether no file rule applies there (the extension then never matters).
        self.empty = np.array([compiled.file_tables[c].empty for c in Context])
        self.unknown = [DEFAULT_CATEGORY[c] if self.empty[c] else _UNDECIDED
                        for c in Context]  # for entries whose extension was not worked out

    def column(self, ext: str) -> list[int]:
        codes = self.known.get(ext)
        if codes is None:
            codes = self.known[ext] = [self._code(ctx, ext.lower()) for ctx in Context]
        return codes

    def _code(self, ctx: Context, ext: str) -> int:
        file_table = self.compiled.file_tables[ctx]
        code = file_table.extensions.get(ext)
        if file_table.empty:
            return DEFAULT_CATEGORY[ctx]
        if code is None and file_table.closed:
            # Nothing but the extension could decide here, and no rule knows this one.
            return guessed_default(ctx, ext)
        return _UNDECIDED if code is None or code == SLOW else code


def _codes_by_extension(listing: Listing, entry_ctx: np.ndarray, names: NameColumns,
                        by_extension: _ExtensionCodes
                        ) -> tuple[np.ndarray, ExtensionGroups]:
    """Codes from (context, extension) for every entry at once; _UNDECIDED where the name
    itself must be looked at: unknown or contested extensions, very long extensions.
    Folders get a placeholder: their category comes from their context."""
    is_dir = listing.kind == KIND_DIR
    groups = names.extension_groups(needed=~by_extension.empty[entry_ctx] & ~is_dir)
    # One column per extension, and a last one (read by group -1) for those not worked out.
    columns = [by_extension.column(ext) for ext in groups.extensions] + [by_extension.unknown]
    table = np.array(columns, dtype=np.int16).T
    codes = table[entry_ctx, groups.group]
    codes[is_dir] = DEFAULT_CATEGORY[Context.GENERIC]
    return codes, groups


def _resolve_by_name(listing: Listing, names: NameColumns, compiled: CompiledRules,
                     entry_ctx: np.ndarray, codes: np.ndarray) -> None:
    """Look at the names the extension could not decide: by prefix in numpy where a prefix
    rule settles it, the rest one by one."""
    undecided = np.flatnonzero(codes == _UNDECIDED)
    for value in np.flatnonzero(np.bincount(entry_ctx[undecided], minlength=len(Context))):
        ctx = CONTEXTS[value]
        table = compiled.file_tables[ctx]
        entries = _resolve_by_prefix(names, table, undecided[entry_ctx[undecided] == ctx],
                                     codes)
        found = file_codes(listing.names_of(entries), table, ctx)
        codes[entries] = np.frombuffer(found, dtype=np.uint8)


#: Fewer undecided names than this are simply decoded.
_PREFIX_SEARCH_FROM = 64


def _resolve_by_prefix(names: NameColumns, table: FileTable, entries: np.ndarray,
                       codes: np.ndarray) -> np.ndarray:
    """Give names that start with a prefix rule's prefix that rule's code, where it comes
    before every pattern rule: exactly what file_codes would say (the first prefix that
    fits wins), without decoding them. A TensorBoard run keeps an event file per restart
    and rank. Returns the entries still undecided."""
    if not table.prefix_codes or len(entries) < _PREFIX_SEARCH_FROM:
        return entries
    unmatched = np.ones(len(entries), dtype=bool)
    for prefix, code, order in table.prefix_codes:
        hit = np.flatnonzero(unmatched)
        hit = hit[names.starting_with(entries[hit], prefix.encode("utf-8", "surrogateescape"))]
        unmatched[hit] = False
        if order < table.first_regex_order:
            codes[entries[hit]] = code
    return entries[codes[entries] == _UNDECIDED]


def _dataset_files(codes: np.ndarray, groups: ExtensionGroups) -> tuple[np.ndarray, np.ndarray]:
    """The entries that are dataset files so far, and the bytes of each one's extension (dot
    included; 0 where none was worked out, so that no test at the name's end is fooled)."""
    data = np.flatnonzero((codes >= 0) & ((codes & ~WEAK) == Category.DATASET))
    known = groups.group[data] >= 0
    data = data[known]
    ext_bytes = np.array([len(e.encode("utf-8", "surrogateescape"))
                          for e in groups.extensions] + [0])[groups.group[data]]
    return data, ext_bytes


def _resolve_media(listing: Listing, contexts: np.ndarray, parents: np.ndarray,
                   codes: np.ndarray, row_names: list[str]) -> None:
    """Images and audio, folder by folder (media.folder_media_category), given each folder
    row's name."""
    media = np.flatnonzero(codes == MEDIA)
    if not len(media):
        return
    rows = parents[media]  # a folder's children are contiguous, so rows come in runs
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    counts = np.diff(np.r_[starts, len(media)])
    folder_ctx = [CONTEXTS[c] for c in
                  np.append(contexts, np.uint8(Context.GENERIC))[rows[starts]].tolist()]
    counted = counts.tolist()
    sampled = np.array([needs_sample(ctx, n) for ctx, n in zip(folder_ctx, counted, strict=True)],
                       dtype=bool)
    # The first few names of each folder that needs a look, decoded in one call.
    take = np.where(sampled, np.minimum(counts, SAMPLE_SIZE), 0)
    first_taken = np.cumsum(take) - take
    picks = np.repeat(starts - first_taken, take) + np.arange(int(take.sum()))
    names = listing.names_of(media[picks])
    folder_codes = [
        folder_media_category(ctx, n, names[at : at + k], row_names[row] if row >= 0 else "")
        for ctx, n, at, k, row in zip(folder_ctx, counted, first_taken.tolist(), take.tolist(),
                                      rows[starts].tolist(), strict=True)
    ]
    codes[media] = np.repeat(np.array(folder_codes, dtype=np.int16), counts)


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
