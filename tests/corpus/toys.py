"""The toy workloads the corpus's tools run on, shared so that every tracker and profiler
sees the same work: a small NumPy training loop (as a script, for profilers that run one)
and a small PyTorch regression (for trackers that log it). Imports nothing at module level
beyond the standard library: each make_fixtures.py runs in the tools' own environment."""

from __future__ import annotations

from collections.abc import Callable


def numpy_loop_script(steps: int) -> str:
    """A script a profiler runs: a linear model's gradient steps on random batches."""
    return f"""import numpy as np

rng = np.random.default_rng(0)
w = rng.normal(size=(256, 10))
for step in range({steps}):
    x = rng.normal(size=(2048, 256))
    logits = x @ w
    w -= 1e-4 * x.T @ (logits - logits.mean(axis=0))
print("done", float(w.sum()))
"""


def torch_regression(steps: int, on_step: Callable[[int, float, float], None]):  # noqa: ANN201
    """Fit a 16-256-1 MLP on toy regression data for ``steps`` full-batch steps, calling
    ``on_step(step, train_loss, val_loss)`` after each; the trained model."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(512, 16)
    y = x.sum(dim=1, keepdim=True)
    for step in range(steps):
        loss = torch.nn.functional.mse_loss(model(x[:384]), y[:384])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            val = torch.nn.functional.mse_loss(model(x[384:]), y[384:])
        on_step(step, loss.item(), val.item())
    return model


#: What torch_regression logs as its parameters.
TORCH_REGRESSION_PARAMS = {"lr": 1e-3, "hidden": 256}
