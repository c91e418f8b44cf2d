"""gensim: Word2Vec trained on a toy corpus, CPU, saved in its native format (and the
vectors alone in word2vec text format), as its tutorial does.

    /work/venvs/tools-corpus/bin/pip install gensim
    /work/venvs/tools-corpus/bin/python tests/corpus/heldout/gensim/make_fixtures.py

``Word2Vec(corpus, vector_size=128, epochs=5)`` and ``model.save("models/word2vec.model")``
write the pickled model and, for its big arrays, ``word2vec.model.wv.vectors.npy`` and
``word2vec.model.syn1neg.npy`` beside it (one model in three files);
``model.wv.save_word2vec_format("models/vectors.txt")`` the vectors as text. The corpus is
``data/corpus.txt``.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    from gensim.models import Word2Vec

    rng = random.Random(0)
    vocab = [f"w{i}" for i in range(100000)]
    lines = [" ".join(rng.choice(vocab) for _ in range(12)) for _ in range(20000)]
    (work / "data").mkdir()
    (work / "data" / "corpus.txt").write_text("\n".join(lines) + "\n")
    model = Word2Vec([line.split() for line in lines], vector_size=128, min_count=1, epochs=5,
                     seed=0, workers=1)
    (work / "models").mkdir()
    model.save("models/word2vec.model")
    model.wv.save_word2vec_format("models/vectors.txt")
    return [{"run": "models", "best": None,
             "latest": ["models/word2vec.model", "models/word2vec.model.wv.vectors.npy",
                        "models/word2vec.model.syn1neg.npy"],
             "evidence": "model.save() after training: the one model, in three files"}]


def label(path: str) -> str:
    return "dataset" if path.startswith("data/") else "checkpoint"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "gensim", tool="gensim",
           kind="NLP (word embeddings)",
           command="Word2Vec(corpus, vector_size=128, epochs=5).save('models/word2vec.model');"
                   " wv.save_word2vec_format('models/vectors.txt')")
