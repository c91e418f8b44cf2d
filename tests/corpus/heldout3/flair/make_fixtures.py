"""Flair: a small BiLSTM-CRF sequence tagger (NER) on a toy CoNLL-style corpus, CPU, 5
epochs, trained with Flair's ModelTrainer as its tutorial does.

    /work/venvs/tools-a/bin/pip install torch==2.13.0 flair
    /work/venvs/tools-a/bin/python tests/corpus/heldout3/flair/make_fixtures.py

The corpus is three column files (``data/ner/{train,dev,test}.txt``, token and BIO tag) read
with ``ColumnCorpus``; the embeddings are trained from scratch (``OneHotEmbeddings`` over
the corpus's words stacked with ``CharacterEmbeddings`` over the corpus's characters: Flair's
default character list is a download).
``ModelTrainer(tagger, corpus).train("resources/taggers/toy-ner", max_epochs=5,
save_model_each_k_epochs=2)`` writes into that folder ``best-model.pt`` whenever the dev
score improves, ``model_epoch_<N>.pt`` every 2 epochs, ``final-model.pt`` after the last
epoch, ``loss.tsv``, ``training.log`` and ``test.tsv`` (the best model's test predictions).
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

PEOPLE = ["Anna", "Boris", "Chen", "Dara", "Emil", "Fatima", "Goran", "Hana"]
PLACES = ["Berlin", "Lagos", "Osaka", "Lima", "Oslo", "Quito", "Hanoi", "Perth"]
ORGS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli"]
TEMPLATES = ["{p} flew to {l} on Monday .", "{p} works for {o} in {l} .",
             "The office of {o} is in {l} .", "{p} met {q} at {o} .",
             "Yesterday {p} visited {l} with {q} .", "{o} hired {p} last year ."]


def _sentence(rng: random.Random) -> list[tuple[str, str]]:
    slots = {"p": (rng.choice(PEOPLE), "PER"), "q": (rng.choice(PEOPLE), "PER"),
             "l": (rng.choice(PLACES), "LOC"), "o": (rng.choice(ORGS), "ORG")}
    rows = []
    for word in rng.choice(TEMPLATES).split():
        match = re.fullmatch(r"\{(\w)\}", word)
        rows.append((slots[match[1]][0], "B-" + slots[match[1]][1]) if match else (word, "O"))
    return rows


def _write_corpus(folder: Path) -> None:
    rng = random.Random(0)
    folder.mkdir(parents=True)
    for split, count in (("train", 300), ("dev", 60), ("test", 60)):
        blocks = ["\n".join(f"{word} {tag}" for word, tag in _sentence(rng))
                  for _ in range(count)]
        (folder / f"{split}.txt").write_text("\n\n".join(blocks) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    import flair
    from flair.data import Dictionary
    from flair.datasets import ColumnCorpus
    from flair.embeddings import CharacterEmbeddings, OneHotEmbeddings, StackedEmbeddings
    from flair.models import SequenceTagger
    from flair.trainers import ModelTrainer

    flair.set_seed(0)
    _write_corpus(work / "data" / "ner")
    corpus = ColumnCorpus(work / "data" / "ner", {0: "text", 1: "ner"},
                          train_file="train.txt", dev_file="dev.txt", test_file="test.txt")
    tag_dictionary = corpus.make_label_dictionary(label_type="ner", add_unk=False)
    chars = Dictionary()
    for char in sorted({c for s in corpus.train for t in s for c in t.text}):
        chars.add_item(char)
    embeddings = StackedEmbeddings([OneHotEmbeddings.from_corpus(corpus, min_freq=1,
                                                                 embedding_length=32),
                                    CharacterEmbeddings(chars, char_embedding_dim=16,
                                                        hidden_size_char=16)])
    tagger = SequenceTagger(hidden_size=32, embeddings=embeddings,
                            tag_dictionary=tag_dictionary, tag_type="ner")
    base = "resources/taggers/toy-ner"
    ModelTrainer(tagger, corpus).train(base, learning_rate=0.1, mini_batch_size=16,
                                       max_epochs=5, save_model_each_k_epochs=2)
    log = (work / base / "training.log").read_text()
    epochs = re.findall(r"EPOCH (\d+) done", log)
    best_epochs = [epoch for epoch, block in
                   zip(epochs, re.split(r"EPOCH \d+ done", log)[1:], strict=False)
                   if "saving best model" in block]
    return [{"run": base, "best": f"{base}/best-model.pt", "latest": f"{base}/final-model.pt",
             "evidence": f"training.log says 'saving best model' last after epoch "
                         f"{best_epochs[-1]} (best-model.pt, the model it then loads to "
                         f"test); final-model.pt is saved after the last epoch, "
                         f"{epochs[-1]}"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    return "checkpoint" if path.endswith(".pt") else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "flair", tool="Flair",
           kind="NLP (PyTorch)",
           command="ModelTrainer(SequenceTagger(...), ColumnCorpus('data/ner')).train("
                   "'resources/taggers/toy-ner', max_epochs=5, save_model_each_k_epochs=2)")
