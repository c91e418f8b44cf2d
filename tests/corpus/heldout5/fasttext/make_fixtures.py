"""fastText (the ``fasttext-wheel`` build of the official Python bindings): the user's toy
support-ticket corpus in fastText's ``__label__`` format (``data/tickets.train``,
``data/tickets.valid``, as the library's text-classification tutorial has
``cooking.train``/``cooking.valid``) trains a supervised classifier saved with
``save_model``, then a second script quantizes it to a ``.ftz``, as the tutorial does.

    python3.11 -m venv /tmp/h5/fasttext/venv
    /tmp/h5/fasttext/venv/bin/pip install fasttext-wheel "numpy<2"   # 0.9.2
    /tmp/h5/fasttext/venv/bin/python tests/corpus/heldout5/fasttext/make_fixtures.py

``python train.py``: ``fasttext.train_supervised(input='data/tickets.train', lr=0.5,
epoch=20, wordNgrams=2, dim=32, minCount=1, loss='softmax')``, ``model.test`` on the
validation file, ``model.save_model('models/tickets.bin')``. ``python quantize.py``:
``fasttext.load_model('models/tickets.bin')``, ``model.quantize(input='data/tickets.train',
qnorm=True, retrain=True, cutoff=5000)``, ``model.save_model('models/tickets.ftz')``; each
script appends its precision/recall line to ``logs/eval.tsv``. fastText writes nothing
but the files it is asked to save.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Train the ticket router: python train.py"""
import fasttext

model = fasttext.train_supervised(input="data/tickets.train", lr=0.5, epoch=20,
                                  wordNgrams=2, dim=32, minCount=1, loss="softmax")
n, precision, recall = model.test("data/tickets.valid")
print(f"valid n={n} P@1={precision:.3f} R@1={recall:.3f}")
with open("logs/eval.tsv", "a") as f:
    f.write(f"tickets.bin\\t{n}\\t{precision:.4f}\\t{recall:.4f}\\n")
model.save_model("models/tickets.bin")
print("saved models/tickets.bin")
'''

QUANTIZE = '''"""Compress the ticket router for the help-desk service: python quantize.py"""
import fasttext

model = fasttext.load_model("models/tickets.bin")
model.quantize(input="data/tickets.train", qnorm=True, retrain=True, cutoff=5000)
n, precision, recall = model.test("data/tickets.valid")
print(f"quantized valid n={n} P@1={precision:.3f} R@1={recall:.3f}")
with open("logs/eval.tsv", "a") as f:
    f.write(f"tickets.ftz\\t{n}\\t{precision:.4f}\\t{recall:.4f}\\n")
model.save_model("models/tickets.ftz")
print("saved models/tickets.ftz")
'''

TOPICS = {
    "billing": "invoice charge refund payment card billed twice plan price receipt vat",
    "login": "password reset account locked sign in two factor code email login sso",
    "shipping": "parcel delivery tracking courier late address package shipped lost box",
    "bug": "app crash error screen freeze button broken update page blank slow sync",
}
FILLER = "hi hello please help my the a an it is was since yesterday today urgent thanks i we"


def _tickets(folder: Path) -> None:
    import random

    rng = random.Random(0)
    folder.mkdir(parents=True)
    filler = FILLER.split()
    lines = []
    for _ in range(2400):
        topic = rng.choice(sorted(TOPICS))
        words = rng.sample(TOPICS[topic].split(), 4) + rng.sample(filler, 5)
        if rng.random() < 0.3:  # some tickets mention a second topic
            words += rng.sample(TOPICS[rng.choice(sorted(TOPICS))].split(), 2)
        rng.shuffle(words)
        lines.append(f"__label__{topic} " + " ".join(words))
    (folder / "tickets.train").write_text("\n".join(lines[:2000]) + "\n")
    (folder / "tickets.valid").write_text("\n".join(lines[2000:]) + "\n")


def _run(script: str) -> str:
    done = subprocess.run([sys.executable, script], capture_output=True, text=True)
    sys.stderr.write(done.stdout + done.stderr)
    done.check_returncode()
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    import fasttext

    _tickets(Path("data"))
    Path("train.py").write_text(TRAIN)
    Path("quantize.py").write_text(QUANTIZE)
    Path("models").mkdir()
    Path("logs").mkdir()
    checkpoints = []
    for script, path in (("train.py", "models/tickets.bin"),
                         ("quantize.py", "models/tickets.ftz")):
        out = _run(script)
        assert f"saved {path}" in out, out
        labels = fasttext.load_model(path).get_labels()
        assert len(labels) == len(TOPICS), labels
        checkpoints.append({
            "run": f"python {script}", "best": None, "latest": path,
            "evidence": f"{script} called model.save_model('{path}') (fastText returns None "
                        f"and prints nothing on save; the file was reloaded with "
                        f"fasttext.load_model and has the {len(labels)} labels), the one "
                        f"model the run saved; fastText trains a fixed number of epochs and "
                        f"keeps no notion of best"})
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
    record(Path(__file__).resolve().parent, run, label, "fasttext-wheel", tool="fasttext",
           kind="text classification (fasttext.train_supervised, save_model, quantize)",
           command="python train.py; python quantize.py (train_supervised(input="
                   "'data/tickets.train', epoch=20, wordNgrams=2, dim=32) then save_model("
                   "'models/tickets.bin'); load_model, quantize(input='data/tickets.train', "
                   "qnorm=True, retrain=True, cutoff=5000), save_model('models/tickets.ftz'))")
