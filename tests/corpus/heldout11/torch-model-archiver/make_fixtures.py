"""torch-model-archiver: a TorchServe user packages a small PyTorch classifier (the user's
``SensorNet`` in ``model.py``, trained on a toy sensor table ``data/readings.csv``) into
model archives in a ``model_store/`` for TorchServe: version 1.0 in eager mode (the
``state_dict`` ``artifacts/sensornet_v1.pth`` + ``--model-file model.py``) and version 2.0 as
TorchScript (``artifacts/sensornet_v2_scripted.pt``) with a per-model ``model-config.yaml``,
both with the user's custom ``handler.py`` and ``index_to_name.json``, beside the server's
``config.properties``.

    python3.11 -m venv /tmp/h11/torch-model-archiver/venv
    /tmp/h11/torch-model-archiver/venv/bin/pip install torch==2.13.0 (the CPU build) \\
        torch-model-archiver numpy
    /tmp/h11/torch-model-archiver/venv/bin/python \\
        tests/corpus/heldout11/torch-model-archiver/make_fixtures.py

(the CPU wheel index was unreachable; torch 2.13.0+cpu came from a local wheel, since plain
``pip install torch`` resolves to the CUDA build.) Runs: ``python make_data.py``, ``python
train.py v1``, ``python train.py v2``, then ``torch-model-archiver --model-name sensornet_v1
--version 1.0 --model-file model.py --serialized-file artifacts/sensornet_v1.pth --handler
handler.py --extra-files index_to_name.json --export-path model_store`` and
``torch-model-archiver --model-name sensornet_v2 --version 2.0 --serialized-file
artifacts/sensornet_v2_scripted.pt --handler handler.py --extra-files index_to_name.json
--config-file model-config.yaml --export-path model_store``. TorchServe itself (Java) is
not run.
"""

# ruff: noqa: E501 - the lines the tool's scripts and install ran with, quoted as they were

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

FILES = {
    'make_data.py': '''"""Write the toy sensor table data/readings.csv (12 features, 3 classes): python make_data.py"""
from pathlib import Path

import torch

g = torch.Generator().manual_seed(0)
y = torch.randint(0, 3, (600,), generator=g)
x = torch.eye(3, 12)[y] * 1.5 + torch.randn(600, 12, generator=g)
Path("data").mkdir(exist_ok=True)
with open("data/readings.csv", "w") as f:
    f.write(",".join(f"s{i}" for i in range(12)) + ",label\\n")
    for row, label in zip(x.tolist(), y.tolist()):
        f.write(",".join(f"{v:.4f}" for v in row) + f",{label}\\n")
''',
    'model.py': '''import torch
from torch import nn


class SensorNet(nn.Module):
    def __init__(self, n_features: int = 12, n_classes: int = 3, hidden: int = 32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(),
                                 nn.Linear(hidden, n_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)
''',
    'handler.py': '''"""TorchServe handler: a JSON list of 12 readings per request -> class name."""
import json

import torch
from ts.torch_handler.base_handler import BaseHandler


class SensorHandler(BaseHandler):
    def preprocess(self, data):
        rows = []
        for item in data:
            body = item.get("data") or item.get("body")
            if isinstance(body, (bytes, bytearray)):
                body = json.loads(body)
            rows.append(body["readings"] if isinstance(body, dict) else body)
        return torch.tensor(rows, dtype=torch.float32)

    def postprocess(self, logits):
        names = self.mapping or {}
        return [names.get(str(i), str(i)) for i in logits.argmax(1).tolist()]
''',
    'train.py': '''"""Train SensorNet on data/readings.csv: python train.py v1|v2
v1 saves the state_dict (eager mode); v2 trains longer and also saves TorchScript."""
import csv
import sys
from pathlib import Path

import torch

from model import SensorNet

version = sys.argv[1]
rows = list(csv.reader(open("data/readings.csv")))[1:]
x = torch.tensor([[float(v) for v in r[:-1]] for r in rows])
y = torch.tensor([int(r[-1]) for r in rows])
torch.manual_seed(0)
model = SensorNet(hidden=32 if version == "v1" else 64)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(20 if version == "v1" else 60):
    loss = torch.nn.functional.cross_entropy(model(x[:500]), y[:500])
    opt.zero_grad()
    loss.backward()
    opt.step()
acc = (model(x[500:]).argmax(1) == y[500:]).float().mean().item()
Path("artifacts").mkdir(exist_ok=True)
torch.save(model.state_dict(), f"artifacts/sensornet_{version}.pth")
print(f"{version}: loss {loss.item():.3f} held-out acc {acc:.3f} -> artifacts/sensornet_{version}.pth")
if version == "v2":
    torch.jit.script(model.eval()).save("artifacts/sensornet_v2_scripted.pt")
    print("scripted -> artifacts/sensornet_v2_scripted.pt")
''',
    'index_to_name.json': '''{"0": "idle", "1": "walking", "2": "running"}
''',
    'model-config.yaml': '''minWorkers: 1
maxWorkers: 2
batchSize: 8
maxBatchDelay: 50
responseTimeout: 30
''',
    'config.properties': '''inference_address=http://127.0.0.1:8080
management_address=http://127.0.0.1:8081
metrics_address=http://127.0.0.1:8082
model_store=model_store
load_models=sensornet_v2.mar
''',
}

