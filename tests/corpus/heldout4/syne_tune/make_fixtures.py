"""Syne Tune: ASHA over a small PyTorch MLP's learning rate and width on a toy regression
table, CPU, with the ``LocalBackend`` (each trial a subprocess running the user's
``train_mlp.py``), as Syne Tune's checkpointing example runs it: the script reports
``val_loss`` every epoch with ``Reporter`` and checkpoints with
``checkpoint_model_at_rung_level`` and ``pytorch_load_save_functions``.

    /work/venvs/tools-b/bin/pip install torch==2.13.0 syne-tune
    /work/venvs/tools-b/bin/python tests/corpus/heldout4/syne_tune/make_fixtures.py

``SYNETUNE_FOLDER`` points Syne Tune's experiment root (by default ``~/syne-tune/``) at the
project's ``syne-tune/``; the tuner writes ``syne-tune/<tuner name>-<timestamp>/`` with
``metadata.json``, ``results.csv.zip`` (every report), ``tuner.dill`` (the pickled tuner,
for resuming and ``load_experiment``) and one folder a trial (``config.json``, ``std.out``,
``std.err``, ``time_stamp-*`` and ``checkpoints/checkpoint.json``, a torch file despite its
name, rewritten every epoch).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

SCRIPT = '''"""Train a small MLP on a toy regression table; Syne Tune passes the config."""
import argparse

import torch
from syne_tune import Reporter
from syne_tune.utils import (add_checkpointing_to_argparse, checkpoint_model_at_rung_level,
                             pytorch_load_save_functions, resume_from_checkpointed_model)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float)
    parser.add_argument("--width", type=int)
    parser.add_argument("--epochs", type=int)
    add_checkpointing_to_argparse(parser)
    config = vars(parser.parse_args())

    torch.manual_seed(0)
    x = torch.randn(512, 8)
    y = (x[:, :3].sum(dim=1, keepdim=True) + 0.1 * torch.randn(512, 1))
    model = torch.nn.Sequential(torch.nn.Linear(8, config["width"]), torch.nn.ReLU(),
                                torch.nn.Linear(config["width"], 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"])
    load_model_fn, save_model_fn = pytorch_load_save_functions(
        {"model": model, "optimizer": optimizer})
    resume_from = resume_from_checkpointed_model(config, load_model_fn)

    report = Reporter()
    for epoch in range(resume_from + 1, config["epochs"] + 1):
        for i in range(0, 384, 32):
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x[i:i + 32]), y[i:i + 32])
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            val_loss = torch.nn.functional.mse_loss(model(x[384:]), y[384:]).item()
        checkpoint_model_at_rung_level(config, save_model_fn, epoch)
        report(epoch=epoch, val_loss=val_loss)


if __name__ == "__main__":
    main()
'''


def run(work: Path) -> list[dict[str, object]]:
    os.environ["SYNETUNE_FOLDER"] = str(work / "syne-tune")
    from syne_tune import StoppingCriterion, Tuner
    from syne_tune.backend import LocalBackend
    from syne_tune.config_space import loguniform, randint
    from syne_tune.experiments import load_experiment
    from syne_tune.optimizer.baselines import ASHA

    (work / "train_mlp.py").write_text(SCRIPT)
    space = {"lr": loguniform(1e-3, 0.3), "width": randint(4, 32), "epochs": 6}
    scheduler = ASHA(space, metric="val_loss", do_minimize=True, time_attr="epoch", max_t=6,
                     grace_period=1, reduction_factor=3, random_seed=0)
    tuner = Tuner(trial_backend=LocalBackend(entry_point="train_mlp.py"), scheduler=scheduler,
                  stop_criterion=StoppingCriterion(max_num_trials_finished=6), n_workers=2,
                  tuner_name="mlp-asha", sleep_time=0.5, results_update_interval=5.0)
    tuner.run()
    result = load_experiment(tuner.name)
    best = result.best_config()
    frame = result.results
    last = frame.loc[frame["st_tuner_time"].idxmax()]
    folder = Path(tuner.tuner_path).resolve().relative_to(work).as_posix()
    best_id, last_id = int(best["trial_id"]), int(last["trial_id"])
    return [{"run": folder,
             "best": f"{folder}/{best_id}/checkpoints/checkpoint.json",
             "latest": f"{folder}/{last_id}/checkpoints/checkpoint.json",
             "evidence": f"load_experiment(tuner.name).best_config(): trial {best_id} "
                         f"(val_loss {float(frame[frame.trial_id == best_id].val_loss.min()):.4f}"
                         f"); the last report in results.csv.zip (largest st_tuner_time) is "
                         f"trial {last_id}'s, epoch {int(last['epoch'])}"}]


def label(path: str) -> str:
    if path.endswith("/checkpoints/checkpoint.json"):
        return "checkpoint"
    return "other" if path == "train_mlp.py" else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "syne-tune", tool="Syne Tune",
           kind="hyperparameter tuning",
           command="SYNETUNE_FOLDER=syne-tune; Tuner(LocalBackend('train_mlp.py'), "
                   "ASHA(space, metric='val_loss', time_attr='epoch', max_t=6), "
                   "StoppingCriterion(max_num_trials_finished=6), n_workers=2, "
                   "tuner_name='mlp-asha').run()")
