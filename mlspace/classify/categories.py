"""The categories every file and folder falls into: stable ids, display names and colours.

This module is the one place that names a category. The CLI, the reports and the app read the
labels and colours from here, so a rename or a new colour happens once.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Category(IntEnum):
    """Stored as one byte per entry; the values are part of saved scans, never renumber."""

    OTHER = 0
    DATASET = 1
    AUGMENTED = 2
    CHECKPOINT = 3
    LOG = 4
    DEBUG = 5
    CACHE = 6

    @property
    def id(self) -> str:
        """The stable, non-localized key used in JSON, CSV and rules files."""
        return self.name.lower()

    @property
    def info(self) -> CategoryInfo:
        return CATEGORY_INFO[self]

    @classmethod
    def from_id(cls, key: str) -> Category:
        try:
            return cls[key.upper()]
        except KeyError:
            known = ", ".join(c.id for c in cls)
            raise ValueError(f"unknown category {key!r} (known: {known})") from None


@dataclass(frozen=True)
class CategoryInfo:
    label: str
    description: str
    color: str  # hex, readable on light and dark backgrounds


CATEGORY_INFO: dict[Category, CategoryInfo] = {
    Category.DATASET: CategoryInfo(
        "Datasets", "Raw training and evaluation data: never suggested for removal", "#4e79a7"
    ),
    Category.AUGMENTED: CategoryInfo(
        "Augmented copies", "Augmented or preprocessed copies that can be regenerated", "#76b7b2"
    ),
    Category.CHECKPOINT: CategoryInfo(
        "Checkpoints", "Model weights and training state saved during runs", "#e15759"
    ),
    Category.LOG: CategoryInfo(
        "Logs", "Experiment logs: TensorBoard, W&B, MLflow, metrics, stdout", "#f28e2b"
    ),
    Category.DEBUG: CategoryInfo(
        "Debug dumps", "Profiler traces, memory snapshots, core dumps, compiler debug output",
        "#b07aa1",
    ),
    Category.CACHE: CategoryInfo(
        "Caches", "Regenerable caches: hub downloads, compiled kernels, bytecode", "#edc948"
    ),
    Category.OTHER: CategoryInfo(
        "Other", "Code, configs, documents, environments, version control", "#9c9c9c"
    ),
}

#: Display order: the categories people ask about first.
ORDER: tuple[Category, ...] = (
    Category.CHECKPOINT,
    Category.DATASET,
    Category.AUGMENTED,
    Category.LOG,
    Category.DEBUG,
    Category.CACHE,
    Category.OTHER,
)
