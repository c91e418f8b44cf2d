"""KerasTuner: a RandomSearch over a small dense Keras 3 model (the torch backend, CPU), 4
trials of 3 epochs each, as its "Getting started" guide runs it.

    /work/venvs/tools-corpus/bin/pip install torch==2.13.0 keras keras-tuner
    KERAS_BACKEND=torch /work/venvs/tools-corpus/bin/python \
        tests/corpus/dev/keras_tuner/make_fixtures.py

``RandomSearch(directory="tuning", project_name="mlp")`` writes ``tuning/mlp/``:
``oracle.json``, ``tuner0.json`` and one ``trial_<N>/`` per trial with ``trial.json``
(hyperparameters, metrics, score, status) and ``checkpoint.weights.h5`` (the trial's best
epoch by the objective). The best trial is the one ``tuner.oracle.get_best_trials()``
returns; KerasTuner records no latest (every trial is finished and kept).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import keras
    import keras_tuner
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.normal(size=(512, 32)).astype("float32")
    y = (x[:, :4].sum(axis=1) > 0).astype("int64")

    def build(hp: keras_tuner.HyperParameters) -> keras.Model:
        model = keras.Sequential([keras.Input((32,)),
                                  keras.layers.Dense(hp.Int("units", 32, 256, step=32),
                                                     activation="relu"),
                                  keras.layers.Dense(2, activation="softmax")])
        model.compile(optimizer=keras.optimizers.Adam(hp.Float("lr", 1e-4, 1e-2,
                                                               sampling="log")),
                      loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        return model

    tuner = keras_tuner.RandomSearch(build, objective="val_accuracy", max_trials=4, seed=0,
                                     directory="tuning", project_name="mlp")
    tuner.search(x, y, epochs=3, validation_split=0.25, verbose=0)
    best = tuner.oracle.get_best_trials(1)[0]
    return [{"run": "tuning/mlp", "best": f"tuning/mlp/trial_{best.trial_id}", "latest": None,
             "evidence": f"tuner.oracle.get_best_trials(1): trial {best.trial_id}, "
                         f"val_accuracy {best.score:.4f}"}]


def label(path: str) -> str:
    # A trial's weights and trial.json are one unit (the trial's model, reloaded by
    # tuner.get_best_models()); the oracle's and the tuner's state are records of the search.
    return "checkpoint" if "/trial_" in path else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "keras-tuner", tool="KerasTuner",
           kind="tuning", command="RandomSearch(build, objective='val_accuracy', max_trials=4,"
                                  " directory='tuning', project_name='mlp').search(x, y, epochs=3)")
