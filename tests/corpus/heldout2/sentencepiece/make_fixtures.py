"""SentencePiece: a unigram tokenizer trained on a small text corpus, as its README's
``spm.SentencePieceTrainer.train(input=..., model_prefix="m", vocab_size=...)`` does.

    /work/venvs/tools/bin/pip install sentencepiece
    /work/venvs/tools/bin/python tests/corpus/heldout2/sentencepiece/make_fixtures.py

The corpus (``data/corpus.txt``, one sentence a line) is made here from a fixed word list;
training writes ``m.model`` (the serialized model proto) and ``m.vocab`` (one piece and its
score a line) into ``tokenizer/``, and the user encodes a held-out file into ids
(``data/encoded.txt``), a derived copy of the text.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

_TEXT = ("the model learns a small vocabulary from text and every sentence here is made of "
         "common words about training data loss gradient epoch batch token piece unigram "
         "language corpus write read save load network layer weight bias")
WORDS = tuple(_TEXT.split())


def run(work: Path) -> list[dict[str, object]]:
    import sentencepiece as spm

    rng = random.Random(0)
    (work / "data").mkdir()
    lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 20)))
             for _ in range(3000)]
    (work / "data" / "corpus.txt").write_text("\n".join(lines) + "\n")
    (work / "tokenizer").mkdir()
    spm.SentencePieceTrainer.train(input="data/corpus.txt", model_prefix="tokenizer/m",
                                   vocab_size=60, model_type="unigram")
    sp = spm.SentencePieceProcessor(model_file="tokenizer/m.model")
    (work / "data" / "encoded.txt").write_text(
        "\n".join(" ".join(map(str, sp.encode(line))) for line in lines[:500]) + "\n")
    return [{"run": "tokenizer", "best": None, "latest": "tokenizer/m.model",
             "evidence": "training writes one model, <model_prefix>.model, with its .vocab"}]


def label(path: str) -> str:
    if path == "data/corpus.txt":
        return "dataset"
    if path == "data/encoded.txt":
        return "augmented"
    return "checkpoint"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "sentencepiece", tool="SentencePiece",
           kind="NLP tokenizer",
           command="SentencePieceTrainer.train(input='data/corpus.txt', "
                   "model_prefix='tokenizer/m', vocab_size=60, model_type='unigram')")
