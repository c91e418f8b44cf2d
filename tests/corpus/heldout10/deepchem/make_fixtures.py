"""deepchem: a cheminformatics user featurizes the user's solubility table
(``data/solubility.csv``: SMILES and measured logS, toy values here) into a ``DiskDataset``
with its shards (``CSVLoader(...).create_dataset(..., data_dir=...)``), splits it and
normalises the target, saves the split as MoleculeNet's loaders do
(``dc.utils.save_dataset_to_disk``), and trains a small ``MultitaskRegressor`` (PyTorch) with
a ``model_dir``, keeping the best model by validation RMS with ``ValidationCallback
(save_dir=...)``.

    python3.11 -m venv /tmp/h9/deepchem/venv
    /tmp/h9/deepchem/venv/bin/pip install torch==2.13.0 (the CPU build)
    /tmp/h9/deepchem/venv/bin/pip install deepchem
    /tmp/h9/deepchem/venv/bin/python tests/corpus/heldout10/deepchem/make_fixtures.py

``python featurize.py`` (ECFP4, 256 bits, shards of 64 molecules, into
``featurized/ecfp256/``; random 80/10/10 split, ``NormalizationTransformer`` on y, into
``featurized/ecfp256-split/``), then ``python train.py`` (30 epochs, a checkpoint every 40
steps, 3 kept, in ``models/mtr_ecfp/``; validation every 10 steps, written to
``logs/validation.log``, the best saved to ``models/mtr_ecfp/best/``).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

FEATURIZE = '''"""ECFP features of data/solubility.csv, split and normalised: python featurize.py"""
import deepchem as dc

loader = dc.data.CSVLoader(tasks=["logS"], feature_field="smiles", id_field="name",
                           featurizer=dc.feat.CircularFingerprint(size=256, radius=2))
dataset = loader.create_dataset("data/solubility.csv", data_dir="featurized/ecfp256",
                                shard_size=64)
print("featurized", dataset.get_shape(), "in", dataset.data_dir)
train, valid, test = dc.splits.RandomSplitter().train_valid_test_split(dataset, seed=0)
transformers = [dc.trans.NormalizationTransformer(transform_y=True, dataset=train)]
for transformer in transformers:
    train, valid, test = (d.transform(transformer) for d in (train, valid, test))
dc.utils.save_dataset_to_disk("featurized/ecfp256-split", train, valid, test, transformers)
print("split", len(train), len(valid), len(test), "saved to featurized/ecfp256-split")
'''

TRAIN = '''"""Train a solubility regressor on the saved split: python train.py"""
import deepchem as dc

loaded, (train, valid, test), transformers = dc.utils.load_dataset_from_disk(
    "featurized/ecfp256-split")
assert loaded
model = dc.models.MultitaskRegressor(n_tasks=1, n_features=256, layer_sizes=[64],
                                     dropouts=0.1, batch_size=32, learning_rate=1e-3,
                                     model_dir="models/mtr_ecfp")
rms = dc.metrics.Metric(dc.metrics.rms_score)
with open("logs/validation.log", "w") as log:
    callback = dc.models.ValidationCallback(valid, 10, [rms], output_file=log,
                                            save_dir="models/mtr_ecfp/best",
                                            save_on_minimum=True, transformers=transformers)
    loss = model.fit(train, nb_epoch=30, checkpoint_interval=40, max_checkpoints_to_keep=3,
                     callbacks=[callback])
print("final loss", round(loss, 4), "steps", model.get_global_step())
print("test", model.evaluate(test, [rms], transformers))
print("best validation rms", round(callback.get_best_score(), 4))
print("checkpoints", model.get_checkpoints())
print("best checkpoints", model.get_checkpoints("models/mtr_ecfp/best"))
'''


def _molecules(path: Path) -> None:
    import numpy as np
    from rdkit import Chem
    from rdkit.Chem import Crippen, Descriptors

    rng = np.random.default_rng(0)
    heads = ["C", "CC", "CCC", "CC(C)", "CCCC", "c1ccccc1", "c1ccncc1", "C1CCCCC1", "OC",
             "NC", "ClC", "FC(F)", "c1ccc(O)cc1", "c1ccc(Cl)cc1", "CC(=O)"]
    tails = ["O", "N", "C(=O)O", "C(=O)N", "Cl", "Br", "C#N", "OC", "C(=O)OC", "S",
             "c1ccccc1", "CC", "CCO", "N(C)C"]
    rows, seen = [], set()
    for head in heads:
        for tail in tails:
            mol = Chem.MolFromSmiles(head + tail)
            if mol is None:
                continue
            smiles = Chem.MolToSmiles(mol)
            if smiles in seen:
                continue
            seen.add(smiles)
            logs = (0.5 - 0.9 * Crippen.MolLogP(mol) - 0.004 * Descriptors.MolWt(mol)
                    + rng.normal(0, 0.3))
            rows.append(f"mol{len(rows):03d},{smiles},{logs:.3f}")
    path.parent.mkdir(parents=True)
    path.write_text("name,smiles,logS\n" + "\n".join(rows) + "\n")


def _run(script: str) -> str:
    done = subprocess.run([sys.executable, script], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr)
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    import torch

    _molecules(Path("data/solubility.csv"))
    Path("featurize.py").write_text(FEATURIZE)
    Path("train.py").write_text(TRAIN)
    Path("logs").mkdir()
    _run("featurize.py")
    lines = dict(line.split(" ", 1) for line in _run("train.py").splitlines()
                 if line.startswith(("checkpoints", "best checkpoints")))
    kept = ast.literal_eval(lines["checkpoints"])
    latest = kept[0]
    best = ast.literal_eval(lines["best"].removeprefix("checkpoints "))[0]
    assert latest == "models/mtr_ecfp/checkpoint1.pt", latest
    assert best == "models/mtr_ecfp/best/checkpoint1.pt", best
    steps = {p: torch.load(p, weights_only=True)["global_step"] for p in kept + [best]}
    assert steps[latest] == max(steps.values()), steps
    scores = {int(line.split()[1]): float(line.split("=")[1])
              for line in Path("logs/validation.log").read_text().splitlines()}
    assert steps[best] == min(scores, key=scores.__getitem__), (steps, scores)
    return [{"run": "python train.py", "best": best, "latest": latest,
             "evidence": "model.get_checkpoints() printed "
                         f"{kept}; deepchem's save_checkpoint renames older files up "
                         "(checkpoint1.pt is always the newest, the one restore() loads by "
                         f"default; its global_step {steps[latest]} is the last step); "
                         "ValidationCallback(save_dir="
                         "'models/mtr_ecfp/best') saves on each new best validation rms, so "
                         "its newest, get_checkpoints('models/mtr_ecfp/best')[0] = "
                         f"{best}, is the best: its global_step {steps[best]} is the step "
                         "of the lowest rms_score in logs/validation.log"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("featurized/"):
        return "augmented"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("logs/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "deepchem", tool="deepchem",
           kind="molecular machine learning (DiskDataset shards, TorchModel checkpoints)",
           command="python featurize.py (CSVLoader + CircularFingerprint -> DiskDataset "
                   "'featurized/ecfp256', shard_size=64; RandomSplitter, "
                   "NormalizationTransformer, save_dataset_to_disk('featurized/ecfp256-split'));"
                   " python train.py (MultitaskRegressor(model_dir='models/mtr_ecfp').fit("
                   "nb_epoch=30, checkpoint_interval=40, max_checkpoints_to_keep=3, callbacks="
                   "[ValidationCallback(valid, 10, [rms], save_dir='models/mtr_ecfp/best')]))")
