"""nlpaug: offline text augmentation of a toy sentiment CSV (three augmented copies of each
sentence, keyboard typos and random word swaps: augmenters that need no model download),
written beside the raw CSV the way its example notebooks save a pandas frame.

    /work/venvs/tools-corpus/bin/pip install nlpaug pandas
    /work/venvs/tools-corpus/bin/python tests/corpus/dev/nlpaug/make_fixtures.py

``data/train.csv`` is the raw data; ``data/train_augmented.csv`` what
``nac.KeyboardAug`` and ``naw.RandomWordAug(action="swap")`` made of it (``augment(text,
n=3)`` per row), with the raw rows' labels; ``data/test.csv`` the untouched test split.
nlpaug itself writes no file of its own: the augmentation output is what a user keeps.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

GOOD = ["a wonderful film", "great acting and a clever plot", "i loved every minute",
        "the music was beautiful", "a moving and funny story"]
BAD = ["a boring mess", "the plot made no sense", "i wanted my money back",
       "terrible acting throughout", "too long and badly edited"]


def run(work: Path) -> list[dict[str, object]]:
    import nlpaug.augmenter.char as nac
    import nlpaug.augmenter.word as naw
    import pandas as pd

    rng = random.Random(0)
    rows = [{"text": f"{rng.choice(pool)}, {rng.choice(pool)}", "label": label}
            for _ in range(300) for pool, label in ((GOOD, 1), (BAD, 0))]
    (work / "data").mkdir()
    frame = pd.DataFrame(rows)
    frame[:500].to_csv(work / "data" / "train.csv", index=False)
    frame[500:].to_csv(work / "data" / "test.csv", index=False)
    random.seed(0)
    augmenters = [nac.KeyboardAug(aug_char_p=0.1), naw.RandomWordAug(action="swap")]
    augmented = []
    for row in frame[:500].itertuples():
        for augmenter in augmenters:
            augmented += [{"text": t, "label": row.label}
                          for t in augmenter.augment(row.text, n=3)]
    pd.DataFrame(augmented).to_csv(work / "data" / "train_augmented.csv", index=False)
    return []


def label(path: str) -> str:
    return "augmented" if path.endswith("_augmented.csv") else "dataset"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "nlpaug", tool="nlpaug",
           kind="text augmentation",
           command="KeyboardAug().augment(text, n=3) and RandomWordAug(action='swap')"
                   ".augment(text, n=3) per row of data/train.csv -> data/train_augmented.csv")
