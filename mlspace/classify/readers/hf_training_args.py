"""What an HF Trainer run's ``training_args.bin`` says about its own checkpoint retention,
read as data.

The Trainer saves its ``TrainingArguments`` with ``torch.save(self.args, ...)`` into every
``checkpoint-<step>/`` and beside the final model (ml-layouts.md §1.1): a torch zip archive
whose pickle builds the dataclass and sets its fields from a dict. Only that dict is wanted
(``save_total_limit``, ``load_best_model_at_end``, ``metric_for_best_model``,
``greater_is_better``), and it is read by :mod:`mlspace.classify.readers.torch_archive`:
the dataclass, its enums and everything else the pickle names stay inert placeholders,
nothing is imported, constructed or called.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlspace.classify.readers.pickle_values import Opaque
from mlspace.classify.readers.torch_archive import DATA_ERRORS, open_torch_file


@dataclass(frozen=True)
class TrainerRetention:
    """The Trainer's own retention settings (``transformers.TrainingArguments``)."""

    save_total_limit: int | None  # None: no rotation (unset, 0 or negative)
    load_best_model_at_end: bool
    metric_for_best_model: str | None  # as the Trainer compares it: "eval_" prefixed
    greater_is_better: bool | None


def _fields(top: object) -> dict | None:
    """The dataclass's fields: the state its BUILD sets (a plain dict when pickled as one)."""
    if isinstance(top, Opaque) and top.name.endswith("TrainingArguments"):
        return top.state if isinstance(top.state, dict) else None
    return top if isinstance(top, dict) else None


def read_training_args(path: str) -> TrainerRetention | None:
    """The retention settings in ``path``, or None when it is not a readable torch file
    holding TrainingArguments."""
    try:
        with open_torch_file(path) as (top, _storages):
            fields = _fields(top)
    except DATA_ERRORS:
        return None
    if fields is None or "save_total_limit" not in fields:
        return None
    limit = fields.get("save_total_limit")
    metric = fields.get("metric_for_best_model")
    if isinstance(metric, str) and metric:
        # the Trainer compares "eval_<metric>" (trainer.py _determine_best_metric)
        metric = metric[:256] if metric.startswith("eval_") else f"eval_{metric[:256]}"
    else:
        metric = None
    greater = fields.get("greater_is_better")
    return TrainerRetention(
        save_total_limit=limit if isinstance(limit, int) and not isinstance(limit, bool)
        and limit > 0 else None,
        load_best_model_at_end=fields.get("load_best_model_at_end") is True,
        metric_for_best_model=metric,
        greater_is_better=greater if isinstance(greater, bool) else None,
    )


__all__ = ["TrainerRetention", "read_training_args"]
