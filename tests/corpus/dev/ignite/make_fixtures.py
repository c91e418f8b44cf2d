"""PyTorch-Ignite: a supervised trainer (an MLP on toy regression data), CPU, 8 epochs,
with the two checkpoint handlers of its docs: the latest training state every epoch, and
the best two models by validation loss.

    /work/venvs/tools-corpus/bin/pip install torch==2.13.0 pytorch-ignite
    /work/venvs/tools-corpus/bin/python tests/corpus/dev/ignite/make_fixtures.py

``Checkpoint({"model", "optimizer", "trainer"}, DiskSaver("runs/exp/checkpoints"),
n_saved=2)`` writes ``checkpoint_<iteration>.pt`` and keeps the newest two;
``Checkpoint({"model"}, DiskSaver("runs/exp/best"), n_saved=2, filename_prefix="best",
score_function=-val_loss, score_name="neg_val_loss")`` writes
``best_model_<epoch>_neg_val_loss=<score>.pt`` and keeps the best two. The validation
losses go to ``runs/exp/metrics.csv`` as the user script logs them. Each handler names its
own: ``last_checkpoint`` is the newest for the first, and the best-scored for the second
(it keeps its saves sorted by score).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import torch
    from ignite.engine import Events, create_supervised_evaluator, create_supervised_trainer
    from ignite.handlers import Checkpoint, DiskSaver
    from ignite.metrics import Loss

    torch.manual_seed(0)
    x = torch.randn(512, 16)
    y = x[:, :1] * 2 + 0.1 * torch.randn(512, 1)
    train = torch.utils.data.DataLoader(list(zip(x[:384], y[:384], strict=True)), batch_size=32)
    val = torch.utils.data.DataLoader(list(zip(x[384:], y[384:], strict=True)), batch_size=64)
    model = torch.nn.Sequential(torch.nn.Linear(16, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    trainer = create_supervised_trainer(model, optimizer, torch.nn.MSELoss())
    evaluator = create_supervised_evaluator(model, metrics={"loss": Loss(torch.nn.MSELoss())})
    latest = Checkpoint({"model": model, "optimizer": optimizer, "trainer": trainer},
                        DiskSaver("runs/exp/checkpoints", require_empty=False), n_saved=2)
    best = Checkpoint({"model": model}, DiskSaver("runs/exp/best", require_empty=False),
                      n_saved=2, filename_prefix="best", score_name="neg_val_loss",
                      score_function=lambda engine: -engine.state.metrics["loss"],
                      global_step_transform=lambda *_: trainer.state.epoch)
    Path("runs/exp").mkdir(parents=True, exist_ok=True)
    log = open("runs/exp/metrics.csv", "w")  # noqa: SIM115 - closed after run()
    log.write("epoch,val_loss\n")

    @trainer.on(Events.EPOCH_COMPLETED)
    def validate(engine: object) -> None:
        evaluator.run(val)
        log.write(f"{trainer.state.epoch},{evaluator.state.metrics['loss']:.6f}\n")

    trainer.add_event_handler(Events.EPOCH_COMPLETED, latest)
    evaluator.add_event_handler(Events.COMPLETED, best)
    trainer.run(train, max_epochs=8)
    log.close()
    return [{"run": "runs/exp/checkpoints", "best": None,
             "latest": f"runs/exp/checkpoints/{latest.last_checkpoint.name}",
             "evidence": "Checkpoint.last_checkpoint of the every-epoch handler"},
            {"run": "runs/exp/best", "best": f"runs/exp/best/{best.last_checkpoint.name}",
             "latest": None,
             "evidence": "Checkpoint.last_checkpoint of the score handler (its saves sorted "
                         "by neg_val_loss)"}]


def label(path: str) -> str:
    return "checkpoint" if path.endswith(".pt") else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "pytorch-ignite", tool="PyTorch-Ignite",
           kind="training library", command="create_supervised_trainer + Checkpoint(DiskSaver, "
                                            "n_saved=2) and Checkpoint(score_function=-val_loss"
                                            ", n_saved=2); trainer.run(max_epochs=8)")
