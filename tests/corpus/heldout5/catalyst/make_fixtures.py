"""Catalyst: a tiny MLP classifier on toy tensors (the user's ``data/blobs.pt``), CPU, trained
twice with ``SupervisedRunner.train`` as Catalyst's README "minimal examples" do.

    python3.11 -m venv /tmp/h5/catalyst/venv
    echo /tmp/h5/base/lib/python3.11/site-packages \\
        > /tmp/h5/catalyst/venv/lib/python3.11/site-packages/base.pth   # torch 2.14 (CPU use)
    /tmp/h5/catalyst/venv/bin/pip install catalyst==22.4 "accelerate<0.28"   # 0.27.2
    /tmp/h5/catalyst/venv/bin/python tests/corpus/heldout5/catalyst/make_fixtures.py

Run 1 (``logs/mlp/``): ``runner.train(..., logdir='logs/mlp', valid_loader='valid',
valid_metric='loss', minimize_valid_metric=True, load_best_on_end=True, num_epochs=6)``
with an ``AccuracyCallback``: the runner adds its own ``CheckpointCallback`` (model mode,
top-1) under ``logs/mlp/checkpoints/``, a ``CSVLogger`` and a ``TensorboardLogger``.
Run 2 (``logs/mlp_runner/``): the same with an explicit ``dl.CheckpointCallback(
'logs/mlp_runner/checkpoints', loader_key='valid', metric_key='accuracy01', minimize=False,
topk=3, mode='runner')`` (full runner state: model, criterion, optimizer, scheduler, steps),
an ``StepLR`` scheduler and 8 epochs; then
``utils.unpack_checkpoint(utils.load_checkpoint(<best>), model=model)`` and
``runner.predict_loader``.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def _toy_tensors(path: Path) -> None:
    import torch

    gen = torch.Generator().manual_seed(0)
    centers = torch.randn(3, 10, generator=gen) * 1.3
    targets = torch.randint(0, 3, (1000,), generator=gen)
    features = centers[targets] + 1.5 * torch.randn(1000, 10, generator=gen)
    path.parent.mkdir(parents=True)
    torch.save({"features": features, "targets": targets}, path)


def run(work: Path) -> list[dict[str, object]]:
    import torch
    from catalyst import dl
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    _toy_tensors(Path("data/blobs.pt"))
    data = torch.load("data/blobs.pt")
    x, y = data["features"], data["targets"]
    loaders = {
        "train": DataLoader(TensorDataset(x[:800], y[:800]), batch_size=32, shuffle=True),
        "valid": DataLoader(TensorDataset(x[800:], y[800:]), batch_size=64),
    }

    def network() -> nn.Module:
        torch.manual_seed(0)
        return nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))

    out = io.StringIO()
    results = []

    # run 1: the runner's own checkpointing (logdir + valid_metric)
    model = network()
    runner = dl.SupervisedRunner(input_key="features", output_key="logits",
                                 target_key="targets", loss_key="loss")
    with contextlib.redirect_stdout(out):
        runner.train(
            model=model, criterion=nn.CrossEntropyLoss(),
            optimizer=torch.optim.Adam(model.parameters(), lr=0.01), loaders=loaders,
            callbacks=[dl.AccuracyCallback(input_key="logits", target_key="targets",
                                           topk=(1,), num_classes=3)],
            num_epochs=6, logdir="logs/mlp", valid_loader="valid", valid_metric="loss",
            minimize_valid_metric=True, load_best_on_end=True, verbose=False, cpu=True)
    results.append(_report("logs/mlp", "model"))

    # run 2: an explicit CheckpointCallback in runner mode, top-3 by accuracy
    model = network()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    runner = dl.SupervisedRunner(input_key="features", output_key="logits",
                                 target_key="targets", loss_key="loss")
    with contextlib.redirect_stdout(out):
        runner.train(
            model=model, criterion=nn.CrossEntropyLoss(), optimizer=optimizer,
            scheduler=torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5),
            loaders=loaders,
            callbacks=[
                dl.AccuracyCallback(input_key="logits", target_key="targets", topk=(1,),
                                    num_classes=3),
                dl.SchedulerCallback(),
                dl.CheckpointCallback("logs/mlp_runner/checkpoints", loader_key="valid",
                                      metric_key="accuracy01", minimize=False, topk=3,
                                      mode="runner", load_best_on_end=True)],
            num_epochs=8, logdir="logs/mlp_runner", valid_loader="valid",
            valid_metric="accuracy01", minimize_valid_metric=False, cpu=True)
    best2 = _report("logs/mlp_runner", "runner")
    from catalyst import utils
    utils.unpack_checkpoint(utils.load_checkpoint(best2["best"]), model=model)
    preds = list(runner.predict_loader(loader=loaders["valid"], model=model))
    assert preds, "predict_loader returned nothing"
    results.append(best2)
    sys.stderr.write(out.getvalue()[-3000:])
    return results


def _report(logdir: str, mode: str) -> dict[str, object]:
    storage = json.loads(Path(f"{logdir}/checkpoints/{mode}.storage.json").read_text())
    top = storage["storage"]
    best = top[0]["logpath"]
    kept = ", ".join(f"{Path(s['logpath']).name} ({s['metric']:.4f})" for s in top)
    ckpt = f"{logdir}/checkpoints/{mode}"
    same = {name: _same_weights(f"{ckpt}.best.pth", path)
            for name, path in (("last", f"{ckpt}.last.pth"), ("numbered best", best))}
    return {"run": logdir, "best": best, "latest": f"{logdir}/checkpoints/{mode}.last.pth",
            "evidence": f"{mode}.storage.json (what Catalyst prints as 'Top models' and "
                        f"load_best_on_end reloads) ranks {kept} by {storage['loader_key']} "
                        f"{storage['metric_key']} (minimize={storage['minimize']}): best "
                        f"{Path(best).name}; {mode}.last.pth is rewritten every epoch "
                        f"(save_last); {mode}.best.pth is also written (save_best), but its "
                        f"weights equal those of the {'last' if same['last'] else 'numbered best'}"
                        f" checkpoint (Catalyst 22.04 keeps the live model in its storage)"}


def _same_weights(a: str, b: str) -> bool:
    import torch

    def weights(path: str) -> dict:
        state = torch.load(path)
        return state.get("model_state_dict", state)

    wa, wb = weights(a), weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.endswith(".pth"):
        return "checkpoint"
    return "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "catalyst", tool="Catalyst",
           kind="training framework (PyTorch)",
           command="SupervisedRunner().train(model, criterion, optimizer, loaders, "
                   "callbacks=[AccuracyCallback], num_epochs=6, logdir='logs/mlp', "
                   "valid_loader='valid', valid_metric='loss', minimize_valid_metric=True, "
                   "load_best_on_end=True, cpu=True); SupervisedRunner().train(..., "
                   "scheduler=StepLR, callbacks=[AccuracyCallback, SchedulerCallback, "
                   "CheckpointCallback('logs/mlp_runner/checkpoints', loader_key='valid', "
                   "metric_key='accuracy01', minimize=False, topk=3, mode='runner')], "
                   "num_epochs=8, logdir='logs/mlp_runner'); "
                   "unpack_checkpoint(load_checkpoint(best)); predict_loader")
