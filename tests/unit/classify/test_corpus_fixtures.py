"""The first-contact corpus (tests/corpus, issue 27) builds, and is what it claims: every
file the tool wrote is labelled with a category, every big file is rebuilt at its real size
with its real first and last bytes, and the best and latest checkpoints the tool named exist
and are labelled checkpoints. Then what the classifier must hold on it: on the tuning sets,
right, and no suggestion that touches a recorded or named best or latest; on the sets
measured at first contact since (heldout4 to heldout12), no worse than they were, and no
suggestion touching a best unless the plan says it cannot tell which is best. Issue 27's
target there (95%) is measured by benchmarks/bench_accuracy.py, not asserted: it is not met
(docs/recognition.md)."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest
from layout_kit import Sparse, make
from layouts import accuracy, inventory_of, judge
from layouts_corpus import (
    SETS,
    CorpusTool,
    corpus_spec,
    corpus_tools,
    permissive_plan,
    recorded_paths,
    touching_protected,
)

from mlspace.classify import ORDER

TOOLS = [tool for name in SETS for tool in corpus_tools(name)]
CATEGORIES = {c.id for c in ORDER}


def test_the_corpus_is_there() -> None:
    assert len(corpus_tools("dev")) >= 4


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: f"{t.set}/{t.name}")
def test_every_file_is_labelled_and_says_how_it_was_made(tool: CorpusTool) -> None:
    expected = json.loads((tool.folder / "expected.json").read_text())
    assert expected["labels"].keys() == tool.layout.spec.keys()
    assert set(tool.layout.labels.values()) <= CATEGORIES
    assert {"tool", "package", "version", "kind", "command"} <= tool.about.keys()
    assert (tool.folder / "make_fixtures.py").is_file() and (tool.folder / "NOTE.md").is_file()


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: f"{t.set}/{t.name}")
def test_recorded_best_and_latest_are_labelled_checkpoints(tool: CorpusTool) -> None:
    labels = tool.layout.labels  # a tool that writes no checkpoint (a profiler) lists none,
    # or lists its runs with neither (null), saying why
    for run in tool.checkpoints:
        named = recorded_paths(run, "best") + recorded_paths(run, "latest")
        assert run.get("evidence")
        for path in named:
            inside = [p for p in labels if p == path or p.startswith(path + "/")]
            assert inside, f"{path} is not in the capture"
            assert {labels[p] for p in inside} == {"checkpoint"}, path


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: f"{t.set}/{t.name}")
def test_the_tree_is_rebuilt_as_the_tool_wrote_it(tool: CorpusTool, tmp_path: Path) -> None:
    make(tmp_path, corpus_spec(tool))
    entries = json.loads((tool.folder / "capture.json").read_text())["entries"]
    for path, entry in entries.items():
        built = tmp_path / path
        if "dir" in entry:
            assert built.is_dir() and not any(built.iterdir())
        elif "link" in entry:
            assert os.readlink(built) == entry["link"]
        else:
            assert built.stat().st_size == entry["size"], path
            if isinstance(tool.layout.spec[path], Sparse):
                with open(built, "rb") as f:
                    head, tail = (base64.b64decode(entry[k]) for k in ("head", "tail"))
                    assert f.read(len(head)) == head
                    f.seek(entry["size"] - len(tail))
                    assert f.read() == tail


#: The tools the classifier was tuned on (dev) or has since been (heldout, heldout2,
#: heldout3: each once measured at first contact).
TUNED = ("dev", "heldout", "heldout2", "heldout3")
#: Sets measured at first contact and tuned on since, not yet to 95%: floors a little below
#: where they stand, so a later change cannot lose what the rounds won silently. At first
#: contact heldout4 was at 0.539 of files and 0.486 of bytes, heldout5 at 0.640 and 0.915,
#: heldout6 at 0.821 and 0.679, heldout7 at 0.754 and 0.926, heldout8 at 0.724 and 0.454,
#: heldout9 at 0.749 and 0.904, heldout10 at 0.755 and 0.746, heldout11 at 0.907 and 0.772
#: (benchmarks/first_contact_baseline_heldout4.md, ...).
SINCE_FIRST_CONTACT = {"heldout4": {"files": 0.85, "bytes": 0.88},
                       "heldout5": {"files": 0.87, "bytes": 0.92},
                       "heldout6": {"files": 0.85, "bytes": 0.76},
                       "heldout7": {"files": 0.87, "bytes": 0.93},
                       "heldout8": {"files": 0.85, "bytes": 0.85},
                       "heldout9": {"files": 0.77, "bytes": 0.97},
                       "heldout10": {"files": 0.75, "bytes": 0.74},
                       "heldout11": {"files": 0.93, "bytes": 0.84}}
#: heldout12 at first contact, before any change for it (benchmarks/
#: first_contact_baseline_heldout12.md: 0.796 and 0.974), 0.873 and 0.980 after round 12: a
#: floor, as above.
FIRST_CONTACT_SET = "heldout12"
FIRST_CONTACT_FLOOR = {"files": 0.87, "bytes": 0.97}
#: What a retention suggestion says when mlspace cannot tell which checkpoint the tool
#: holds best (it then keeps the newest complete one and anything named best or final).
BEST_UNKNOWN = "Which one is best is not recorded"


def _judged(tmp_path: Path, sets: tuple[str, ...]) -> tuple[list, list]:
    verdicts, bad = [], []
    for index, tool in enumerate(t for t in TOOLS if t.set in sets):
        root = tmp_path / f"ws{index:02d}"
        inv = inventory_of(make(root, corpus_spec(tool)))
        verdicts += judge(tool.layout, root, inv)
        bad += touching_protected(tool, root, permissive_plan(inv))
    assert verdicts, f"no corpus tools in {sets}"
    return verdicts, bad


def test_the_tuned_sets_are_right_and_nothing_protected_is_suggested(tmp_path: Path) -> None:
    verdicts, bad = _judged(tmp_path, TUNED)
    assert accuracy(verdicts) >= 0.95
    assert accuracy(verdicts, by_bytes=True) >= 0.95
    assert bad == []


@pytest.mark.parametrize("set_name", [*SINCE_FIRST_CONTACT, FIRST_CONTACT_SET])
def test_first_contact_is_no_worse_and_no_known_best_is_suggested(tmp_path: Path,
                                                                  set_name: str) -> None:
    """On tools nobody tuned on, a suggestion may still touch a best the tool recorded
    where mlspace could not read it (Trackio keeps its aliases in its database): then the
    plan must say that it does not know which is best, never claim a best it got wrong."""
    floor = SINCE_FIRST_CONTACT.get(set_name, FIRST_CONTACT_FLOOR)
    verdicts, bad = _judged(tmp_path, (set_name,))
    assert accuracy(verdicts) >= floor["files"]
    assert accuracy(verdicts, by_bytes=True) >= floor["bytes"]
    assert [b for b in bad if BEST_UNKNOWN not in b.reason] == []
