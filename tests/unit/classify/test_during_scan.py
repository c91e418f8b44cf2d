"""Classifying while the scan runs (stretch by stretch, as chunks come in from the workers)
gives exactly what classifying the finished snapshot gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from trees import make_awkward_tree

from mlspace.classify import EntryClassifier, classify, load_rules
from mlspace.demo import generate
from mlspace.scan import ScanOptions, scan


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.usefixtures("tiny_walk_budgets")
def test_during_scan_equals_after_scan(tmp_path: Path, workers: int) -> None:
    demo = generate(tmp_path / "demo")
    awkward = make_awkward_tree(tmp_path / "awkward")
    lone_file = tmp_path / "model.safetensors"
    lone_file.write_bytes(b"\0" * 10)
    rules = load_rules().compile()
    classifier = EntryClassifier(rules)
    chunks = []

    def add(listing):  # noqa: ANN001, ANN202 - the scan's callback
        chunks.append(len(listing))
        classifier.add(listing)

    snapshot = scan([demo, awkward, lone_file], ScanOptions(workers=workers), on_listing=add)
    assert len(chunks) > 10 and sum(chunks) == len(snapshot)
    during = classify(snapshot, during_scan=classifier)
    after = classify(snapshot, rules)
    assert np.array_equal(during.categories, after.categories)
    assert np.array_equal(during.contexts, after.contexts)
    assert during.artifacts == after.artifacts
    assert during.series == after.series and during.runs == after.runs
    assert len({a.category for a in during.artifacts}) >= 4  # a workspace, not a toy


def test_a_classifier_refuses_a_scan_it_did_not_see(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("x")
    classifier = EntryClassifier(load_rules().compile())
    snapshot = scan([tmp_path / "ws"], ScanOptions(workers=1))
    with pytest.raises(ValueError, match="not fed"):
        classify(snapshot, during_scan=classifier)
    other = scan([tmp_path / "ws"], ScanOptions(workers=1), on_listing=classifier.add)
    with pytest.raises(ValueError, match="in order"):
        classifier.add(next(other.listings()))
