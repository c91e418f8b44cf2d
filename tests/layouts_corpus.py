"""The first-contact corpus (issue 27): real output of tools no rule names, as labelled
workspaces, and the checkpoints each tool itself called best or latest.

Each tool has a folder tests/corpus/<set>/<tool>/ (sets: ``dev``, to tune on, ``heldout`` to
``heldout9``, each kept apart for one round and tuned on since, and ``heldout10`` to
``heldout12``, kept apart so that they measure first contact): ``make_fixtures.py`` runs the
tool and writes ``capture.json`` (tests/corpus/capture.py: what the tool wrote, small files
verbatim, big ones as their size with their real first and last bytes) and ``expected.json``
(each file's category as an ML engineer gives it, and per run the best and latest checkpoint
as the tool's own records or return values named them). ``NOTE.md`` says what was run.

Here a capture becomes a Labelled workspace (big files sparse, with their real head and
tail), and a plan made with the most permissive settings the advise layer offers is checked
for suggestions that touch a protected checkpoint: one the tool recorded as best or latest,
or one whose name says best, last, latest, final or top-k.
"""

from __future__ import annotations

import base64
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

from layout_kit import HardLink, Labelled, Link, Sparse

from mlspace.advise import AdviceSettings, Plan, advise
from mlspace.advise.duplicates import find_duplicates
from mlspace.classify import Inventory

CORPUS = Path(__file__).resolve().parent / "corpus"
SETS = ("dev", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7",
        "heldout8", "heldout9", "heldout10", "heldout11", "heldout12")

#: A word in a file or folder name that protects a checkpoint at every risk level (issue 27).
PROTECTED_WORD = re.compile(r"(?i)(?<![a-z])(best|last|latest|final|top-?k|top\d+)(?![a-z])")


@dataclass(frozen=True)
class CorpusTool:
    """One tool's captured output, its labels and its own word on best and latest."""

    folder: Path
    set: str
    about: dict[str, object]  # tool, package, version, kind, command
    layout: Labelled
    checkpoints: tuple[dict[str, object], ...]  # per run: run, best, latest (a path, a
    # list of the files of one checkpoint, or None), evidence

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def recorded(self) -> dict[str, str]:
        """Path (relative) -> why it is protected, for what the tool called best or latest."""
        out: dict[str, str] = {}
        for run in self.checkpoints:
            for role in ("best", "latest"):
                for path in recorded_paths(run, role):
                    out.setdefault(path, f"recorded {role}")
        return out

    def protected(self) -> dict[str, str]:
        """Every protected checkpoint: recorded best and latest, and the checkpoint files
        and folders whose own name carries a protected word."""
        out = dict(self.recorded)
        for path, category in self.layout.labels.items():
            if category != "checkpoint":
                continue
            parts = path.split("/")
            for depth, part in enumerate(parts):
                if PROTECTED_WORD.search(part):
                    out.setdefault("/".join(parts[:depth + 1]), f"named {part!r}")
                    break
        return out


def recorded_paths(run: dict[str, object], role: str) -> list[str]:
    """The paths a run's record names for ``role`` (best or latest): none, one, or the
    files of a checkpoint made of several."""
    named = run.get(role)
    if not named:
        return []
    return [str(p) for p in named] if isinstance(named, list) else [str(named)]


def content_of(entry: dict[str, object]) -> object:
    """The make() content for one captured entry."""
    if "dir" in entry:
        return None
    if "link" in entry:
        return Link(str(entry["link"]))
    if "hardlink" in entry:
        return HardLink(str(entry["hardlink"]))
    if "text" in entry:
        return str(entry["text"]).encode("utf-8")
    if "b64" in entry:
        return base64.b64decode(str(entry["b64"]))
    return Sparse(int(entry["size"]),  # type: ignore[call-overload]
                  base64.b64decode(str(entry["head"])), base64.b64decode(str(entry["tail"])))


def load_tool(folder: Path, set_name: str) -> CorpusTool:
    captured = json.loads((folder / "capture.json").read_text())
    expected = json.loads((folder / "expected.json").read_text())
    entries: dict[str, dict[str, object]] = captured["entries"]
    labels: dict[str, str] = expected["labels"]
    files = {path: (content_of(entry), labels.get(path, "unlabelled"))
             for path, entry in entries.items() if "dir" not in entry}
    layout = Labelled(str(captured.get("tool", folder.name)), files)
    about = {k: v for k, v in captured.items() if k != "entries"}
    return CorpusTool(folder, set_name, about, layout, tuple(expected["checkpoints"]))


def empty_folders(tool: CorpusTool) -> dict[str, None]:
    """The empty folders the tool left (they carry no label, but are part of its tree)."""
    entries = json.loads((tool.folder / "capture.json").read_text())["entries"]
    return {path: None for path, entry in entries.items() if "dir" in entry}


def corpus_tools(set_name: str) -> list[CorpusTool]:
    """Every tool of one set present in this checkout (none when the set is absent)."""
    base = CORPUS / set_name
    if not base.is_dir():
        return []
    return [load_tool(folder, set_name) for folder in sorted(base.iterdir())
            if (folder / "capture.json").is_file()]


def corpus_spec(tool: CorpusTool) -> dict[str, object]:
    """What make() builds for the tool: its files (hard links after what they name) and its
    empty folders."""
    spec = tool.layout.spec
    ordered = {p: c for p, c in spec.items() if not isinstance(c, HardLink)}
    ordered |= {p: c for p, c in spec.items() if isinstance(c, HardLink)}
    return {**ordered, **empty_folders(tool)}


def permissive_settings(inv: Inventory) -> AdviceSettings:
    """The most permissive settings the advise layer takes: no best kept by count, only the
    latest (the least the CLI and the app allow), every series set so by hand (which may
    release a tool's own top-k), every age and size threshold at zero, and a clock ten years
    on."""
    return AdviceSettings(keep_best=0, keep_latest=1,
                          keep_per_series={s.id: (0, 1) for s in inv.series},
                          augmented_min_age_days=0, debug_min_age_days=0, logs_min_age_days=0,
                          logs_min_bytes=0, now=time.time() + 10 * 365 * 86400)


def permissive_plan(inv: Inventory) -> Plan:
    """Every suggestion at every risk level, duplicates of any size included."""
    return advise(inv, permissive_settings(inv), find_duplicates(inv, min_size=1))


@dataclass(frozen=True)
class BadSuggestion:
    tool: str
    policy: str
    risk: str
    item: str  # relative to the workspace
    protected: str  # the protected checkpoint it touches, and why
    title: str
    reason: str  # what the plan tells the user about it


def touching_protected(tool: CorpusTool, root: Path, plan: Plan) -> list[BadSuggestion]:
    """Each suggested path that is, holds or lies inside a protected checkpoint."""
    protected = tool.protected()
    bad = []
    prefix = str(root).rstrip("/") + "/"
    for s in plan.suggestions:
        for item in s.items:
            rel = item.path.removeprefix(prefix)
            for path, why in protected.items():
                if rel == path or path.startswith(rel + "/") or rel.startswith(path + "/"):
                    bad.append(BadSuggestion(tool.name, s.policy, s.risk, rel,
                                             f"{path}: {why}", s.title, s.reason))
                    break
    return bad
