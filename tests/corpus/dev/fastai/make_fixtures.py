"""fastai: a tabular learner on a toy "adult"-like table, CPU, 6 epochs, with fastai's
SaveModelCallback twice (every epoch, and the best by validation loss), its CSVLogger, and
the exported learner.

    /work/venvs/tools-corpus/bin/pip install torch==2.13.0 fastai
    /work/venvs/tools-corpus/bin/python tests/corpus/dev/fastai/make_fixtures.py

(fastai asks for torchvision, which cannot load beside this machine's torch 2.13 wheel;
``fastai.tabular`` does not import it, so fastai is installed beside torch without it.)

``SaveModelCallback(every_epoch=True, fname="adult_epoch")`` writes
``models/adult_epoch_<N>.pth``; ``SaveModelCallback(monitor="valid_loss",
fname="adult_best")`` ``models/adult_best.pth`` whenever the loss improves, and loads it
back when fit ends; ``CSVLogger`` writes ``history.csv``; ``learn.export()`` the pickled
learner ``export.pkl`` (after fit, so with the best weights). The data are the CSV it was
trained on.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import numpy as np
    import pandas as pd
    from fastai.callback.tracker import SaveModelCallback
    from fastai.tabular.all import (
        Categorify,
        CSVLogger,
        FillMissing,
        Normalize,
        TabularDataLoaders,
        accuracy,
        set_seed,
        tabular_learner,
    )

    set_seed(0)
    rng = np.random.default_rng(0)
    n = 3000
    frame = pd.DataFrame({"age": rng.integers(18, 80, n), "hours": rng.integers(10, 70, n),
                          "education": rng.choice(["hs", "college", "masters", "phd"], n),
                          "workclass": rng.choice(["private", "gov", "self"], n)})
    frame["salary"] = np.where(frame.age * 0.5 + frame.hours * 0.8 + rng.normal(0, 8, n) > 55,
                               ">=50k", "<50k")
    (work / "data").mkdir()
    frame.to_csv(work / "data" / "adult.csv", index=False)
    dls = TabularDataLoaders.from_csv(work / "data" / "adult.csv", path=work,
                                      y_names="salary", cat_names=["education", "workclass"],
                                      cont_names=["age", "hours"],
                                      procs=[Categorify, FillMissing, Normalize], bs=64)
    learn = tabular_learner(dls, layers=[200, 100], metrics=accuracy, cbs=[
        SaveModelCallback(every_epoch=True, fname="adult_epoch"),
        SaveModelCallback(monitor="valid_loss", fname="adult_best"), CSVLogger()])
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        learn.fit_one_cycle(6, 1e-2)
    learn.remove_cb(CSVLogger)  # its open file cannot be pickled into the export
    learn.export()
    better = re.findall(r"Better model found at epoch (\d+)", said.getvalue())
    return [{"run": "models", "best": ["models/adult_best.pth", "export.pkl"],
             "latest": "models/adult_epoch_5.pth",
             "evidence": f"SaveModelCallback(monitor='valid_loss') printed 'Better model "
                         f"found at epoch {better[-1]}' last and loads it when fit ends, "
                         f"before learn.export(); the every-epoch callback's last save is "
                         f"epoch 5"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    return "log" if path == "history.csv" else "checkpoint"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "fastai", tool="fastai",
           kind="tabular (PyTorch)",
           command="tabular_learner(dls, cbs=[SaveModelCallback(every_epoch=True, fname="
                   "'adult_epoch'), SaveModelCallback(monitor='valid_loss', fname='adult_best'"
                   "), CSVLogger()]).fit_one_cycle(6); learn.export()")
