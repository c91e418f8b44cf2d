"""How often mlspace puts a file in the category an ML engineer gives it (issues 13 and 27),
judged the way a disk tool is: by files and by bytes, in sample and at first contact.

    python benchmarks/bench_accuracy.py [--dir /tmp/mlspace-accuracy] [--wrong] [--markdown]

In sample: every labelled workspace of tests/layouts.py (LABELLED: the tools' own layouts
the rules were written against, real file names and records, weights and data at real
sizes as sparse files). First contact: the corpus of tests/corpus (tests/layouts_corpus.py:
real output of tools no rule names, captured from the tools themselves), its ``dev`` set
(to tune on), its ``heldout`` to ``heldout9`` sets (each held out for one round, tuned
on since) and its ``heldout10`` to ``heldout12`` sets (the tools nobody has tuned on),
each when present.

Each workspace is built, scanned and classified, and the accuracy by files and by bytes
(each file's length) printed per workspace, then per set the per-category precision,
recall and F1, by files and by bytes. For the corpus it also lists every suggestion, at
any risk level, of a plan made with the most permissive settings the advise layer takes
(layouts_corpus.permissive_plan) that touches a checkpoint the tool recorded as best or
latest, or named so (best, last, latest, final, top-k). With --wrong it lists every
misplaced file; with --markdown it prints Markdown tables (benchmarks/first_contact_baseline.md).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from layout_kit import make  # noqa: E402
from layouts import LABELLED, Verdict, accuracy, inventory_of, judge, score  # noqa: E402
from layouts_corpus import (  # noqa: E402
    SETS,
    BadSuggestion,
    corpus_spec,
    corpus_tools,
    permissive_plan,
    touching_protected,
)

from mlspace.classify import ORDER  # noqa: E402


def f1_table(verdicts: list[Verdict], weight: Callable[[Verdict], int]) -> list[tuple]:
    """(category, support, precision, recall, F1) per category, ``weight`` counting each file
    (1 for files, its size for bytes)."""
    rows = []
    for category in (c.id for c in ORDER):
        truth = sum(weight(v) for v in verdicts if v.expected == category)
        said = sum(weight(v) for v in verdicts if v.got == category)
        right = sum(weight(v) for v in verdicts if v.expected == category == v.got)
        if not truth and not said:
            continue
        precision = right / said if said else 0.0
        recall = right / truth if truth else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        rows.append((category, truth, precision, recall, f1))
    return rows


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"  # pragma: no cover


class Table:
    """Rows printed as aligned text, or as a Markdown table."""

    def __init__(self, markdown: bool) -> None:
        self.markdown = markdown

    def print(self, header: Sequence[str], rows: list[Sequence[object]]) -> None:
        cells = [[str(c) for c in header], *([str(c) for c in row] for row in rows)]
        if self.markdown:
            numeric = [all(row[i][:1].isdigit() for row in cells[1:]) for i in range(len(header))]
            print("| " + " | ".join(cells[0]) + " |")
            print("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
            for row in cells[1:]:
                print("| " + " | ".join(row) + " |")
            print()
            return
        widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
        for row in cells:
            print("  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                   for i, (c, w) in enumerate(zip(row, widths, strict=True))))
        print()

    def heading(self, text: str, level: int = 2) -> None:
        print(f"{'#' * level} {text}\n" if self.markdown else f"\n=== {text}\n")


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def print_totals(table: Table, verdicts: list[Verdict],
                 per_tool: list[list[Verdict]] | None = None) -> None:
    """Accuracy over a set (and, given ``per_tool``, the mean of the tools' accuracies, which
    one tool's big files cannot sway), then per-category F1 by files and by bytes."""
    print(f"all: {len(verdicts)} files, {_size(sum(v.size for v in verdicts))}; by files "
          f"{_pct(accuracy(verdicts))}, by bytes {_pct(accuracy(verdicts, by_bytes=True))}\n")
    if per_tool:
        files = sum(accuracy(v) for v in per_tool) / len(per_tool)
        size = sum(accuracy(v, by_bytes=True) for v in per_tool) / len(per_tool)
        print(f"mean over the {len(per_tool)} tools: by files {_pct(files)}, by bytes "
              f"{_pct(size)}\n")
    for title, weight, show in (("by files", lambda v: 1, str),
                                ("by bytes", lambda v: v.size, _size)):
        print(f"per category, {title}:\n")
        table.print(("category", "support", "precision", "recall", "F1"),
                    [(c, show(s), f"{p:.3f}", f"{r:.3f}", f"{f:.3f}")
                     for c, s, p, r, f in f1_table(verdicts, weight)])


def _wrong(verdicts: list[Verdict]) -> None:
    for v in verdicts:
        if v.expected != v.got:
            print(f"    {v.path}: {v.got}, should be {v.expected} ({_size(v.size)})")


def in_sample(base: Path, table: Table, wrong: bool) -> None:
    table.heading("In sample: the labelled layouts the rules were written against")
    everything: list[Verdict] = []
    rows = []
    for index, build in enumerate(LABELLED):
        layout = build()
        # A neutral root: a scan root is judged by its name too ("debug", "processed").
        verdicts = score(layout, base / f"ws{index:02d}")
        everything += verdicts
        rows.append((layout.name, len(verdicts), _pct(accuracy(verdicts)),
                     _pct(accuracy(verdicts, by_bytes=True))))
        if wrong:
            print(layout.name)
            _wrong(verdicts)
    table.print(("workspace", "files", "by files", "by bytes"), rows)
    print_totals(table, everything)


def first_contact(base: Path, set_name: str, table: Table, wrong: bool
                  ) -> tuple[list[list[Verdict]], list[BadSuggestion]]:
    """One corpus set: per tool accuracy and bad suggestions, then its totals."""
    tools = corpus_tools(set_name)
    if not tools:
        return [], []
    table.heading(f"First contact: {set_name} (tests/corpus/{set_name}, {len(tools)} tools)")
    per_tool: list[list[Verdict]] = []
    bad: list[BadSuggestion] = []
    rows = []
    for tool in tools:
        root = base / set_name / tool.name
        inv = inventory_of(make(root, corpus_spec(tool)))
        verdicts = judge(tool.layout, root, inv)
        touching = touching_protected(tool, root, permissive_plan(inv))
        per_tool.append(verdicts)
        bad += touching
        rows.append((f"{tool.about['tool']} {tool.about['version']}", tool.about["kind"],
                     len(verdicts), _size(sum(v.size for v in verdicts)),
                     _pct(accuracy(verdicts)), _pct(accuracy(verdicts, by_bytes=True)),
                     len(touching)))
        if wrong:
            print(tool.name)
            _wrong(verdicts)
    table.print(("tool", "kind", "files", "bytes", "by files", "by bytes",
                 "bad suggestions"), rows)
    print_totals(table, [v for verdicts in per_tool for v in verdicts], per_tool)
    print_bad(table, bad)
    return per_tool, bad


def print_bad(table: Table, bad: list[BadSuggestion]) -> None:
    print(f"suggestions touching a protected checkpoint: {len(bad)}\n")
    if bad:
        table.print(("tool", "policy", "risk", "suggested path", "protected checkpoint"),
                    [(b.tool, b.policy, b.risk, b.item, b.protected) for b in bad])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--dir", type=Path, default=None,
                        help="where to build (default: a temp dir)")
    parser.add_argument("--wrong", action="store_true", help="list every misplaced file")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = parser.parse_args()
    table = Table(args.markdown)
    base = Path(tempfile.mkdtemp(prefix="mlspace-accuracy-", dir=args.dir))
    try:
        in_sample(base / "in-sample", table, args.wrong)
        results = [first_contact(base / "corpus", name, table, args.wrong) for name in SETS]
    finally:
        shutil.rmtree(base, ignore_errors=True)
    present = [r for r in results if r[0]]
    if len(present) > 1:
        table.heading("First contact: all corpus sets")
        tools = [verdicts for per_tool, _ in present for verdicts in per_tool]
        print_totals(table, [v for verdicts in tools for v in verdicts], tools)
        print_bad(table, [b for _, bad in present for b in bad])


if __name__ == "__main__":
    main()
