"""submitit: a job array of three training jobs (a scikit-learn model per learning rate)
with its ``LocalExecutor`` (the executor it uses off a Slurm cluster; the folder layout is
the one its SlurmExecutor writes), CPU, a few seconds.

    /work/venvs/tools-corpus/bin/pip install submitit scikit-learn
    /work/venvs/tools-corpus/bin/python tests/corpus/dev/submitit/make_fixtures.py

``AutoExecutor(folder="log_test", cluster="local")`` (its README's folder) and ``map_array``
write per job ``<job id>_submitted.pkl`` (the pickled function and arguments), ``<job
id>_0_log.out`` and ``<job id>_0_log.err`` (the job's stdout and stderr) and ``<job
id>_0_result.pkl`` (the pickled return value). No job saves a checkpoint."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def train(lr: float) -> dict[str, float]:
    from sklearn.datasets import make_classification
    from sklearn.linear_model import SGDClassifier

    x, y = make_classification(500, 10, random_state=0)
    model = SGDClassifier(eta0=lr, learning_rate="constant", random_state=0).fit(x, y)
    print(f"lr={lr} accuracy={model.score(x, y):.3f}")
    return {"lr": lr, "accuracy": float(model.score(x, y))}


def run(work: Path) -> list[dict[str, object]]:
    import submitit

    executor = submitit.AutoExecutor(folder="log_test", cluster="local")
    executor.update_parameters(timeout_min=5)
    jobs = executor.map_array(train, [0.001, 0.01, 0.1])
    print([job.result() for job in jobs])
    return []


def label(path: str) -> str:
    return "log"  # a job's stdout/stderr, and the pickled submission and result it records


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "submitit", tool="submitit",
           kind="job launcher", command="AutoExecutor(folder='log_test', "
                                        "cluster='local').map_array(train, [0.001, 0.01, 0.1])")
