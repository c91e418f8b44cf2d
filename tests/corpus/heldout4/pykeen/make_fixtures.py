"""PyKEEN: TransE on the Nations knowledge graph (bundled with PyKEEN, no download), CPU,
with ``pipeline()``'s training-loop checkpoint, early stopping, a CSV result tracker, then
``result.save_to_directory()``, as PyKEEN's "first steps" and checkpoint tutorials do.

    /work/venvs/tools-a/bin/pip install torch==2.13.0 pykeen
    /work/venvs/tools-a/bin/python tests/corpus/heldout4/pykeen/make_fixtures.py

``PYKEEN_HOME`` points at the project's ``.pykeen/`` (PyKEEN's documented override of
``~/.data/pykeen``), where PyKEEN caches the dataset's triples factories.
``pipeline(dataset="Nations", model="TransE", training_kwargs=dict(num_epochs=100,
checkpoint_name="transe_nations.pt", checkpoint_directory="checkpoints",
checkpoint_frequency=0), stopper="early", stopper_kwargs=dict(frequency=10, patience=2,
best_model_path=...), result_tracker="csv", ...)`` rewrites ``checkpoints/transe_nations.pt``
(model, optimizer, stopper and RNG state) after every epoch; the early stopper saves the
best weights to ``checkpoints/best-model-weights.pt`` on each new best validation hits@10,
reloads them when it stops and then deletes that file; the tracker writes
``logs/transe_nations.tsv``; ``save_to_directory("nations_transe")`` writes
``results.json``, ``metadata.json``, ``trained_model.pkl`` (the whole model, torch.save)
and ``training_triples/`` (the training triples factory with its label-to-id maps).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    os.environ["PYKEEN_HOME"] = str(work / ".pykeen")
    from pykeen.pipeline import pipeline

    result = pipeline(
        dataset="Nations", model="TransE", model_kwargs=dict(embedding_dim=32),
        training_kwargs=dict(num_epochs=100, batch_size=256,
                             checkpoint_name="transe_nations.pt",
                             checkpoint_directory="checkpoints", checkpoint_frequency=0),
        stopper="early", stopper_kwargs=dict(
            frequency=10, patience=2, relative_delta=0.002,
            best_model_path=Path("checkpoints/best-model-weights.pt")),
        result_tracker="csv", result_tracker_kwargs=dict(path="logs/transe_nations.tsv"),
        random_seed=0, device="cpu")
    result.save_to_directory("nations_transe")
    stopper = result.stopper
    saved = ["nations_transe/trained_model.pkl"] + sorted(
        p.as_posix() for p in Path("nations_transe/training_triples").iterdir())
    return [{"run": "nations_transe", "best": saved, "latest": "checkpoints/transe_nations.pt",
             "evidence": f"the early stopper stopped at epoch {len(result.losses)} ('The best "
                         f"result {stopper.best_metric:.4f} occurred at epoch "
                         f"{stopper.best_epoch}'), reloaded those weights, and "
                         f"save_to_directory saved that model with its training triples "
                         f"factory; the training loop logged 'Saved checkpoint after having "
                         f"finished epoch {len(result.losses)}' to transe_nations.pt"}]


def label(path: str) -> str:
    if path.startswith(".pykeen/"):
        return "cache"
    if path.startswith("checkpoints/") or "/trained_model" in path or "/training_triples/" in path:
        return "checkpoint"
    return "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pykeen", tool="PyKEEN",
           kind="knowledge graph embeddings (PyTorch)",
           command="pipeline(dataset='Nations', model='TransE', training_kwargs=dict("
                   "num_epochs=100, checkpoint_name='transe_nations.pt', checkpoint_directory="
                   "'checkpoints', checkpoint_frequency=0), stopper='early', result_tracker="
                   "'csv'); result.save_to_directory('nations_transe')")
