"""sbi: a scientist runs simulation-based inference with the ``sbi`` toolkit: sequential neural
posterior estimation (``NPE``, a small MAF density estimator) on the user's toy simulator
(a 3-parameter noisy linear-Gaussian model, ``simulator.py``), two rounds of 500
simulations each, the second round drawn from the first round's posterior at the observation
``x_o`` (the "multi-round inference" tutorial). Training uses sbi's early stopping on
validation loss (``stop_after_epochs=5``, ``max_num_epochs=60``); sbi's default tracker
writes TensorBoard event files under ``sbi-logs/NPE/<timestamp>/``. The user saves what the
docs' "save and load" FAQ shows: each round's posterior with ``pickle``, the trainer
(``inference``) with ``pickle`` at the end, the density estimator's state dict with
``torch.save``, the simulations with ``torch.save``, and a ``pairplot`` of samples.

    python3.11 -m venv /tmp/h12/sbi/venv
    /tmp/h12/sbi/venv/bin/pip install /opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl
    /tmp/h12/sbi/venv/bin/pip install sbi tensorboard six
    /tmp/h12/sbi/venv/bin/python tests/corpus/heldout12/sbi/make_fixtures.py

Runs: ``python run_npe.py`` (writes ``data/simulations_round{1,2}.pt``,
``models/posterior_round{1,2}.pkl``, ``models/inference.pkl``,
``models/density_estimator.pt``, ``results/pairplot.png``, ``sbi-logs/``), with its stdout
kept by ``python run_npe.py | tee logs/run_npe.log``.
"""

# ruff: noqa: E501 - the install line quoted as it was run

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

SIMULATOR = '''"""The user's toy simulator: x = A @ theta + noise (3 parameters, 5 observables)."""
import torch

A = torch.tensor([[1.0, 0.5, 0.0], [0.0, 1.0, -0.5], [0.3, 0.0, 1.0],
                  [1.0, 1.0, 1.0], [0.0, -1.0, 0.5]])


def simulator(theta):
    return theta @ A.T + 0.1 * torch.randn(theta.shape[0], A.shape[0])
'''

RUN = '''"""Two-round sequential NPE on simulator.py: python run_npe.py"""
import pickle
from pathlib import Path

import torch
from sbi.analysis import pairplot
from sbi.inference import NPE
from sbi.neural_nets import posterior_nn
from sbi.utils import BoxUniform

from simulator import simulator

torch.manual_seed(0)
for d in ("data", "models", "results"):
    Path(d).mkdir(exist_ok=True)
prior = BoxUniform(low=-2 * torch.ones(3), high=2 * torch.ones(3))
theta_true = torch.tensor([[0.5, -1.0, 1.2]])
x_o = simulator(theta_true)

inference = NPE(prior=prior, density_estimator=posterior_nn(
    model="maf", hidden_features=20, num_transforms=2))
proposal = prior
for r in (1, 2):
    theta = proposal.sample((500,))
    x = simulator(theta)
    torch.save({"theta": theta, "x": x}, f"data/simulations_round{r}.pt")
    density_estimator = inference.append_simulations(theta, x, proposal=proposal).train(
        training_batch_size=50, stop_after_epochs=5, max_num_epochs=60)
    print()
    s = inference.summary
    print(f"round {r}: epochs_trained={s['epochs_trained'][-1]} "
          f"best_validation_loss={s['best_validation_loss'][-1]:.4f} "
          f"last_validation_loss={s['validation_loss'][-1]:.4f}")
    posterior = inference.build_posterior(density_estimator)
    with open(f"models/posterior_round{r}.pkl", "wb") as f:
        pickle.dump(posterior, f)
    print(f"saved models/posterior_round{r}.pkl")
    proposal = posterior.set_default_x(x_o)

torch.save(density_estimator.state_dict(), "models/density_estimator.pt")
print("saved models/density_estimator.pt")
with open("models/inference.pkl", "wb") as f:
    pickle.dump(inference, f)
print("saved models/inference.pkl")
samples = posterior.sample((2000,), x=x_o)
print("posterior mean", samples.mean(0).tolist())
fig, ax = pairplot(samples, limits=[[-2, 2]] * 3, points=theta_true, figsize=(6, 6))
fig.savefig("results/pairplot.png")
'''


def run(work: Path) -> list[dict[str, object]]:
    import pickle

    import torch

    Path("simulator.py").write_text(SIMULATOR)
    Path("run_npe.py").write_text(RUN)
    done = subprocess.run([sys.executable, "run_npe.py"], capture_output=True, text=True)
    Path("logs").mkdir()
    Path("logs/run_npe.log").write_text(done.stdout)  # what `| tee logs/run_npe.log` keeps
    sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
    assert done.returncode == 0, done.returncode
    out = done.stdout
    rounds = re.findall(r"round (\d): epochs_trained=(\d+) best_validation_loss=(\S+) "
                        r"last_validation_loss=(\S+)", out)
    assert len(rounds) == 2, out
    assert "Neural network successfully converged" in out, out
    events = sorted(Path("sbi-logs").rglob("events.out.tfevents.*"))
    assert events, list(Path(".").rglob("*"))
    assert len(events) == 1, events  # (unpickling models/inference.pkl would add a folder)
    with open("models/posterior_round2.pkl", "rb") as f:
        posterior = pickle.load(f)
    sd = torch.load("models/density_estimator.pt")
    net_sd = posterior.posterior_estimator.state_dict()
    assert all(torch.equal(sd[k], net_sd[k]) for k in sd)
    return [{"run": "python run_npe.py",
             "best": None,
             "latest": "models/posterior_round2.pkl",
             "evidence": "sbi writes no checkpoint files and names no best or latest one: "
                         "each round's train() returns the network restored to its epoch "
                         "of lowest validation loss (its summary, printed by the script: "
                         f"{rounds}; (round, epochs_trained, best, last validation loss)) "
                         "and the user pickles build_posterior(...) of it. The last round's "
                         "posterior, models/posterior_round2.pkl, is the result of the "
                         "sequential run (its estimator equals models/density_estimator.pt; "
                         "models/inference.pkl is the pickled trainer with both rounds' "
                         "simulations). No best across rounds: the rounds' validation losses "
                         "are on different proposals."}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith(("sbi-logs/", "logs/", "results/")):
        return "log"
    if path.endswith(".pyc"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "sbi", tool="sbi",
           kind="simulation-based inference (pickled posteriors/trainer, torch state dict, "
                "TensorBoard tracker logs under sbi-logs/)",
           command="python run_npe.py | tee logs/run_npe.log (NPE(prior, density_estimator="
                   "posterior_nn('maf')), 2 rounds: append_simulations(...).train("
                   "stop_after_epochs=5, max_num_epochs=60); pickle.dump(posterior); "
                   "pickle.dump(inference); torch.save(state_dict))")
