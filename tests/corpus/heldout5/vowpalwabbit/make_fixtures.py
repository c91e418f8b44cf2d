"""Vowpal Wabbit (its Python package's ``vowpalwabbit.Workspace``, which takes VW's command
line): the user's toy news-topic data in VW's text format (``data/news_train.vw``, a later
batch ``data/news_week2.vw``, ``data/news_test.vw``) is trained one-against-all over
several passes through a cache file, then the saved model is trained further on the new
batch, then used to predict, each script's VW output kept in ``logs/``.

    python3.11 -m venv /tmp/h5/vowpalwabbit/venv
    /tmp/h5/vowpalwabbit/venv/bin/pip install vowpalwabbit   # 9.11.9
    /tmp/h5/vowpalwabbit/venv/bin/python tests/corpus/heldout5/vowpalwabbit/make_fixtures.py

``python train.py``: ``--oaa 4 -d data/news_train.vw --cache_file cache/news_train.cache
--passes 5 -f models/news.vw --save_resume --save_per_pass`` (``--save_per_pass`` writes
``models/news.vw.<pass>`` after each pass). ``python update.py``: ``-i models/news.vw -d
data/news_week2.vw --cache_file cache/news_week2.cache --passes 2 -f models/news_week2.vw
--save_resume``. ``python predict.py``: ``-t -i models/news_week2.vw -d data/news_test.vw
-p predictions/news_test.pred``. Each is run as ``python <script> > logs/<name>.log 2>&1``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

SCRIPT = '''"""{doc}: python {name}.py"""
import vowpalwabbit

vw = vowpalwabbit.Workspace("{args}")
vw.run_parser()
vw.finish()
'''

RUNS = (
    ("train", "Train the news-topic model",
     "--oaa 4 -d data/news_train.vw --cache_file cache/news_train.cache --passes 5 "
     "-f models/news.vw --save_resume --save_per_pass"),
    ("update", "Continue training on the second week of news",
     "-i models/news.vw -d data/news_week2.vw --cache_file cache/news_week2.cache --passes 2 "
     "-f models/news_week2.vw --save_resume"),
    ("predict", "Predict the topics of the test set",
     "-t -i models/news_week2.vw -d data/news_test.vw -p predictions/news_test.pred"),
)

TOPICS = ("sport", "politics", "tech", "finance")


def _news(folder: Path) -> None:
    import random

    rng = random.Random(0)
    folder.mkdir(parents=True)

    def line(tag: str) -> str:
        topic = rng.randrange(4)
        words = [f"{TOPICS[topic]}{rng.randrange(30)}" for _ in range(4)]
        words += [f"{TOPICS[rng.randrange(4)]}{rng.randrange(30)}" for _ in range(4)]
        words += [f"w{rng.randrange(200)}" for _ in range(6)]
        return (f"{topic + 1} '{tag} |text {' '.join(words)} |meta "
                f"length:{rng.uniform(0.1, 3):.2f} hour:{rng.randrange(24) / 24:.3f}")

    for name, count in (("news_train", 800), ("news_week2", 300), ("news_test", 200)):
        rows = [line(f"{name}_{i}") for i in range(count)]
        (folder / f"{name}.vw").write_text("\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _news(Path("data"))
    for folder in ("cache", "models", "predictions", "logs"):
        Path(folder).mkdir()
    checkpoints = []
    for name, doc, args in RUNS:
        Path(f"{name}.py").write_text(SCRIPT.format(doc=doc, name=name, args=args))
        with open(f"logs/{name}.log", "w") as log:
            subprocess.run([sys.executable, f"{name}.py"], stdout=log, stderr=subprocess.STDOUT,
                           check=True)
        text = Path(f"logs/{name}.log").read_text()
        sys.stderr.write(text)
        final = re.search(r"^final_regressor = (\S+)$", text, re.M)
        if name == "predict":
            assert final is None and "predictions = predictions/news_test.pred" in text, text
            continue
        assert final, text
        passes = re.search(r"^passes used = (\d+)$", text, re.M)
        assert passes, text
        per_pass = sorted(p.name for p in Path("models").glob(f"{Path(final.group(1)).name}.*"))
        checkpoints.append({
            "run": f"python {name}.py ({args})", "best": None, "latest": final.group(1),
            "evidence": f"VW printed 'final_regressor = {final.group(1)}' (logs/{name}.log) "
                        f"and 'passes used = {passes.group(1)}': -f is written when the run "
                        f"finishes, after the last pass (--save_per_pass files of this run: "
                        f"{per_pass or 'none'}); VW names no best model (its holdout loss, "
                        f"the 'h' lines, only decides when the passes stop)"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("cache/"):
        return "cache"
    if path.startswith("logs/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "vowpalwabbit", tool="vowpalwabbit",
           kind="online learning (vowpalwabbit.Workspace: --cache_file, -f, --save_resume, "
                "--save_per_pass, -i, -p)",
           command="; ".join(f"python {name}.py > logs/{name}.log 2>&1 (vw {args})"
                             for name, _, args in RUNS))
