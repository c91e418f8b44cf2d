"""Datasets and augmented copies (ml-layouts.md §7)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layouts import categories_by_path, inventory_of, make

from mlspace.classify import Category
from mlspace.classify.media import _AUGMENTED_NAME, _could_be_augmented, folder_media_category
from mlspace.classify.rules import Context


def test_image_folder_is_a_dataset(tmp_path: Path) -> None:
    spec: dict[str, object] = {f"imgs/cat/img_{i:04d}.jpg": 50 for i in range(12)}
    spec.update({f"imgs/dog/IMG_{i:04d}.JPG": 50 for i in range(12)})
    cats = categories_by_path(inventory_of(make(tmp_path, spec)))
    assert cats["imgs/cat/img_0003.jpg"] == "dataset"
    assert cats["imgs/dog/IMG_0003.JPG"] == "dataset"


def test_a_few_images_in_a_repo_are_not_a_dataset(tmp_path: Path) -> None:
    cats = categories_by_path(inventory_of(make(tmp_path, {
        "docs/figure.png": 50, "docs/README.md": "x",
    })))
    assert cats["docs/figure.png"] == "other"


def test_data_folder_formats(tmp_path: Path) -> None:
    cats = categories_by_path(inventory_of(make(tmp_path, {
        "data/wds/shard-000000.tar": 100,
        "data/lmdb_train/data.mdb": 100,
        "data/lmdb_train/lock.mdb": 10,
        "data/tfrecords/mnist-train.tfrecord-00000-of-00001": 100,
        "data/emb.npy": 100,
        "data/table.parquet": 100,
        "loose/train.parquet": 100,
        "loose/features.h5": 100,
    })))
    for path in ("data/wds/shard-000000.tar", "data/lmdb_train/data.mdb",
                 "data/lmdb_train/lock.mdb", "data/tfrecords/mnist-train.tfrecord-00000-of-00001",
                 "data/emb.npy", "data/table.parquet", "loose/train.parquet",
                 "loose/features.h5"):
        assert cats[path] == "dataset", path


def test_augmented_folders(tmp_path: Path) -> None:
    spec: dict[str, object] = {f"data/raw/cats/img_{i}.jpg": 50 for i in range(12)}
    spec.update({
        f"data/raw/cats/output/cats_original_img_{i}.jpg_{uuid.uuid4()}.JPEG": 50
        for i in range(12)
    })
    spec.update({f"data/train_aug/img_{i}.jpg": 50 for i in range(3)})
    spec.update({f"work/augmented/x_{i}.png": 50 for i in range(3)})
    cats = categories_by_path(inventory_of(make(tmp_path, spec)))
    assert cats["data/raw/cats/img_3.jpg"] == "dataset"
    output = [p for p in cats if p.startswith("data/raw/cats/output/")]
    assert output and all(cats[p] == "augmented" for p in output)
    assert cats["data/train_aug/img_1.jpg"] == "augmented"
    assert cats["work/augmented/x_1.png"] == "augmented"


def test_keras_save_to_dir_names_are_augmented(tmp_path: Path) -> None:
    spec = {f"gen/_{i}_{1000 + i * 7919}.png": 50 for i in range(15)}
    cats = categories_by_path(inventory_of(make(tmp_path, spec)))
    assert all(cats[p] == "augmented" for p in spec)


@pytest.mark.parametrize("ext", ["jpg", "jpeg", "PNG", "webp"])
def test_roboflow_variants_beyond_the_first_are_augmented(tmp_path: Path, ext: str) -> None:
    hexes = [uuid.uuid4().hex for _ in range(14)]
    spec = {f"export/train/photo{i}_png.rf.{hexes[i]}.{ext}": 50 for i in range(12)}
    spec[f"export/train/photo0_png.rf.{hexes[12]}.{ext}"] = 50
    spec[f"export/train/photo0_png.rf.{hexes[13]}.{ext}"] = 50
    cats = categories_by_path(inventory_of(make(tmp_path, spec)))
    photo0 = sorted(p for p in spec if "/photo0_" in p)
    assert [cats[p] for p in photo0] == ["dataset", "augmented", "augmented"]
    assert cats[f"export/train/photo5_png.rf.{hexes[5]}.{ext}"] == "dataset"


def test_nnunet_raw_and_preprocessed_data_are_datasets(tmp_path: Path) -> None:
    """Preprocessed data is what nnU-Net trains on (hours to regenerate): a dataset, not an
    augmented copy to be suggested for removal by age (issue 13)."""
    cats = categories_by_path(inventory_of(make(tmp_path, {
        "nnUNet_raw/Dataset001_Heart/imagesTr/la_003_0000.nii.gz": 100,
        "nnUNet_preprocessed/Dataset001_Heart/nnUNetPlans_3d_fullres/la_003.b2nd": 100,
    })))
    assert cats["nnUNet_raw/Dataset001_Heart/imagesTr/la_003_0000.nii.gz"] == "dataset"
    assert cats["nnUNet_preprocessed/Dataset001_Heart/nnUNetPlans_3d_fullres/la_003.b2nd"] \
        == "dataset"


@pytest.mark.parametrize("augmented_count", range(0, 9))
def test_a_majority_of_the_sampled_names_decides_augmented(augmented_count: int) -> None:
    """Eight names are looked at: more than half named like Augmentor's output makes the
    folder augmented copies; half or fewer leaves it a dataset (raw data is never put up for
    removal on a tie)."""
    augmentor = [f"cat_original_img{i}.jpg_{uuid.UUID(int=i)}.jpg" for i in range(8)]
    plain = [f"img_{i:04d}.jpg" for i in range(8)]
    for order in (1, -1):  # the verdict must not depend on where the matches sit
        sample = (augmentor[:augmented_count] + plain[augmented_count:])[::order]
        expected = Category.AUGMENTED if augmented_count > 4 else Category.DATASET
        assert folder_media_category(Context.DATASET, 500, sample) == expected


@settings(max_examples=100, deadline=None)
@given(st.from_regex(_AUGMENTED_NAME, fullmatch=True))
def test_the_quick_test_lets_every_augmentation_name_through(name: str) -> None:
    """The cheap test run before the augmentation patterns passes every name they take."""
    assert _could_be_augmented(name)


@pytest.mark.parametrize("name", ["n01440764_10026.JPEG", "img_0001.jpg", "frame-01-02.png"])
def test_the_quick_test_spares_the_pattern_for_plain_dataset_names(name: str) -> None:
    assert not _could_be_augmented(name) and not _AUGMENTED_NAME.fullmatch(name)
