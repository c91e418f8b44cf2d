"""The treemap asks for the dominant category of thousands of tiles at once: the batch
answer equals the one-entry answer for every entry, under every kind of filter."""

from __future__ import annotations

import pytest

from mlspace.ages import age_table
from mlspace.classify import Category, classify
from mlspace.demo import generate
from mlspace.filtering import FilterSpec
from mlspace.scan import ScanOptions, scan
from mlspace.ui.workspace import Workspace


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = generate(tmp_path_factory.mktemp("batch") / "ws")
    inv = classify(scan([root], ScanOptions(workers=1)))
    ws = Workspace()
    ws.load(inv, age_table(inv))
    return ws


@pytest.mark.parametrize("spec", [
    FilterSpec(), FilterSpec(categories=frozenset({Category.CHECKPOINT})),
    FilterSpec(categories=frozenset({Category.LOG, Category.DEBUG})), FilterSpec(bucket=2),
    FilterSpec(text="json"), FilterSpec(text="no-such-name"),
])
@pytest.mark.parametrize("apparent", [False, True])
def test_batch_equals_one_by_one(workspace: Workspace, spec: FilterSpec,
                                 apparent: bool) -> None:
    workspace.set_apparent(apparent)
    workspace.set_filter(spec)
    entries = list(range(len(workspace.inventory.snapshot)))
    assert workspace.dominant_categories(entries) == \
        [workspace.dominant_category(e) for e in entries]
    assert len(set(workspace.dominant_categories(entries))) > 1
