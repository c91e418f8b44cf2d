"""Processed data is a dataset and only what augmentation wrote is augmented; debug dumps are
known by place and purpose; an HF datasets cache by its layout wherever it is (issue 13)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest
from layouts import (
    augmented_copies,
    categories_by_path,
    debug_dumps,
    hf_datasets_cache,
    inventory_of,
    make,
    processed_data,
)

from mlspace.advise import AdviceSettings, advise
from mlspace.classify import EntryClassifier, classify, load_rules
from mlspace.classify.names import NameColumns
from mlspace.scan import ScanOptions, scan


def test_processed_data_is_a_dataset_never_suggested_by_age(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {**processed_data().spec, **augmented_copies().spec})
    month_ago = time.time() - 60 * 86400
    for folder, dirs, files in os.walk(root):
        for name in files + dirs:
            os.utime(os.path.join(folder, name), (month_ago, month_ago))
    inv = inventory_of(root)
    cats = categories_by_path(inv)
    for path in ("data/processed/train.parquet", "data/processed/train_lmdb/data.mdb",
                 "data/processed/tfrecords/train.tfrecord-00000-of-00004",
                 "data/processed/tokenized/data-00000-of-00002.arrow",
                 "preprocessed/x_train.npy", "features/clip_vitl14.h5",
                 "features/clip_vitl14.zarr/0.0", "features/train_feats.pt",
                 "nnUNet_preprocessed/Dataset001_Heart/nnUNetPlans_3d_fullres/la_003.b2nd"):
        assert cats[path] == "dataset", path
    assert cats["src/data/make_dataset.py"] == cats["src/features/build_features.py"] == "other"
    suggested = [p for s in advise(inv, AdviceSettings()).suggestions for p in s.paths]
    assert suggested and all(cats[os.path.relpath(p, root)] == "augmented" for p in suggested)


@pytest.mark.parametrize("folder", ["data/raw/cats/output", "data/train_aug", "data/aug",
                                    "data/augmented_v2", "data/flipped/cats", "data/rot90/cats"])
def test_what_augmentation_wrote_is_augmented(tmp_path: Path, folder: str) -> None:
    cats = categories_by_path(inventory_of(make(tmp_path / "ws", augmented_copies().spec)))
    inside = [p for p in cats if p.startswith(folder + "/") and "." in p]
    assert inside and {cats[p] for p in inside} == {"augmented"}
    assert cats["data/raw/cats/cat_0003.jpg"] == "dataset"


def test_aug_k_copies_beside_their_originals(tmp_path: Path) -> None:
    cats = categories_by_path(inventory_of(make(tmp_path / "ws", {
        **{f"data/images/img_{i:04d}.jpg": 10 for i in range(12)},
        **{f"data/images/img_{i:04d}_aug{k}.jpg": 10 for i in range(12) for k in (0, 1, 12)},
        "data/arrays/x_000_aug3.npy": 10, "data/arrays/x_000.npy": 10,
        "data/images/img_0000_augx.jpg": 10, "data/images/img_aug.jpg": 10,
    })))
    assert cats["data/images/img_0003.jpg"] == "dataset"
    assert cats["data/images/img_0003_aug1.jpg"] == cats["data/images/img_0003_aug12.jpg"] \
        == "augmented"
    assert cats["data/arrays/x_000_aug3.npy"] == "augmented"
    assert cats["data/arrays/x_000.npy"] == "dataset"
    assert cats["data/images/img_0000_augx.jpg"] == cats["data/images/img_aug.jpg"] == "dataset"


@pytest.mark.parametrize(("name", "extension", "tagged"), [
    ("img_0001_aug2.jpg", 4, True), ("x_aug123.JPEG", 5, True), ("_aug1.png", 4, True),
    ("img_aug.jpg", 4, False), ("a_augx1.jpg", 4, False), ("b_aug1234.jpg", 4, False),
    ("aug1.jpg", 4, False), ("img_0001.jpg", 4, False), ("g.jpg", 4, False),
])
def test_the_aug_tag_is_read_at_the_end_of_the_name(
        tmp_path: Path, name: str, extension: int, tagged: bool) -> None:
    (tmp_path / name).write_bytes(b"")
    snapshot = scan([tmp_path], ScanOptions(workers=1))
    entry = np.array([snapshot.find(str(tmp_path / name))])
    found = NameColumns(snapshot).tagged_before_end(entry, np.array([extension]), b"_aug", 3)
    assert bool(found[0]) is tagged


def test_debug_dumps_by_place_and_purpose(tmp_path: Path) -> None:
    cats = categories_by_path(inventory_of(make(tmp_path / "ws", debug_dumps().spec)))
    for path in ("debug/batch_0042.pt", "dumps/grads_step1200.npz",
                 "debug_dumps/attn_nan_rank0.pt", "outputs/2026-11-30/17-19-43/debug/nan_batch.pt",
                 "python-2026-11-30T17-21-18+0000.svg", "profiling/train.speedscope.json",
                 "log/resnet18/gpu01_4242.1796059278123456789.pt.trace.json",
                 "log/resnet18/memory_snapshot.pickle",
                 "profiles/gpu01_Nov_30_17_21_18.pickle"):
        assert cats[path] == "debug", path
    assert cats["src/debug/inspect_nans.py"] == "other"  # a package named debug is code
    assert cats["outputs/2026-11-30/17-19-43/train.log"] == "log"


def test_a_debug_folder_makes_debug_only_of_what_was_dumped_there(tmp_path: Path) -> None:
    """Debug dumps are suggested for removal by age: in a folder merely named dumps/, a
    database dump or a script is no debug output, and the folder is no unit to remove."""
    root = tmp_path / "ws"
    inv = inventory_of(make(root, {
        "dumps/logits_step100.npy": 100, "dumps/attn.png": 100, "dumps/nan_batch.txt": "x",
        "dumps/users.sql.gz": 100, "dumps/mongo/users.bson": 100, "debug/replay.py": "x",
        "debug/checkpoints/step_100.pt": 100,
    }))
    cats = categories_by_path(inv)
    for path in ("dumps/logits_step100.npy", "dumps/attn.png", "dumps/nan_batch.txt",
                 "debug/checkpoints/step_100.pt"):
        assert cats[path] == "debug", path
    for path in ("dumps/users.sql.gz", "dumps/mongo/users.bson", "debug/replay.py"):
        assert cats[path] == "other", path
    assert not [a for a in inv.artifacts if a.path.startswith(str(root / "dumps"))]


def test_a_pickle_beside_profiler_traces_in_a_log_folder_is_a_memory_snapshot(
        tmp_path: Path) -> None:
    cats = categories_by_path(inventory_of(make(tmp_path / "ws", {
        "log/resnet18/gpu01_4242.1796059278123456789.pt.trace.json": 100,
        "log/resnet18/gpu01_Nov_30_17_21_18.pickle": 100,
        "features.pickle": 100,  # elsewhere a pickle is not taken for a snapshot
    })))
    assert cats["log/resnet18/gpu01_Nov_30_17_21_18.pickle"] == "debug"
    assert cats["features.pickle"] == "other"


def test_hf_datasets_cache_is_known_by_its_layout_in_a_custom_cache_dir(
        tmp_path: Path) -> None:
    root = make(tmp_path / "ws", hf_datasets_cache().spec)
    inv = inventory_of(root)
    cats = categories_by_path(inv)
    build = ("hf_cache/stanfordnlp___imdb/plain_text/0.0.0/"
             "e6281661ce1c48d982bc483cf8a173c1bbeb5d31")
    for name in ("imdb-train.arrow", "dataset_info.json", "cache-71242c888964645d.arrow"):
        assert cats[f"{build}/{name}"] == "cache", name
    assert cats[f"{build}_builder.lock"] == cats[f"{build}.incomplete_info.lock"] == "cache"
    assert cats["data/tokenized/train/data-00000-of-00001.arrow"] == "dataset"  # save_to_disk
    assert inv.artifact_by_id[f"cache:{root / build}"].tool == "HF datasets"


@pytest.mark.usefixtures("tiny_walk_budgets")
def test_classified_while_scanning_equals_classified_after(tmp_path: Path) -> None:
    """The name tests at the end of a name (the _aug tag) hold however a scan is cut up."""
    root = make(tmp_path / "ws", {**augmented_copies().spec, **debug_dumps().spec})
    rules = load_rules().compile()
    classifier = EntryClassifier(rules)
    snapshot = scan([root], ScanOptions(workers=2), on_listing=classifier.add)
    during, after = classify(snapshot, during_scan=classifier), classify(snapshot, rules)
    assert np.array_equal(during.categories, after.categories)
    assert during.artifacts == after.artifacts
