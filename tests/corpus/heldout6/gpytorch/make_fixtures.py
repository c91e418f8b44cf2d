"""GPyTorch: the user's ``train_gp.py`` fits an exact GP regression model to the user's toy
``data/sensor.csv`` exactly as GPyTorch's "Simple GP Regression" tutorial does
(``ExactGP`` with a constant mean and a scaled kernel, ``GaussianLikelihood``, Adam on the
``ExactMarginalLogLikelihood``), then saves it as the "Saving and Loading Models" tutorial
shows, ``torch.save(model.state_dict(), ...)``, and writes the posterior mean and variance
on a test grid. Run twice, with an RBF and a Matérn kernel, the output redirected to a log
file as a user keeping the training output would.

    python3.11 -m venv /tmp/h6/gpytorch/venv
    /tmp/h6/gpytorch/venv/bin/pip install torch==2.13.0 gpytorch
    /tmp/h6/gpytorch/venv/bin/python tests/corpus/heldout6/gpytorch/make_fixtures.py

``python train_gp.py rbf > logs/train_rbf.log``, then ``python train_gp.py matern >
logs/train_matern.log``: 50 Adam iterations each (loss, lengthscale, noise printed every
10), the state dict saved to ``models/gp_<kernel>.pth`` and the predictions to
``predictions/gp_<kernel>.csv``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Fit a GP to data/sensor.csv: python train_gp.py {rbf,matern}"""
import sys

import gpytorch
import numpy as np
import torch


class ExactGPModel(gpytorch.models.ExactGP):
    def __init__(self, train_x, train_y, likelihood, kernel):
        super().__init__(train_x, train_y, likelihood)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(kernel)

    def forward(self, x):
        mean_x = self.mean_module(x)
        covar_x = self.covar_module(x)
        return gpytorch.distributions.MultivariateNormal(mean_x, covar_x)


name = sys.argv[1]
kernel = {"rbf": gpytorch.kernels.RBFKernel(),
          "matern": gpytorch.kernels.MaternKernel(nu=2.5)}[name]
table = np.loadtxt("data/sensor.csv", delimiter=",", skiprows=1)
train_x = torch.tensor(table[:, 0], dtype=torch.float32)
train_y = torch.tensor(table[:, 1], dtype=torch.float32)

likelihood = gpytorch.likelihoods.GaussianLikelihood()
model = ExactGPModel(train_x, train_y, likelihood, kernel)
model.train()
likelihood.train()
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)
for i in range(50):
    optimizer.zero_grad()
    output = model(train_x)
    loss = -mll(output, train_y)
    loss.backward()
    if (i + 1) % 10 == 0:
        print(f"Iter {i + 1}/50 - Loss: {loss.item():.3f} lengthscale: "
              f"{model.covar_module.base_kernel.lengthscale.item():.3f} "
              f"noise: {model.likelihood.noise.item():.3f}")
    optimizer.step()

torch.save(model.state_dict(), f"models/gp_{name}.pth")
print(f"saved models/gp_{name}.pth")

model.eval()
likelihood.eval()
test_x = torch.linspace(0, 1, 101)
with torch.no_grad(), gpytorch.settings.fast_pred_var():
    pred = likelihood(model(test_x))
np.savetxt(f"predictions/gp_{name}.csv",
           np.stack([test_x.numpy(), pred.mean.numpy(), pred.variance.numpy()], 1),
           delimiter=",", header="x,mean,variance", comments="", fmt="%.5f")
'''


def _sensor(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(0, 1, size=100))
    y = np.sin(2 * np.pi * x) + 0.3 * np.cos(9 * x) + rng.normal(0, 0.15, size=100)
    path.parent.mkdir(parents=True)
    rows = [f"{a:.5f},{b:.5f}" for a, b in zip(x, y, strict=True)]
    path.write_text("time,reading\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _sensor(Path("data/sensor.csv"))
    Path("train_gp.py").write_text(TRAIN)
    for folder in ("models", "predictions", "logs"):
        Path(folder).mkdir()
    checkpoints = []
    for name in ("rbf", "matern"):
        with open(f"logs/train_{name}.log", "w") as log:
            subprocess.run([sys.executable, "train_gp.py", name], stdout=log, text=True,
                           check=True)
        out = Path(f"logs/train_{name}.log").read_text()
        sys.stderr.write(out)
        path = f"models/gp_{name}.pth"
        assert out.strip().splitlines()[-1] == f"saved {path}", out
        checkpoints.append({
            "run": f"python train_gp.py {name}", "best": None, "latest": path,
            "evidence": f"train_gp.py printed 'saved {path}' (logs/train_{name}.log) after "
                        f"torch.save(model.state_dict(), {path!r}), the tutorial's way and "
                        f"the one model of the run; GPyTorch has no checkpointing of its "
                        f"own and so no notion of best"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith(("logs/", "predictions/")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "gpytorch", tool="gpytorch",
           kind="Gaussian processes (GPyTorch exact GP regression, state_dict saved)",
           command="python train_gp.py rbf > logs/train_rbf.log; python train_gp.py matern "
                   "> logs/train_matern.log (ExactGP, Adam 50 iterations, torch.save(model."
                   "state_dict(), 'models/gp_<kernel>.pth'), predictions/gp_<kernel>.csv)")
