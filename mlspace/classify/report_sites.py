"""Rendered report sites: a folder whose ``index.html`` sits beside the site's assets
(``static/``, ``assets/``, ``css/``...) or beside other pages is one report, a run's or a
validation's (a data-validation tool's data docs, a coverage or test report, an HTML
export of an experiment). Every file in it is part of that report: its fonts, icons and
screenshots are no dataset, its pages no profiler trace.

Without this, a report's images land in *datasets* (media are data by default) and its
fonts and styles in *other*. Documentation a project builds (``docs/_build/html``) is left
alone, and so is a folder holding a checkpoint or anything bigger than a page's assets ever
are: the shape must be a site and nothing else.
"""

from __future__ import annotations

import numpy as np

from mlspace.classify.categories import Category
from mlspace.classify.folder_units import make_unit
from mlspace.classify.rules import CONTEXTS, CompiledRules, Context
from mlspace.scan import Snapshot
from mlspace.scan.walker import KIND_DIR

#: The page a site opens on.
SITE_INDEX = frozenset({"index.html", "index.htm"})
#: Folders a site keeps its assets in.
ASSET_FOLDERS = frozenset({"static", "_static", "assets", "css", "js", "styles", "fonts",
                           "lib"})
#: Pages beside the index that make a folder a site of several pages, with no assets folder.
MIN_OTHER_PAGES = 2
#: A site's largest file: an embedded chart or an animated screenshot, never more.
MAX_FILE_BYTES = 64 * 2**20
#: What pages are made of, whatever words their names hold (``model_py.html``).
_PAGE_PARTS = (".html", ".htm", ".css", ".js", ".json", ".svg", ".png", ".jpg", ".gif",
               ".ico", ".woff", ".woff2", ".ttf", ".otf")
#: Folders whose sites are a project's documentation or a package's, not a run's report.
_NOT_REPORTS = frozenset({"docs", "doc", "documentation", "_build", "site-packages",
                          "node_modules"})
#: Contexts a site may be found in: elsewhere (a cache, a checkpoint, a profiler's output)
#: the folder's context already says what its pages are.
_OPEN = frozenset({Context.GENERIC, Context.LOG})


def mark_report_sites(snapshot: Snapshot, categories: np.ndarray, contexts: np.ndarray,
                      dir_rules: np.ndarray, compiled: CompiledRules) -> None:
    """Make each report site one log unit (in place), the outermost where sites nest."""
    rule = compiled.evidence["evidence-report-site"]
    sites: set[int] = set()
    for entry in snapshot.names_containing(b"index.htm").tolist():
        if snapshot.kind[entry] == KIND_DIR or snapshot.name(entry).lower() not in SITE_INDEX:
            continue
        row = snapshot.parent_row(entry)
        if row < 0 or CONTEXTS[contexts[row]] not in _OPEN or _inside(snapshot, row, sites) \
                or not _site_shaped(snapshot, row) or _holds_more(snapshot, row, categories):
            continue
        sites.add(row)
        make_unit(snapshot, row, categories, contexts, dir_rules, rule, Context.LOG)


def _inside(snapshot: Snapshot, row: int, sites: set[int]) -> bool:
    """Whether ``row`` lies in a site already found or in a documentation folder."""
    while row >= 0:
        if row in sites or _name(snapshot, row).lower() in _NOT_REPORTS:
            return True
        row = int(snapshot.dir_parent[row])
    return False


def _name(snapshot: Snapshot, row: int) -> str:
    return snapshot.name(int(snapshot.dir_entry[row]))


def _site_shaped(snapshot: Snapshot, row: int) -> bool:
    """An index beside an assets folder, or beside other pages."""
    first, count = int(snapshot.dir_first[row]), int(snapshot.dir_count[row])
    names = snapshot.child_names(row)
    kinds = snapshot.kind[first:first + count].tolist()
    if any(k == KIND_DIR and n.lower() in ASSET_FOLDERS
           for n, k in zip(names, kinds, strict=True)):
        return True
    pages = sum(1 for n, k in zip(names, kinds, strict=True) if k != KIND_DIR
                and n.lower().endswith((".html", ".htm")) and n.lower() not in SITE_INDEX)
    return pages >= MIN_OTHER_PAGES


def _holds_more(snapshot: Snapshot, row: int, categories: np.ndarray) -> bool:
    """Whether the folder holds what no site does: a checkpoint, or a file too big to be
    a page's asset."""
    top = int(snapshot.dir_entry[row])
    for entry in snapshot.subtree(top):
        if entry != top and snapshot.kind[entry] != KIND_DIR and (
                (categories[entry] == Category.CHECKPOINT
                 and not snapshot.name(entry).lower().endswith(_PAGE_PARTS))
                or int(snapshot.apparent[entry]) > MAX_FILE_BYTES):
            return True
    return False
