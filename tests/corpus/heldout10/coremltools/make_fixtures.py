"""coremltools: the user trains a tiny PyTorch CNN on the user's toy shape images
(``data/shapes.npz``) with ``train.py`` (``torch.save`` of the state dict to
``checkpoints/shapes_cnn.pt``), then ``export_coreml.py`` traces it and converts it with
``coremltools.convert`` to an ML Program (an image input, classifier labels, metadata) and
``.save``s it as ``exports/ShapeClassifier.mlpackage``, as the coremltools guide for PyTorch
does; ``quantize_coreml.py`` then writes an 8-bit weight copy with
``coremltools.optimize.coreml.linear_quantize_weights``. Conversion and saving run on Linux;
only prediction needs macOS, and is not done.

    python3.11 -m venv /tmp/h9/coremltools/venv
    /tmp/h9/coremltools/venv/bin/pip install torch==2.13.0 (the CPU build) coremltools
    /tmp/h9/coremltools/venv/bin/python tests/corpus/heldout10/coremltools/make_fixtures.py

``python train.py`` (3 epochs), ``python export_coreml.py``, ``python quantize_coreml.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

MODEL = '''"""The shape classifier."""
import torch
from torch import nn

CLASSES = ["circle", "square", "triangle"]


class ShapeCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(16, len(CLASSES))

    def forward(self, x):
        return torch.softmax(self.head(self.features(x).flatten(1)), dim=1)
'''

TRAIN = '''"""Train the shape classifier: python train.py"""
import numpy as np
import torch

from model import ShapeCNN

data = np.load("data/shapes.npz")
x = torch.tensor(data["images"], dtype=torch.float32).unsqueeze(1) / 255
y = torch.tensor(data["labels"], dtype=torch.long)
torch.manual_seed(0)
model = ShapeCNN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(3):
    for i in range(0, len(x), 32):
        probs = model(x[i:i + 32])
        loss = torch.nn.functional.nll_loss(torch.log(probs + 1e-8), y[i:i + 32])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.3f}")
torch.save(model.state_dict(), "checkpoints/shapes_cnn.pt")
print("saved checkpoints/shapes_cnn.pt")
'''

EXPORT = '''"""Export the trained classifier to Core ML: python export_coreml.py"""
import coremltools as ct
import torch

from model import CLASSES, ShapeCNN

model = ShapeCNN()
model.load_state_dict(torch.load("checkpoints/shapes_cnn.pt"))
model.eval()
example = torch.rand(1, 1, 32, 32)
traced = torch.jit.trace(model, example)
mlmodel = ct.convert(
    traced,
    inputs=[ct.ImageType(name="image", shape=example.shape, scale=1 / 255,
                         color_layout=ct.colorlayout.GRAYSCALE)],
    classifier_config=ct.ClassifierConfig(CLASSES),
    convert_to="mlprogram",
    minimum_deployment_target=ct.target.iOS16,
)
mlmodel.author = "toy project"
mlmodel.short_description = "Classifies 32x32 grayscale shapes"
mlmodel.version = "1.0"
mlmodel.save("exports/ShapeClassifier.mlpackage")
print("saved exports/ShapeClassifier.mlpackage")
'''

QUANTIZE = '''"""8-bit weights copy of the Core ML model: python quantize_coreml.py"""
import coremltools as ct
import coremltools.optimize.coreml as cto

mlmodel = ct.models.MLModel("exports/ShapeClassifier.mlpackage", skip_model_load=True)
config = cto.OptimizationConfig(global_config=cto.OpLinearQuantizerConfig(
    mode="linear_symmetric", weight_threshold=64))
compressed = cto.linear_quantize_weights(mlmodel, config=config)
compressed.save("exports/ShapeClassifier_int8.mlpackage")
print("saved exports/ShapeClassifier_int8.mlpackage")
'''


def _shapes(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:32, 0:32]
    images, labels = [], []
    for _ in range(240):
        kind = int(rng.integers(0, 3))
        cx, cy, r = rng.uniform(11, 21), rng.uniform(11, 21), rng.uniform(5, 9)
        if kind == 0:
            mask = (xx - cx) ** 2 + (yy - cy) ** 2 < r * r
        elif kind == 1:
            mask = (abs(xx - cx) < r * 0.8) & (abs(yy - cy) < r * 0.8)
        else:
            mask = (yy - cy > -r) & (yy - cy < r) & (abs(xx - cx) < (yy - cy + r) / 2)
        noise = rng.normal(0, 20, (32, 32))
        images.append(np.clip(mask * 200 + 30 + noise, 0, 255).astype(np.uint8))
        labels.append(kind)
    path.parent.mkdir(parents=True)
    np.savez_compressed(path, images=np.stack(images), labels=np.array(labels))


def _run(script: str) -> str:
    done = subprocess.run([sys.executable, script], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr)
    return done.stdout.strip().splitlines()[-1].removeprefix("saved ")


def run(work: Path) -> list[dict[str, object]]:
    _shapes(Path("data/shapes.npz"))
    for name, text in (("model.py", MODEL), ("train.py", TRAIN), ("export_coreml.py", EXPORT),
                       ("quantize_coreml.py", QUANTIZE)):
        Path(name).write_text(text)
    Path("checkpoints").mkdir()
    Path("exports").mkdir()
    checkpoints = []
    for script, saver in (("train.py", "torch.save"), ("export_coreml.py", "MLModel.save"),
                          ("quantize_coreml.py", "MLModel.save")):
        saved = _run(script)
        assert Path(saved).exists(), saved
        checkpoints.append({
            "run": f"python {script}", "best": None, "latest": saved,
            "evidence": f"{script} printed 'saved {saved}' after {saver}, the one model the "
                        "run wrote; neither coremltools nor the script keeps a notion of "
                        "best"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith(("checkpoints/", "exports/")):
        return "checkpoint"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "coremltools", tool="coremltools",
           kind="model conversion to Core ML (PyTorch -> ML Program .mlpackage)",
           torch=__import__("torch").__version__,
           command="python train.py (torch.save -> checkpoints/shapes_cnn.pt); python "
                   "export_coreml.py (torch.jit.trace, coremltools.convert(convert_to="
                   "'mlprogram', ImageType, ClassifierConfig), save('exports/ShapeClassifier."
                   "mlpackage')); python quantize_coreml.py (linear_quantize_weights -> "
                   "exports/ShapeClassifier_int8.mlpackage)")
