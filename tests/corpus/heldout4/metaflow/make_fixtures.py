"""Metaflow: a training flow run twice on the local datastore, as Metaflow's tutorials run
it on a laptop: ``start`` splits scikit-learn's breast-cancer table, a ``foreach`` over C
values fits one logistic-regression pipeline a branch, ``join`` keeps the best as
``best_model``; the second run with other C values (``--cs``). CPU.

    /work/venvs/tools-b/bin/pip install metaflow scikit-learn
    /work/venvs/tools-b/bin/python tests/corpus/heldout4/metaflow/make_fixtures.py

``python train_flow.py run`` writes ``.metaflow/TrainFlow/``: ``data/<sha[:2]>/<sha>`` (every
artifact, gzipped pickles addressed by content, each with a ``<sha>_meta``), one folder a
run (``<run id>/<step>/<task id>/``: ``0.data.json`` mapping the task's artifact names to
hashes, ``0.attempt.json``, ``0.runtime``, ``0.task_begin``/``0.task_end``,
``0.DONE.lock``, the task's stdout and stderr, ``_meta/`` with the artifacts' and system
metadata) and ``latest_run`` (the newest run id, ``Flow.latest_run``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

FLOW = '''"""Fit a logistic regression for several C in parallel branches; keep the best."""
from metaflow import FlowSpec, Parameter, step


class TrainFlow(FlowSpec):
    cs = Parameter("cs", default="0.01,0.1,1.0", help="comma-separated C values")

    @step
    def start(self):
        from sklearn.datasets import load_breast_cancer
        from sklearn.model_selection import train_test_split
        X, y = load_breast_cancer(return_X_y=True)
        self.X_train, self.X_test, self.y_train, self.y_test = train_test_split(
            X, y, test_size=0.25, random_state=0)
        self.grid = [float(c) for c in self.cs.split(",")]
        self.next(self.train, foreach="grid")

    @step
    def train(self):
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        self.C = self.input
        self.model = make_pipeline(StandardScaler(), LogisticRegression(C=self.C, max_iter=500))
        self.model.fit(self.X_train, self.y_train)
        self.score = self.model.score(self.X_test, self.y_test)
        self.next(self.join)

    @step
    def join(self, inputs):
        best = max(inputs, key=lambda i: i.score)
        self.best_model, self.best_C, self.best_score = best.model, best.C, best.score
        self.scores = {i.C: i.score for i in inputs}
        self.next(self.end)

    @step
    def end(self):
        print(f"best C={self.best_C} accuracy={self.best_score:.4f}")


if __name__ == "__main__":
    TrainFlow()
'''

ROOT = ".metaflow/TrainFlow"
MODELS = {"model", "best_model"}
SPLITS = {"X_train", "X_test", "y_train", "y_test"}
#: Each stored artifact's kind, by its content hash (filled from the runs' own indexes).
KINDS: dict[str, str] = {}


def run(work: Path) -> list[dict[str, object]]:
    (work / "train_flow.py").write_text(FLOW)
    env = {**os.environ, "USERNAME": "mluser"}
    for extra in ([], ["--cs", "3.0,10.0"]):
        subprocess.run([sys.executable, "train_flow.py", "run", *extra], cwd=work, env=env,
                       check=True)
    for index in (work / ROOT).glob("*/*/*/0.data.json"):
        for name, sha in json.loads(index.read_text())["objects"].items():
            kind = "checkpoint" if name in MODELS else "augmented" if name in SPLITS else "log"
            KINDS[sha] = min(KINDS.get(sha, kind), kind)  # checkpoint < augmented < log
    os.environ["USERNAME"] = "mluser"
    from metaflow import Flow, namespace

    namespace(None)
    flow = Flow("TrainFlow")
    latest = flow.latest_run.id
    runs = []
    for found in sorted(flow.runs(), key=lambda r: r.created_at):
        end = found["end"].task
        sha = end["best_model"].sha
        files = [f"{ROOT}/data/{sha[:2]}/{sha}", f"{ROOT}/data/{sha[:2]}/{sha}_meta"]
        runs.append({"run": f"{ROOT}/{found.id}", "best": files,
                     "latest": files if found.id == latest else None,
                     "evidence": f"Run('TrainFlow/{found.id}')['end'].task['best_model'] (the "
                                 f"join's pick: C={end.data.best_C}, accuracy "
                                 f"{end.data.best_score:.4f}) is stored as {sha}; "
                                 + ("Flow('TrainFlow').latest_run is this run"
                                    if found.id == latest else "an older run: no latest")})
    return runs


def label(path: str) -> str:
    if path == "train_flow.py":
        return "other"
    if path.startswith(f"{ROOT}/data/"):
        return KINDS[path.rsplit("/", 1)[-1].removesuffix("_meta")]
    return "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "metaflow", tool="Metaflow",
           kind="pipeline framework (local datastore)",
           command="python train_flow.py run; python train_flow.py run --cs 3.0,10.0")