ARCHIVES = [
    ["--model-name", "sensornet_v1", "--version", "1.0", "--model-file", "model.py",
     "--serialized-file", "artifacts/sensornet_v1.pth", "--handler", "handler.py",
     "--extra-files", "index_to_name.json", "--export-path", "model_store"],
    ["--model-name", "sensornet_v2", "--version", "2.0",
     "--serialized-file", "artifacts/sensornet_v2_scripted.pt", "--handler", "handler.py",
     "--extra-files", "index_to_name.json", "--config-file", "model-config.yaml",
     "--export-path", "model_store"],
]


def _run(*args: str) -> str:
    done = subprocess.run(list(args), capture_output=True, text=True)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, (args, done.returncode)
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    for name, text in FILES.items():
        Path(name).write_text(text)
    _run(sys.executable, "make_data.py")
    assert "artifacts/sensornet_v1.pth" in _run(sys.executable, "train.py", "v1")
    assert "sensornet_v2_scripted.pt" in _run(sys.executable, "train.py", "v2")
    Path("model_store").mkdir()
    archiver = str(Path(sys.executable).parent / "torch-model-archiver")
    manifests = {}
    for args in ARCHIVES:
        _run(archiver, *args)
        mar = f"model_store/{args[1]}.mar"
        with zipfile.ZipFile(mar) as z:
            manifests[mar] = json.loads(z.read("MAR-INF/MANIFEST.json"))["model"]
    assert manifests["model_store/sensornet_v1.mar"]["modelVersion"] == "1.0", manifests
    assert manifests["model_store/sensornet_v2.mar"]["serializedFile"] == (
        "sensornet_v2_scripted.pt"), manifests
    return [{"run": "torch-model-archiver (sensornet_v1 1.0, sensornet_v2 2.0)",
             "best": None, "latest": None,
             "evidence": "torch-model-archiver only packs the files it is given into "
                         "<export-path>/<model-name>.mar and prints nothing; it keeps no "
                         "record of training, best or latest. Each archive's "
                         "MAR-INF/MANIFEST.json holds the version the user passed with -v: "
                         + json.dumps(manifests) + ". Which version TorchServe serves is "
                         "the server's registration (config.properties load_models, the "
                         "management API), not the archiver's."}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith(("model_store/", "artifacts/")):
        return "checkpoint"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "torch-model-archiver",
           tool="torch-model-archiver",
           kind="TorchServe model archives (.mar) beside the serialized model and handler",
           command="python make_data.py; python train.py v1; python train.py v2; "
                   + "; ".join("torch-model-archiver " + " ".join(a) for a in ARCHIVES))
