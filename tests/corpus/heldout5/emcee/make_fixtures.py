"""emcee: the straight-line fit of emcee's "Fitting a model to data" tutorial (slope,
intercept and an underestimated-error fraction ``log_f``) on the user's toy
``data/line.csv``, sampled with its ``HDFBackend`` as the "Saving & monitoring progress"
tutorial does, then resumed in a second session, and summarised without a corner plot.

    python3.11 -m venv /tmp/h5/emcee/venv
    /tmp/h5/emcee/venv/bin/pip install emcee h5py numpy
    /tmp/h5/emcee/venv/bin/python tests/corpus/heldout5/emcee/make_fixtures.py

Session 1: ``backend = emcee.backends.HDFBackend('chains/line_fit.h5'); backend.reset(32,
3); EnsembleSampler(32, 3, log_prob, args=(x, y, yerr), backend=backend).run_mcmc(p0,
1500)``. Session 2 (a new backend object on the same file, as the tutorial's resume):
``EnsembleSampler(..., backend=HDFBackend('chains/line_fit.h5')).run_mcmc(None, 1500)``,
then ``get_autocorr_time``, ``get_chain(discard, thin, flat=True)`` and the 16/50/84
percentiles written to ``results/summary.json`` and ``results/posterior_samples.csv``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

NAMES = ("m", "b", "log_f")


def _line(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(123)
    x = np.sort(10 * rng.random(50))
    yerr = 0.1 + 0.5 * rng.random(50)
    y = -0.9594 * x + 4.294
    y += np.abs(0.534 * y) * rng.standard_normal(50)
    y += yerr * rng.standard_normal(50)
    path.parent.mkdir(parents=True)
    path.write_text("x,y,yerr\n" + "".join(f"{a:.6f},{b:.6f},{c:.6f}\n"
                                           for a, b, c in zip(x, y, yerr, strict=True)))


def log_prob(theta: object, x: object, y: object, yerr: object) -> float:
    import numpy as np

    m, b, log_f = theta
    if not (-5.0 < m < 0.5 and 0.0 < b < 10.0 and -10.0 < log_f < 1.0):
        return -np.inf
    model = m * x + b
    sigma2 = yerr**2 + model**2 * np.exp(2 * log_f)
    return -0.5 * np.sum((y - model) ** 2 / sigma2 + np.log(sigma2))


def run(work: Path) -> list[dict[str, object]]:
    import emcee
    import numpy as np

    _line(Path("data/line.csv"))
    x, y, yerr = np.loadtxt("data/line.csv", delimiter=",", skiprows=1, unpack=True)
    Path("chains").mkdir()
    filename = "chains/line_fit.h5"

    # session 1
    np.random.seed(42)
    nwalkers, ndim = 32, 3
    p0 = np.array([-1.0, 4.5, np.log(0.5)]) + 1e-4 * np.random.randn(nwalkers, ndim)
    backend = emcee.backends.HDFBackend(filename)
    backend.reset(nwalkers, ndim)
    sampler = emcee.EnsembleSampler(nwalkers, ndim, log_prob, args=(x, y, yerr),
                                    backend=backend)
    sampler.run_mcmc(p0, 1500, progress=False)
    first = backend.iteration

    # session 2: resume from the file
    backend = emcee.backends.HDFBackend(filename)
    assert backend.iteration == first
    sampler = emcee.EnsembleSampler(nwalkers, ndim, log_prob, args=(x, y, yerr),
                                    backend=backend)
    sampler.run_mcmc(None, 1500, progress=False)
    total = backend.iteration

    reader = emcee.backends.HDFBackend(filename, read_only=True)
    tau = reader.get_autocorr_time(tol=0)
    burnin, thin = int(2 * np.max(tau)), max(1, int(0.5 * np.min(tau)))
    flat = reader.get_chain(discard=burnin, thin=thin, flat=True)
    flat_lp = reader.get_log_prob(discard=burnin, thin=thin, flat=True)
    summary = {
        "file": filename, "iterations": int(total), "nwalkers": nwalkers,
        "autocorr_time": dict(zip(NAMES, map(float, tau), strict=True)),
        "burnin": burnin, "thin": thin,
        "acceptance_fraction": float(np.mean(reader.accepted / total)),
        "posterior": {name: dict(zip(("p16", "p50", "p84"),
                                     map(float, np.percentile(flat[:, i], [16, 50, 84])),
                                     strict=True))
                      for i, name in enumerate(NAMES)},
        "map_sample": dict(zip(NAMES, map(float, flat[np.argmax(flat_lp)]), strict=True)),
    }
    Path("results").mkdir()
    Path("results/summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    np.savetxt("results/posterior_samples.csv", np.column_stack([flat, flat_lp]),
               delimiter=",", header=",".join(NAMES + ("log_prob",)), comments="",
               fmt="%.6f")
    return [{"run": filename, "best": None, "latest": filename,
             "evidence": f"the HDFBackend file is the sampler's only saved state: session 1 "
                         f"stopped at backend.iteration {first}, session 2 reopened it and "
                         f"ran on from its last walker positions and random state to "
                         f"iteration {total}; emcee names no best state"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("chains/"):
        return "checkpoint"
    return "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "emcee", tool="emcee",
           kind="MCMC sampler (ensemble, HDF5 backend)",
           command="HDFBackend('chains/line_fit.h5').reset(32, 3); EnsembleSampler(32, 3, "
                   "log_prob, backend=backend).run_mcmc(p0, 1500); EnsembleSampler(..., "
                   "backend=HDFBackend('chains/line_fit.h5')).run_mcmc(None, 1500); "
                   "summary to results/summary.json, results/posterior_samples.csv")
