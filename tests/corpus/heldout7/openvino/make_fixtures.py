"""OpenVINO: the user trains a small PyTorch classifier (``train.py``, saving its
``state_dict`` to ``models/classifier.pt``), converts it with ``openvino.convert_model``
and writes the IR with ``openvino.save_model`` (``export.py``: ``openvino/classifier.xml``
+ ``.bin``, FP16-compressed by default, as OpenVINO's docs show), then runs inference on
the IR with model caching on (``infer.py``: ``core.set_property({"CACHE_DIR":
"model_cache"})``, the documented way to speed up the next ``compile_model``).

    python3.11 -m venv /tmp/h7/openvino/venv
    /tmp/h7/openvino/venv/bin/pip install torch==2.13.0 openvino
    /tmp/h7/openvino/venv/bin/python tests/corpus/heldout7/openvino/make_fixtures.py

``python train.py``, ``python export.py``, ``python infer.py`` (twice: the second compile
loads the cached blob).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

MODEL = '''"""The classifier's architecture."""
import torch


def make_model():
    return torch.nn.Sequential(torch.nn.Linear(12, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 3))
'''

TRAIN = '''"""Train the sensor-fault classifier: python train.py"""
import numpy as np
import torch

from model import make_model

torch.manual_seed(0)
table = np.loadtxt("data/sensors.csv", delimiter=",", skiprows=1)
x = torch.from_numpy(table[:, :-1]).float()
y = torch.from_numpy(table[:, -1]).long()
model = make_model()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(60):
    loss = torch.nn.functional.cross_entropy(model(x[:600]), y[:600])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
accuracy = (model(x[600:]).argmax(1) == y[600:]).float().mean().item()
print(f"val accuracy {accuracy:.3f}")
torch.save(model.state_dict(), "models/classifier.pt")
'''

EXPORT = '''"""Convert the trained classifier to OpenVINO IR: python export.py"""
import openvino as ov
import torch

from model import make_model

model = make_model()
model.load_state_dict(torch.load("models/classifier.pt"))
model.eval()
ov_model = ov.convert_model(model, example_input=torch.zeros(1, 12))
ov.save_model(ov_model, "openvino/classifier.xml")
print("saved openvino/classifier.xml")
'''

INFER = '''"""Classify the new readings with the OpenVINO IR: python infer.py"""
import time

import numpy as np
import openvino as ov

core = ov.Core()
core.set_property({"CACHE_DIR": "model_cache"})
start = time.perf_counter()
compiled = core.compile_model("openvino/classifier.xml", "CPU")
print(f"compiled in {time.perf_counter() - start:.3f}s")
readings = np.loadtxt("data/new_readings.csv", delimiter=",", skiprows=1).astype(np.float32)
logits = compiled(readings)[0]
np.savetxt("predictions.csv", logits.argmax(1), fmt="%d", header="fault_class", comments="")
print("classes", np.bincount(logits.argmax(1), minlength=3).tolist())
'''


def _data(folder: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    folder.mkdir()
    names = [f"sensor_{i}" for i in range(12)]
    centers = rng.normal(0, 1.5, size=(3, 12))
    labels = rng.integers(0, 3, size=800)
    x = centers[labels] + rng.normal(size=(800, 12))
    rows = [",".join(f"{v:.4f}" for v in r) + f",{c}" for r, c in zip(x, labels, strict=True)]
    (folder / "sensors.csv").write_text(",".join([*names, "fault_class"]) + "\n"
                                        + "\n".join(rows) + "\n")
    new = centers[rng.integers(0, 3, size=50)] + rng.normal(size=(50, 12))
    (folder / "new_readings.csv").write_text(
        ",".join(names) + "\n" + "\n".join(",".join(f"{v:.4f}" for v in r) for r in new) + "\n")


def _python(script: str, home: Path) -> str:
    done = subprocess.run([sys.executable, script], capture_output=True, text=True,
                          check=True, env={**os.environ, "HOME": str(home)})
    sys.stderr.write(done.stdout + done.stderr[-2000:])
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    _data(Path("data"))
    for name, text in (("model.py", MODEL), ("train.py", TRAIN), ("export.py", EXPORT),
                       ("infer.py", INFER)):
        Path(name).write_text(text)
    Path("models").mkdir()
    home = work.parent / "home"  # OpenVINO's telemetry id goes to ~/intel: kept out
    home.mkdir()
    _python("train.py", home)
    assert "saved openvino/classifier.xml" in _python("export.py", home)
    _python("infer.py", home)
    _python("infer.py", home)
    assert Path("openvino/classifier.bin").is_file()
    assert any(Path("model_cache").iterdir())
    return [
        {"run": "python train.py", "best": None, "latest": "models/classifier.pt",
         "evidence": "train.py's torch.save(model.state_dict(), 'models/classifier.pt'), the "
                     "one checkpoint of the training (no best: it saves once, at the end)"},
        {"run": "python export.py", "best": None,
         "latest": ["openvino/classifier.xml", "openvino/classifier.bin"],
         "evidence": "ov.save_model(ov_model, 'openvino/classifier.xml') wrote the IR, the "
                     "topology .xml and its weights .bin beside it (export.py printed the "
                     "path; infer.py compiled it); OpenVINO has no notion of a best model"},
    ]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith(("models/", "openvino/")):
        return "checkpoint"
    if path.startswith("model_cache/"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "openvino", tool="openvino",
           kind="model conversion and inference (convert_model, save_model IR, CACHE_DIR)",
           command="python train.py; python export.py (ov.convert_model(torch model), "
                   "ov.save_model(..., 'openvino/classifier.xml')); python infer.py twice "
                   "(core.set_property({'CACHE_DIR': 'model_cache'}), compile_model)")
