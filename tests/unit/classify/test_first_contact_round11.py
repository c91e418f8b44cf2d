"""Eleventh round of issue 27's principles, from heldout11's first contact (90.7% of files,
77.2% of bytes, one *review* suggestion touching a recorded best):

- a duplicate file that is one piece of a save made of several (a model folder's
  ``python_version.txt`` beside its weights) is never offered alone: taking it out leaves a
  save that no longer loads;
- a pickle whose class is named for what a fitted thing does (``CTGANSynthesizer``), a name
  that says classifier (``clf``), and an extension that names a model's format
  (``.pdiparams``, ``.params``) say model; an exported model's program beside its weights,
  in a folder of that one model, is part of it;
- what a model predicted, kept in a results folder, and how a job ended are records (log);
  an empty lock stays with the store it guards (a dataset's, a tracker's): a live lock taken
  away as a "cache" would let two writers in, so it is never made one to win no space.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path

from layout_kit import Sparse
from layouts import categories_by_path, inventory_of, make
from layouts_corpus import permissive_plan


def _pickle_of(module: str, name: str) -> bytes:
    """A protocol-4 pickle of an instance of ``module.name`` (as pickle.dumps writes it for
    a class with no state), built by hand: the class need not exist to be named."""
    body = b""
    for text in (module, name):
        raw = text.encode()
        body += b"\x8c" + bytes([len(raw)]) + raw + b"\x94"
    body += b"\x93\x94)\x81\x94."
    return b"\x80\x04\x95" + struct.pack("<Q", len(body)) + body


def _expect(cats: dict[str, str], **paths_by_category: list[str]) -> None:
    """Each listed path has the category it is listed under."""
    expected = {path: category for category, paths in paths_by_category.items()
                for path in paths}
    assert {path: cats[path] for path in expected} == expected


def _touched(inv) -> set[str]:  # noqa: ANN001 - an Inventory
    return {item.path for s in permissive_plan(inv).suggestions for item in s.items}


def test_a_duplicate_piece_of_a_save_made_of_several_is_never_offered(tmp_path: Path) -> None:
    model = _pickle_of("sklearn.linear_model._logistic", "LogisticRegression")
    store = "store/train_model/model"
    root = make(tmp_path / "ws", {
        f"{store}/068315bf/ea5ae793/artifact.pkl": model + b"one",
        f"{store}/068315bf/ea5ae793/python_version.txt": "3.11.7",
        f"{store}/a56772b3/c829b59d/artifact.pkl": model + b"two",
        f"{store}/a56772b3/c829b59d/python_version.txt": "3.11.7",
        "exports/summary.bin": b"\x01" * 3000,
        "exports/summary copy.bin": b"\x01" * 3000,
    })
    inv = inventory_of(root)
    cats = categories_by_path(inv)
    assert cats[f"{store}/068315bf/ea5ae793/python_version.txt"] == "checkpoint"
    touched = _touched(inv)
    assert not {p for p in touched if p.endswith("python_version.txt")}, touched
    # a copy that is no piece of a save is still offered
    assert {str(root / "exports/summary.bin"), str(root / "exports/summary copy.bin")} & touched


def test_a_class_or_a_name_that_says_fitted_model_is_a_checkpoint(tmp_path: Path) -> None:
    skops = io.BytesIO()
    with zipfile.ZipFile(skops, "w") as z:
        z.writestr("schema.json", json.dumps({"__class__": "RandomForestClassifier",
                                              "__module__": "sklearn.ensemble._forest"}))
        for key in ("140075386435216", "140075383464816"):
            z.writestr(f"{key}.npy", b"\x93NUMPY" + bytes(120))
    root = make(tmp_path / "ws", {
        "synthesizers/ctgan.pkl": Sparse(298_375, _pickle_of("sdv.single_table.ctgan",
                                                             "CTGANSynthesizer")),
        "synthesizers/gaussian_copula.pkl": Sparse(132_814, _pickle_of(
            "sdv.single_table.copulas", "GaussianCopulaSynthesizer")),
        "reports/quality.pkl": _pickle_of("sdmetrics.reports.single_table", "QualityReport"),
        "penguin-classifier/penguin-clf-v1.skops": skops.getvalue(),
        "penguin-classifier/README.md": "# Model card\n",
        "penguin-classifier/v1-confusion_matrix.png": b"\x89PNG\r\n\x1a\n" + bytes(200),
    })
    cats = categories_by_path(inventory_of(root))
    assert cats["reports/quality.pkl"] != "checkpoint"
    _expect(cats, checkpoint=["synthesizers/ctgan.pkl", "synthesizers/gaussian_copula.pkl",
                              "penguin-classifier/penguin-clf-v1.skops"],
            other=["penguin-classifier/README.md"])


def test_a_format_named_for_weights_and_its_exported_program_are_the_model(tmp_path: Path
                                                                           ) -> None:
    root = make(tmp_path / "ws", {
        "inference/mlp.json": json.dumps({"program": {"blocks": [{"ops": []}]}}),
        "inference/mlp.pdiparams": b"\x00\x00\x00\x00" + bytes(21_918),
        "mxnet/model-0010.params": b"\x12\x01\x00\x00" + bytes(4000),
        "train.py": "print('train')\n",
    })
    _expect(categories_by_path(inventory_of(root)),
            checkpoint=["inference/mlp.pdiparams", "inference/mlp.json",
                        "mxnet/model-0010.params"], other=["train.py"])


def test_predictions_and_job_ends_are_records_and_locks_stay_with_their_store(
        tmp_path: Path) -> None:
    log = "data/deeplake/shapes/_deeplake_log"
    root = make(tmp_path / "ws", {
        **{f"data/deeplake/shapes/{c}/chunk{i}": bytes(500) for c in ("images", "labels")
           for i in range(4)},
        f"{log}/_meta/0000000001c00000000.jsonl": '{"op": "commit"}\n',
        f"{log}/_meta/next_base.lock": "",
        "data/churn.csv": "a,b\n1,2\n",
        "poetry.lock": "[[package]]\nname = 'numpy'\n",
        "results/churned_probabilities.npy": b"\x93NUMPY" + bytes(1700),
        "results/predictions.parquet": Sparse(16_005, b"PAR1"),
        "features/train_embeddings.npy": b"\x93NUMPY" + bytes(1700),
        "torchx_logs/torchx/train-cmbrjld/SUCCESS": json.dumps(
            {"app_id": "train-cmbrjld", "final_state": "SUCCEEDED", "roles": {}}),
        "torchx_logs/torchx/train-cmbrjld/train/0/stdout.log": "epoch 1\n",
    })
    _expect(categories_by_path(inventory_of(root)),
            log=["results/churned_probabilities.npy", "results/predictions.parquet",
                 "torchx_logs/torchx/train-cmbrjld/SUCCESS"],
            dataset=["features/train_embeddings.npy", f"{log}/_meta/next_base.lock",
                     "data/churn.csv"],
            other=["poetry.lock"])
