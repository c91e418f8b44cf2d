"""OpenNMT-py: a tiny LSTM encoder-decoder on a toy English-to-German number-word corpus,
CPU, 300 steps, built and trained with its two commands and a YAML config as its
quickstart does.

    /work/venvs/tools-a/bin/pip install torch==2.13.0
    /work/venvs/tools-a/bin/pip install --no-deps opennmt-py==3.5.1
    /work/venvs/tools-a/bin/pip install configargparse pyonmttok sacrebleu tensorboard rapidfuzz \
        spacy waitress flask ctranslate2 fasttext-wheel pyahocorasick six pyyaml
    /work/venvs/tools-a/bin/python tests/corpus/heldout3/opennmt_py/make_fixtures.py

(OpenNMT-py 3.5.1 pins torch<2.3, which would bring a CUDA build of several GB; it is
installed beside this machine's torch 2.13 CPU wheel without its dependencies, then with all
of them but torch.)

``onmt_build_vocab -config toy.yaml -n_sample -1`` writes ``toy/run/example.vocab.src`` and
``.tgt``; ``onmt_train -config toy.yaml`` saves ``toy/run/model_step_<N>.pt`` every
``save_checkpoint_steps`` (100) steps and at the end, logs to ``toy/run/train.log`` and, with
``tensorboard: true``, to TensorBoard under ``runs/onmt/``. OpenNMT-py keeps no best
checkpoint (its early stopping, off by default, only logs a step).
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

WORDS = {"one": "eins", "two": "zwei", "three": "drei", "four": "vier", "five": "fünf",
         "six": "sechs", "seven": "sieben", "eight": "acht", "nine": "neun", "ten": "zehn"}

CONFIG = """\
## Where the samples will be written
save_data: toy/run/example
## Where the vocab(s) will be written
src_vocab: toy/run/example.vocab.src
tgt_vocab: toy/run/example.vocab.tgt
overwrite: False

# Corpus opts:
data:
    corpus_1:
        path_src: toy/src-train.txt
        path_tgt: toy/tgt-train.txt
    valid:
        path_src: toy/src-val.txt
        path_tgt: toy/tgt-val.txt

# Model: a tiny LSTM encoder-decoder
encoder_type: rnn
decoder_type: rnn
layers: 1
hidden_size: 64
word_vec_size: 32
batch_size: 32
valid_batch_size: 32
seed: 0

# Training
save_model: toy/run/model
save_checkpoint_steps: 100
train_steps: 300
valid_steps: 100
report_every: 50
log_file: toy/run/train.log
tensorboard: true
"""


def _write_corpus(folder: Path) -> None:
    rng = random.Random(0)
    folder.mkdir()
    for split, count in (("train", 2000), ("val", 100)):
        src, tgt = [], []
        for _ in range(count):
            words = rng.choices(list(WORDS), k=rng.randint(3, 8))
            src.append(" ".join(words))
            tgt.append(" ".join(WORDS[word] for word in words))
        (folder / f"src-{split}.txt").write_text("\n".join(src) + "\n")
        (folder / f"tgt-{split}.txt").write_text("\n".join(tgt) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _write_corpus(work / "toy")
    (work / "toy.yaml").write_text(CONFIG)
    bin_dir = Path(sys.executable).parent
    subprocess.run([bin_dir / "onmt_build_vocab", "-config", "toy.yaml", "-n_sample", "-1"],
                   check=True)
    subprocess.run([bin_dir / "onmt_train", "-config", "toy.yaml"], check=True)
    saved = re.findall(r"Saving checkpoint (\S+\.pt)",
                       (work / "toy/run/train.log").read_text())
    return [{"run": "toy/run", "best": None, "latest": saved[-1],
             "evidence": f"train.log's last 'Saving checkpoint' is {saved[-1]}; OpenNMT-py "
                         f"records no best checkpoint"}]


def label(path: str) -> str:
    if path.endswith(".pt") or ".vocab." in path:
        return "checkpoint"
    if path.startswith("toy/") and path.endswith(".txt"):
        return "dataset"
    return "other" if path == "toy.yaml" else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "OpenNMT-py", tool="OpenNMT-py",
           kind="NLP translation (PyTorch)",
           command="onmt_build_vocab -config toy.yaml -n_sample -1; onmt_train -config "
                   "toy.yaml (save_checkpoint_steps 100, train_steps 300, tensorboard)")
