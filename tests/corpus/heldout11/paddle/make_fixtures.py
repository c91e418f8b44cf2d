"""paddle: a PaddlePaddle user trains a small MLP classifier on the user's CSV tables
(``data/train.csv``, ``data/val.csv``: 16 features and a 3-class label, toy values here)
with the high-level ``paddle.Model`` API: ``model.fit(train, val, epochs=30,
save_dir="output/mlp", save_freq=1, callbacks=[EarlyStopping(monitor="loss", mode="min",
patience=5, save_best_model=True)])``, then exports the inference model with
``model.save("inference/mlp", training=False)``. No VisualDL: the progress bar output is
kept with ``python train.py 2>&1 | tee logs/train.log``.

    python3.11 -m venv /tmp/h11/paddle/venv
    /tmp/h11/paddle/venv/bin/pip install paddlepaddle
    /tmp/h11/paddle/venv/bin/python tests/corpus/heldout11/paddle/make_fixtures.py

``python train.py``: ModelCheckpoint (added by ``fit``) writes ``output/mlp/<epoch>.pdparams``
and ``.pdopt`` every epoch and ``final.pdparams``/``.pdopt`` at the end; EarlyStopping writes
``output/mlp/best_model.pdparams``/``.pdopt`` on each new lowest validation loss and stops
training after 5 epochs without one.
"""

# ruff: noqa: E501 - the lines the tool's scripts and install ran with, quoted as they were

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

MAKE_DATA = '''"""Write the toy tables data/train.csv and data/val.csv: python make_data.py"""
from pathlib import Path

import numpy as np

rng = np.random.default_rng(0)


def make(n, path):
    y = rng.integers(0, 3, n)
    x = np.eye(3, 16)[y] * 1.2 + rng.normal(0, 1.0, (n, 16))
    y = np.where(rng.random(n) < 0.15, rng.integers(0, 3, n), y)
    with open(path, "w") as f:
        f.write(",".join(f"f{i}" for i in range(16)) + ",label\\n")
        for row, lab in zip(x, y):
            f.write(",".join(f"{v:.4f}" for v in row) + f",{lab}\\n")


Path("data").mkdir(exist_ok=True)
make(240, "data/train.csv")
make(60, "data/val.csv")
'''

TRAIN = '''"""Train a small MLP on data/*.csv with the paddle.Model high-level API: python train.py"""
import numpy as np
import paddle
from paddle.static import InputSpec


class CSVDataset(paddle.io.Dataset):
    def __init__(self, path):
        table = np.loadtxt(path, delimiter=",", skiprows=1, dtype="float32")
        self.x, self.y = table[:, :-1], table[:, -1:].astype("int64")

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


paddle.seed(0)
train, val = CSVDataset("data/train.csv"), CSVDataset("data/val.csv")
net = paddle.nn.Sequential(paddle.nn.Linear(16, 64), paddle.nn.ReLU(),
                           paddle.nn.Linear(64, 64), paddle.nn.ReLU(),
                           paddle.nn.Linear(64, 3))
model = paddle.Model(net, inputs=[InputSpec([None, 16], "float32", "x")],
                     labels=[InputSpec([None, 1], "int64", "label")])
model.prepare(paddle.optimizer.Adam(learning_rate=0.003, parameters=net.parameters()),
              paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
early = paddle.callbacks.EarlyStopping(monitor="loss", mode="min", patience=5,
                                       verbose=1, save_best_model=True)
model.fit(train, val, epochs=30, batch_size=16, save_dir="output/mlp", save_freq=1,
          callbacks=[early], log_freq=10, verbose=2)
print("best eval loss", float(early.best_value))
result = model.evaluate(val, batch_size=16, verbose=0)
print("final eval", result)
model.save("inference/mlp", training=False)
print("exported inference/mlp")
'''


def run(work: Path) -> list[dict[str, object]]:
    import numpy as np
    import paddle

    Path("make_data.py").write_text(MAKE_DATA)
    Path("train.py").write_text(TRAIN)
    subprocess.run([sys.executable, "make_data.py"], check=True)
    Path("logs").mkdir()
    done = subprocess.run([sys.executable, "train.py"], capture_output=True, text=True)
    out = done.stdout + done.stderr
    Path("logs/train.log").write_text(out)  # what `2>&1 | tee logs/train.log` keeps
    sys.stderr.write(out)
    assert done.returncode == 0, done.returncode
    saved = [Path(p).relative_to(work).as_posix()
             for p in re.findall(r"save checkpoint at (\S+)", out)]
    best_msg = re.findall(r"Best checkpoint has been saved at (\S+)", out)
    assert "Early stopping." in out, "EarlyStopping did not stop the run"
    assert len(best_msg) == 1, best_msg
    best = Path(best_msg[0]).relative_to(work).as_posix()
    latest = saved[-1]
    assert latest == "output/mlp/final", saved
    assert best == "output/mlp/best_model", best
    epochs = [int(p.rsplit("/", 1)[1]) for p in saved[:-1]]
    assert epochs == list(range(len(epochs))), saved
    losses = [float(x) for x in re.findall(r"Eval begin\.\.\.\nstep \d+/\d+ - loss: ([\d.]+)", out)]
    assert len(losses) == len(epochs), (losses, epochs)
    best_epoch = int(np.argmin(losses))
    assert best_epoch != epochs[-1], (best_epoch, epochs)

    def same(a: str, b: str) -> bool:
        pa, pb = paddle.load(a), paddle.load(b)
        return all(np.array_equal(pa[k].numpy(), pb[k].numpy()) for k in pa)

    assert same(f"{best}.pdparams", f"output/mlp/{best_epoch}.pdparams")
    assert same(f"{latest}.pdparams", f"output/mlp/{epochs[-1]}.pdparams")
    assert Path("inference/mlp.pdiparams").exists()
    return [{"run": "python train.py",
             "best": [f"{best}.pdparams", f"{best}.pdopt"],
             "latest": [f"{latest}.pdparams", f"{latest}.pdopt"],
             "evidence": "EarlyStopping(save_best_model=True) printed 'Best checkpoint has "
                         f"been saved at <ws>/{best}' (Model.save writes <path>.pdparams and "
                         "<path>.pdopt); its weights equal those of epoch "
                         f"{best_epoch}, the lowest validation loss ({losses[best_epoch]}) in "
                         "logs/train.log. ModelCheckpoint's last message was 'save checkpoint "
                         f"at <ws>/{latest}' (on_train_end, after epoch {epochs[-1]}, "
                         f"whose weights it equals). Per-epoch saves printed: {saved[:-1]}"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith(("output/", "inference/")):
        return "checkpoint"
    if path.startswith("logs/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "paddlepaddle", tool="paddle",
           kind="deep learning framework high-level API (paddle.Model fit checkpoints: "
                ".pdparams/.pdopt, exported inference model)",
           command="python make_data.py; python train.py 2>&1 | tee logs/train.log "
                   "(paddle.Model(...).fit(train, val, epochs=30, save_dir='output/mlp', "
                   "save_freq=1, callbacks=[EarlyStopping(monitor='loss', mode='min', "
                   "patience=5, save_best_model=True)]); model.save('inference/mlp', "
                   "training=False))")
