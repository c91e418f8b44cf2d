"""What the words of a checkpoint's name mean, whatever tool wrote it: the words that make it
the one to keep (best, last, latest, final, top-k) and the scores it carries
(``val_loss=0.43``, ``acc0.91``, ``neg_val_loss=-0.44``).

Why words and not each tool's patterns: a tool nobody wrote a rule for still names its best
save ``…_best.pth``, ``model-best/`` or ``final.pt``, and whoever reads such a name knows it
is not one more epoch to thin out. Words are read as tokens (split at separators and at a
lower-to-upper case change), so ``bestiary.pt`` or ``lastfm.pt`` protect nothing, and the
names of scores are taken out first, so ``top5_acc=0.9`` is a score, not a top-k.
"""

from __future__ import annotations

import re
from functools import lru_cache

from mlspace.classify.metrics import direction

_NUMBER = r"-?(?:\d+\.\d*|\.\d+|\d+)(?:e[-+]?\d+)?"
#: ``name=value`` (any value), and ``name<sep>value`` / ``namevalue`` where the value has a
#: decimal point (``acc0.91``, ``loss_0.43``): an integer after a word is an ordinal far more
#: often than a score (``epoch_3``, ``run-2``).
_WORD = r"[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z][A-Za-z0-9]*)*"
_ASSIGNED = re.compile(rf"(?<![A-Za-z0-9])({_WORD})=({_NUMBER}|nan|-?inf)", re.I)
_GLUED = re.compile(rf"(?<![A-Za-z0-9])({_WORD})[_\-:]?(-?\d+\.\d+(?:e[-+]?\d+)?)(?![\d.]*\d)",
                    re.I)
_NOT_SCORES = frozenset({"epoch", "step", "global_step", "iter", "iteration", "ep", "it", "v",
                         "version", "batch", "ba", "rank", "seed", "fold", "trial", "run"})
_TOKEN = re.compile(r"[A-Za-z]+|\d+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
#: Words that protect a checkpoint, and the role each gives. "top" takes a k after it
#: (``top1``, ``top_3``, ``topk``, ``top-k``).
_ROLE_WORDS = {"best": "best", "final": "final", "last": "last", "latest": "last"}


def scores_in(stem: str) -> tuple[tuple[str, float], ...]:
    """The scores a name's stem carries, as (metric, value), in order: every ``name=value``
    except steps and epochs, and a decimal value glued to a metric whose direction is known
    (``acc0.91``). A negated metric keeps its name and sign (``neg_val_loss``, -0.44): its
    direction says which way it improves (mlspace.classify.metrics)."""
    found: dict[str, float] = {}
    for key, value in _ASSIGNED.findall(stem):
        if key.lower() not in _NOT_SCORES:
            found.setdefault(key, float(value))
    if not found:
        for key, value in _GLUED.findall(stem):
            key = _metric_part(key.rsplit(".", 1)[-1])
            if key.lower() not in _NOT_SCORES and direction(key) is not None:
                found.setdefault(key, float(value))
    return tuple(found.items())


#: Words that belong to a metric's name before the metric itself (``val_loss``).
_QUALIFIERS = frozenset({"val", "valid", "validation", "eval", "test", "train", "neg", "mean",
                         "avg", "ep", "episode", "best"})


def _metric_part(key: str) -> str:
    """The metric in a word glued to a value: ``model_acc`` holds ``acc``; a qualifier stays
    (``val_loss``, ``neg_val_loss``)."""
    words = key.split("_")
    while len(words) > 1 and words[0].lower() not in _QUALIFIERS \
            and direction(words[0]) is None:
        words.pop(0)
    return "_".join(words)


def without_scores(stem: str) -> str:
    """``stem`` with the scores it carries blanked out (their names are no words of it)."""
    stem = _ASSIGNED.sub(" ", stem)
    return _GLUED.sub(lambda m: " " if direction(m.group(1)) else m.group(0), stem)


@lru_cache(maxsize=1 << 14)
def protected_role(name: str) -> str | None:
    """"best", "final", "last" or "top-k" when a word of ``name`` (a file's or a folder's)
    says the tool keeps it as such, else None. Best wins over the others (``best_last.pt``
    is a best), then top-k, final, last."""
    words = [w.lower() for w in _TOKEN.findall(_CAMEL.sub(" ", without_scores(name)))]
    roles = set()
    for at, word in enumerate(words):
        if word in _ROLE_WORDS:
            roles.add(_ROLE_WORDS[word])
        elif word == "topk" or (word == "top" and at + 1 < len(words)
                                and (words[at + 1].isdigit() or words[at + 1] == "k")):
            roles.add("top-k")
    for role in ("best", "top-k", "final", "last"):
        if role in roles:
            return role
    return None
