"""Equinox (JAX): the user's ``train.py`` trains an ``eqx.nn.MLP`` classifier with Optax on
the user's toy ``data/digits_small.npz`` and saves it exactly as Equinox's "Serialisation
(with hyperparameters)" example does: a JSON line of the hyperparameters, then
``eqx.tree_serialise_leaves(f, model)``, into a ``.eqx`` file, and reloads it once with
``eqx.tree_deserialise_leaves`` to check it. Run twice, with two widths, the output kept in
a log file.

    python3.11 -m venv /tmp/h6/equinox/venv
    /tmp/h6/equinox/venv/bin/pip install equinox optax
    /tmp/h6/equinox/venv/bin/python tests/corpus/heldout6/equinox/make_fixtures.py

``python train.py 16 > logs/train_width16.log``, then ``python train.py 64 >
logs/train_width64.log``: 300 Adam steps on minibatches of 64, validation accuracy printed
every 100, the model saved to ``models/mlp_width<w>.eqx``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Train an MLP on data/digits_small.npz with Equinox: python train.py WIDTH"""
import json
import sys

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax


def make(*, key, in_size, out_size, width_size, depth):
    return eqx.nn.MLP(in_size, out_size, width_size, depth, key=key)


def save(filename, hyperparams, model):
    with open(filename, "wb") as f:
        hyperparam_str = json.dumps(hyperparams)
        f.write((hyperparam_str + "\\n").encode())
        eqx.tree_serialise_leaves(f, model)


def load(filename):
    with open(filename, "rb") as f:
        hyperparams = json.loads(f.readline().decode())
        model = make(key=jax.random.PRNGKey(0), **hyperparams)
        return eqx.tree_deserialise_leaves(f, model)


def loss_fn(model, x, y):
    logits = jax.vmap(model)(x)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


@eqx.filter_jit
def step(model, opt_state, x, y):
    loss, grads = eqx.filter_value_and_grad(loss_fn)(model, x, y)
    updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    return eqx.apply_updates(model, updates), opt_state, loss


@eqx.filter_jit
def accuracy(model, x, y):
    return (jnp.argmax(jax.vmap(model)(x), axis=1) == y).mean()


width = int(sys.argv[1])
data = np.load("data/digits_small.npz")
x, y = jnp.asarray(data["images"]), jnp.asarray(data["labels"])
x_train, y_train, x_val, y_val = x[:800], y[:800], x[800:], y[800:]
hyperparams = {"in_size": x.shape[1], "out_size": 4, "width_size": width, "depth": 2}
model = make(key=jax.random.PRNGKey(42), **hyperparams)
optim = optax.adam(3e-3)
opt_state = optim.init(eqx.filter(model, eqx.is_array))
rng = np.random.default_rng(0)
for i in range(1, 301):
    batch = rng.choice(800, size=64, replace=False)
    model, opt_state, loss = step(model, opt_state, x_train[batch], y_train[batch])
    if i % 100 == 0:
        print(f"step {i} loss {float(loss):.4f} val_acc {float(accuracy(model, x_val, y_val)):.3f}")

path = f"models/mlp_width{width}.eqx"
save(path, hyperparams, model)
reloaded = load(path)
print(f"reloaded val_acc {float(accuracy(reloaded, x_val, y_val)):.3f}")
print("saved", path)
'''


def _digits(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    labels = rng.integers(0, 4, size=1000)
    prototypes = rng.uniform(0, 1, size=(4, 64)) > 0.6
    images = prototypes[labels] * 0.4 + rng.normal(0, 1.0, size=(1000, 64))
    path.parent.mkdir(parents=True)
    np.savez(path, images=images.astype(np.float32), labels=labels.astype(np.int32))


def run(work: Path) -> list[dict[str, object]]:
    _digits(Path("data/digits_small.npz"))
    Path("train.py").write_text(TRAIN)
    for folder in ("models", "logs"):
        Path(folder).mkdir()
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    checkpoints = []
    for width in ("16", "64"):
        log = f"logs/train_width{width}.log"
        with open(log, "w") as out:
            subprocess.run([sys.executable, "train.py", width], stdout=out, text=True,
                           check=True, env=env)
        text = Path(log).read_text()
        sys.stderr.write(text)
        path = f"models/mlp_width{width}.eqx"
        assert text.strip().splitlines()[-1] == f"saved {path}", text
        checkpoints.append({
            "run": f"python train.py {width}", "best": None, "latest": path,
            "evidence": f"train.py printed 'saved {path}' ({log}) after writing it with the "
                        f"docs' save() (hyperparameter JSON line + eqx.tree_serialise_leaves), "
                        f"the one model of the run; Equinox has no checkpoint manager and so "
                        f"no notion of best"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("logs/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "equinox", tool="equinox",
           kind="JAX neural networks (Equinox MLP, eqx.tree_serialise_leaves)",
           command="python train.py 16 > logs/train_width16.log; python train.py 64 > "
                   "logs/train_width64.log (eqx.nn.MLP, optax.adam, 300 steps; save(): JSON "
                   "hyperparameters line + eqx.tree_serialise_leaves to models/"
                   "mlp_width<w>.eqx)")
