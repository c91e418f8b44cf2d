"""Pyro: a Bayesian linear regression on a toy table (the user's CSV), CPU, fitted twice as
Pyro's tutorials do it: by stochastic variational inference (``SVI`` with an ``AutoNormal``
guide, ``Trace_ELBO``, ``Adam``), saving the param store and the optimizer as its
"saving and loading" notes show, and by MCMC (``NUTS``), saving the posterior samples.

    /work/venvs/tools-a/bin/pip install torch==2.13.0 pyro-ppl pandas
    /work/venvs/tools-a/bin/python tests/corpus/heldout4/pyro/make_fixtures.py

Pyro writes no file by itself; as users do, the SVI loop saves
``pyro.get_param_store().save(...)`` and ``optimizer.save(...)`` every 300 of 1500 steps as
``svi/step_<N>.params`` / ``svi/step_<N>.optim``, and ``svi/best.params`` whenever the
held-out negative log-likelihood improves, with a per-step CSV of the loss
(``svi/losses.csv``); the NUTS run saves ``torch.save(mcmc.get_samples(),
"mcmc/posterior_samples.pt")`` and its diagnostics as JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import numpy as np
    import pandas as pd
    import pyro
    import pyro.distributions as dist
    import torch
    from pyro.infer import MCMC, NUTS, SVI, Predictive, Trace_ELBO
    from pyro.infer.autoguide import AutoNormal

    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 3))
    y = x @ np.array([1.5, -2.0, 0.5]) + 0.7 + rng.normal(0, 0.8, 600)
    Path("data").mkdir()
    pd.DataFrame({"x1": x[:, 0], "x2": x[:, 1], "x3": x[:, 2], "y": y}).round(5).to_csv(
        "data/toy_regression.csv", index=False)
    table = torch.tensor(pd.read_csv("data/toy_regression.csv").values, dtype=torch.float32)
    train, held = table[:500], table[500:]

    def model(features: torch.Tensor, target: torch.Tensor | None = None) -> None:
        weight = pyro.sample("weight", dist.Normal(0.0, 5.0).expand([3]).to_event(1))
        bias = pyro.sample("bias", dist.Normal(0.0, 5.0))
        sigma = pyro.sample("sigma", dist.HalfNormal(2.0))
        with pyro.plate("data", features.shape[0]):
            pyro.sample("obs", dist.Normal(features @ weight + bias, sigma), obs=target)

    pyro.set_rng_seed(0)
    pyro.clear_param_store()
    guide = AutoNormal(model)
    optimizer = pyro.optim.Adam({"lr": 0.02})
    svi = SVI(model, guide, optimizer, loss=Trace_ELBO())
    Path("svi").mkdir()
    losses, best_nll, best_step = [], float("inf"), 0
    for step in range(1, 1501):
        losses.append(svi.step(train[:, :3], train[:, 3]))
        if step % 100 == 0:  # held-out negative log-likelihood, posterior-predictive mean
            with torch.no_grad():
                draws = Predictive(model, guide=guide, num_samples=200, return_sites=(
                    "weight", "bias", "sigma"))(held[:, :3])
                mean = held[:, :3] @ draws["weight"].reshape(-1, 3).mean(0) + draws[
                    "bias"].mean()
                nll = float(-dist.Normal(mean, draws["sigma"].mean()).log_prob(
                    held[:, 3]).mean())
            if nll < best_nll:
                best_nll, best_step = nll, step
                pyro.get_param_store().save("svi/best.params")
        if step % 300 == 0:
            pyro.get_param_store().save(f"svi/step_{step}.params")
            optimizer.save(f"svi/step_{step}.optim")
    pd.DataFrame({"step": range(1, 1501), "elbo_loss": losses}).to_csv(
        "svi/losses.csv", index=False)

    pyro.set_rng_seed(0)
    mcmc = MCMC(NUTS(model), num_samples=300, warmup_steps=200, num_chains=1,
                disable_progbar=True)
    mcmc.run(train[:, :3], train[:, 3])
    Path("mcmc").mkdir()
    torch.save(mcmc.get_samples(), "mcmc/posterior_samples.pt")
    Path("mcmc/diagnostics.json").write_text(json.dumps(  # r_hat, n_eff per site
        mcmc.diagnostics(), indent=1, default=lambda v: v.tolist()))
    return [
        {"run": "svi", "best": "svi/best.params",
         "latest": ["svi/step_1500.params", "svi/step_1500.optim"],
         "evidence": f"the user's loop last saved best.params at step {best_step} (held-out "
                     f"NLL {best_nll:.4f}); its last periodic save is step 1500"},
        {"run": "mcmc", "best": None, "latest": "mcmc/posterior_samples.pt",
         "evidence": "NUTS keeps no best: the posterior samples of its one run, saved once"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.endswith((".params", ".optim", ".pt")):
        return "checkpoint"
    return "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pyro-ppl", tool="Pyro",
           kind="probabilistic programming (PyTorch)",
           command="SVI(model, AutoNormal(model), pyro.optim.Adam, Trace_ELBO()) 1500 steps, "
                   "pyro.get_param_store().save / optimizer.save every 300 and the best by "
                   "held-out NLL; MCMC(NUTS(model), 300 samples); torch.save(mcmc.get_samples())")
