"""pymc: the radon example of PyMC's "A Primer on Bayesian Methods for Multilevel Modeling"
cut to toy size, on the user's ``data/radon.csv`` (log radon per house, its county and
whether it was measured in the basement): a ``pooled`` and a ``hierarchical`` (partially
pooled intercepts) regression, each sampled with ``pm.sample`` on CPU, its trace saved with
ArviZ's ``InferenceData.to_netcdf`` and ``az.summary`` written next to it, as the PyMC
examples do. ``HOME`` is the workspace, so PyTensor's compile cache (``~/.pytensor``, its
default) is in the capture.

    python3.11 -m venv /tmp/h5/pymc/venv
    /tmp/h5/pymc/venv/bin/pip install pymc
    /tmp/h5/pymc/venv/bin/python tests/corpus/heldout5/pymc/make_fixtures.py

``python fit.py pooled`` then ``python fit.py hierarchical``: ``pm.sample(draws=300,
tune=300, chains=2, random_seed=...)`` (NUTS, PyMC's default sampler; ``cores`` left at
its default: PyMC reported "Sequential sampling (2 chains in 1 job)" here), then
``pm.sample_posterior_predictive(idata, extend_inferencedata=True)``,
``idata.to_netcdf('traces/<model>.nc')`` and ``az.summary(idata).to_csv(
'results/<model>_summary.csv')``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

FIT = '''"""Fit the radon model: python fit.py pooled|hierarchical"""
import sys

import arviz as az
import numpy as np
import pandas as pd
import pymc as pm

SEEDS = {"pooled": 11, "hierarchical": 12}


def build(kind, df):
    county_idx, counties = pd.factorize(df["county"], sort=True)
    coords = {"county": counties, "obs_id": np.arange(len(df))}
    with pm.Model(coords=coords) as model:
        floor = pm.Data("floor", df["floor"].to_numpy(), dims="obs_id")
        if kind == "pooled":
            alpha = pm.Normal("alpha", 0.0, 10.0)
        else:
            mu_a = pm.Normal("mu_a", 0.0, 10.0)
            sigma_a = pm.HalfNormal("sigma_a", 5.0)
            z = pm.Normal("z", 0.0, 1.0, dims="county")
            alpha = pm.Deterministic("alpha", mu_a + z * sigma_a, dims="county")[county_idx]
        beta = pm.Normal("beta", 0.0, 10.0)
        sigma = pm.Exponential("sigma", 1.0)
        pm.Normal("y", alpha + beta * floor, sigma, observed=df["log_radon"], dims="obs_id")
    return model


if __name__ == "__main__":
    kind = sys.argv[1]
    df = pd.read_csv("data/radon.csv")
    with build(kind, df):
        idata = pm.sample(draws=300, tune=300, chains=2, random_seed=SEEDS[kind],
                          progressbar=False)
        pm.sample_posterior_predictive(idata, extend_inferencedata=True,
                                       random_seed=SEEDS[kind], progressbar=False)
    written = idata.to_netcdf(f"traces/{kind}.nc")
    print("saved", written)
    summary = az.summary(idata, var_names=[v for v in idata.posterior.data_vars if v != "z"])
    summary.to_csv(f"results/{kind}_summary.csv")
    print(summary.to_string())
'''


def _radon(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(7)
    counties = ["AITKIN", "ANOKA", "BLUE EARTH", "CASS", "CLAY", "DAKOTA", "HENNEPIN",
                "RAMSEY"]
    level = rng.normal(1.4, 0.35, size=len(counties))
    idx = rng.integers(0, len(counties), size=160)
    floor = rng.integers(0, 2, size=160)
    y = level[idx] - 0.6 * floor + rng.normal(0, 0.7, size=160)
    path.parent.mkdir(parents=True)
    rows = [f"{i},{counties[c]},{f},{v:.4f}"
            for i, (c, f, v) in enumerate(zip(idx, floor, y, strict=True))]
    path.write_text("idnum,county,floor,log_radon\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _radon(Path("data/radon.csv"))
    Path("fit.py").write_text(FIT)
    Path("traces").mkdir()
    Path("results").mkdir()
    env = {**os.environ, "HOME": str(work)}
    env.pop("PYTENSOR_FLAGS", None)
    checkpoints = []
    for kind in ("pooled", "hierarchical"):
        done = subprocess.run([sys.executable, "fit.py", kind], capture_output=True, text=True,
                              check=True, env=env)
        sys.stderr.write(done.stdout + done.stderr)
        path = f"traces/{kind}.nc"
        assert f"saved {path}" in done.stdout.splitlines(), done.stdout
        checkpoints.append({
            "run": f"python fit.py {kind}", "best": None, "latest": path,
            "evidence": f"InferenceData.to_netcdf returned '{path}' (printed by fit.py), the "
                        f"one trace the run saved; pm.sample keeps no notion of a best draw "
                        f"or state, and writes nothing itself"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("traces/"):
        return "checkpoint"
    if path.startswith("results/"):
        return "log"
    if path.startswith((".pytensor/", ".cache/")):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pymc", tool="pymc",
           kind="probabilistic programming, MCMC (pm.sample, ArviZ InferenceData)",
           command="HOME=<workspace>; python fit.py pooled; python fit.py hierarchical "
                   "(fit.py: pm.sample(draws=300, tune=300, chains=2), "
                   "sample_posterior_predictive, idata.to_netcdf('traces/<model>.nc'), "
                   "az.summary(...).to_csv('results/<model>_summary.csv'))")
