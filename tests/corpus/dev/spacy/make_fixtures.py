"""spaCy: ``spacy train`` of a blank English text classifier (textcat) and tagger on toy
sentences, CPU, a few seconds.

    python -m venv /work/venvs/tools-corpus && /work/venvs/tools-corpus/bin/pip install spacy
    /work/venvs/tools-corpus/bin/python tests/corpus/dev/spacy/make_fixtures.py

The workspace is a spaCy project as its docs lay it out: ``corpus/train.spacy`` and
``corpus/dev.spacy`` (DocBin files), ``config.cfg`` (``spacy init config``), and the
``training/`` output folder ``spacy train config.cfg --output training`` writes:
``model-best/`` and ``model-last/``, each a whole pipeline (config.cfg, meta.json,
tokenizer, vocab/, one folder per component with its ``model`` weights and ``cfg``). spaCy
says which is best and which is last by those very names (its training loop saves
``model-best`` whenever the score it prints improves, and ``model-last`` at the end); the
log it prints is kept as ``train.log``, as ``spacy train ... | tee train.log`` does.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

WORDS = ["good", "great", "fine", "nice", "bad", "awful", "poor", "terrible", "movie", "film",
         "plot", "actor", "ending", "music", "scene", "story"]


def _docs(nlp, n: int, seed: int):  # noqa: ANN001, ANN202 - spaCy objects
    rng = random.Random(seed)
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(8)]
        doc = nlp.make_doc(" ".join(words))
        positive = sum(w in ("good", "great", "fine", "nice") for w in words)
        negative = sum(w in ("bad", "awful", "poor", "terrible") for w in words)
        doc.cats = {"POS": float(positive >= negative), "NEG": float(positive < negative)}
        for token in doc:
            token.tag_ = "ADJ" if token.text in WORDS[:8] else "NOUN"
        yield doc


def run(work: Path) -> list[dict[str, object]]:
    import spacy
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    (work / "corpus").mkdir()
    for name, n, seed in (("train", 200, 0), ("dev", 50, 1)):
        DocBin(docs=list(_docs(nlp, n, seed))).to_disk(work / "corpus" / f"{name}.spacy")
    spacy_cli = [sys.executable, "-m", "spacy"]
    subprocess.run([*spacy_cli, "init", "config", "config.cfg", "--lang", "en", "--pipeline",
                    "textcat,tagger", "--optimize", "efficiency", "--force"], check=True)
    done = subprocess.run([*spacy_cli, "train", "config.cfg", "--output", "training",
                           "--paths.train", "corpus/train.spacy", "--paths.dev",
                           "corpus/dev.spacy", "--training.max_steps", "120",
                           "--training.eval_frequency", "20"],
                          check=True, capture_output=True, text=True)
    (work / "train.log").write_text(done.stdout + done.stderr)
    return [{"run": "training", "best": "training/model-best", "latest": "training/model-last",
             "evidence": "spacy train saves model-best when its score improves and "
                         "model-last at the end (its log: 'Saved pipeline to output "
                         "directory training/model-last')"}]


def label(path: str) -> str:
    if path.startswith("training/model-"):
        return "checkpoint"
    if path.startswith("corpus/"):
        return "dataset"
    if path == "train.log":
        return "log"
    return "other"  # config.cfg: the config the researcher wrote


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "spacy", tool="spaCy", kind="NLP",
           command="spacy init config --pipeline textcat,tagger; spacy train config.cfg "
                   "--output training --training.max_steps 120")
