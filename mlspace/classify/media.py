"""Images, audio and video: a folder of many is a dataset, or augmented copies when the names
are those an augmentation tool writes; a few inside a run are plots and belong to its logs."""

from __future__ import annotations

import re

from mlspace.classify.categories import Category
from mlspace.classify.name_meaning import is_numbered_sample, says_figure, says_figure_folder
from mlspace.classify.rules import Context

#: Fewer media files than this in a plain folder are documents or figures, not a dataset.
DATASET_MIN_FILES = 10

# Augmentor: "<class>_original_<image>_<uuid4>.<fmt>" (ml-layouts.md §7.2)
_AUGMENTOR = (
    r"(?:_groundtruth_\(\d+\)_)?.+?_(?:original_)?.+_"
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.\w+"
)
# Keras ImageDataGenerator(save_to_dir) with its default empty prefix: "_<index>_<hash>.<fmt>".
# With a custom prefix the pattern also fits ordinary dataset names such as img_0012_0001.jpg,
# and calling raw data "augmented" would put it up for removal, so only the default counts.
_KERAS = r"_\d+_\d{1,7}\.(?:png|jpe?g|bmp|tiff?|webp)"  # any case
_AUGMENTED_NAME = re.compile(f"(?:{_AUGMENTOR})|(?i:{_KERAS})")
# Roboflow: "<stem>_<ext>.rf.<32 hex>.<ext>"; variants of one image share what precedes ".rf."
_ROBOFLOW = re.compile(r"(.+_[A-Za-z0-9]+)\.rf\.[0-9a-f]{32}\.\w+", re.IGNORECASE)
#: Names looked at per folder to spot an augmentation tool's naming.
SAMPLE_SIZE = 8

_FIXED = {
    Context.RUN: Category.LOG,
    Context.MODEL: Category.LOG,
    Context.LOG: Category.LOG,
    Context.CHECKPOINTS: Category.CHECKPOINT,
    Context.AUGMENTED: Category.AUGMENTED,
}


def needs_sample(ctx: Context, count: int) -> bool:
    """Whether folder_media_category must see some names (to spot augmentation tools and
    a run's figures)."""
    return ctx not in _FIXED and (count >= DATASET_MIN_FILES or ctx != Context.DATASET)


def folder_media_category(ctx: Context, count: int, sample: list[str], folder: str = ""
                          ) -> Category:
    """What ``count`` media files of one folder are; ``sample`` holds the first few names
    when needs_sample() says so. Outside a folder a rule calls a dataset, images mostly
    named for what they show (``roc_curve.png``, ``confusion_matrix.png``), or kept in a
    ``folder`` named for figures (scanpy's ``figures/umap_leiden.png``), are the figures a
    run drew of itself: its record. Pictures numbered like samples stay data."""
    if ctx in _FIXED:
        return _FIXED[ctx]
    sample = sample[:SAMPLE_SIZE]
    if ctx != Context.DATASET and sample and (
            2 * sum(says_figure(name) for name in sample) > len(sample)
            or (says_figure_folder(folder) and not any(is_numbered_sample(n) for n in sample))):
        return Category.LOG
    if count < DATASET_MIN_FILES:
        return Category.DATASET if ctx == Context.DATASET else Category.OTHER
    # A majority of the sample decides; stop as soon as the rest cannot change the answer.
    needed, misses_allowed = len(sample) // 2 + 1, (len(sample) - 1) // 2
    for name in sample:
        if _could_be_augmented(name) and _AUGMENTED_NAME.fullmatch(name):
            needed -= 1
            if needed == 0:
                return Category.AUGMENTED
        else:
            misses_allowed -= 1
            if misses_allowed < 0:
                break
    return Category.DATASET


def _could_be_augmented(name: str) -> bool:
    """What every name the augmentation patterns take has: Keras's leading underscore or
    the four hyphens of Augmentor's uuid. Most dataset names have neither, and this test
    is ten times quicker than the pattern, which a folder's sample runs through."""
    return name.startswith("_") or name.count("-") >= 4


def roboflow_variants(names: dict[int, str]) -> list[int]:
    """Of several Roboflow exports of one source image (given as entry -> name), the entries
    beyond the first by name: augmented copies; the first stays the dataset's image."""
    groups: dict[str, list[tuple[str, int]]] = {}
    for entry, name in names.items():
        match = _ROBOFLOW.fullmatch(name)
        if match:
            groups.setdefault(match.group(1), []).append((name, entry))
    return [entry for members in groups.values() for _, entry in sorted(members)[1:]]
