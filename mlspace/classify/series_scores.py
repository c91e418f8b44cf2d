"""What the scores in checkpoints' names say: which save is best by a metric whose direction
is known (``val_loss=0.43`` lower, ``acc0.91`` higher), and which saves carry a score at all,
so that where the direction is unknown none of them is thinned out.
"""

from __future__ import annotations

import math

from mlspace.classify.metrics import direction
from mlspace.classify.model import Artifact
from mlspace.classify.name_meaning import PROGRESS_WORDS, words_of


def named_with_score(m: Artifact) -> bool:
    """A save whose name carries a score, not only a count (``net_key_metric=0.9488.pt``;
    ``checkpoint_epoch=2.pt`` counts epochs), and no role word."""
    return m.role is None and any(PROGRESS_WORDS.isdisjoint(words_of(key))
                                  for key, _ in m.metrics)


def best_by_metric(members: list[Artifact]
                   ) -> tuple[Artifact | None, str, str | None, float | None, str | None]:
    """A metric every numbered checkpoint carries in its name, if its direction is clear."""
    candidates = [m for m in members if m.metrics and m.role is None]
    if not candidates:
        return None, "no metric recorded", None, None, None
    common = set.intersection(*(set(dict(m.metrics)) for m in candidates))
    ranked = sorted(common, key=lambda k: (not k.startswith(("val", "eval")), k))
    for metric in ranked:
        mode = direction(metric)
        if mode is None:
            continue
        # NaN compares false with everything, so min()/max() could pick it: a diverged
        # save (epoch=3-val_loss=nan.ckpt) is never the best.
        scored = [m for m in candidates if not math.isnan(dict(m.metrics)[metric])]
        if not scored:
            return None, f"{metric} is NaN in every file name", None, None, None
        pick = min if mode == "min" else max
        best = pick(scored, key=lambda m: dict(m.metrics)[metric])
        value = dict(best.metrics)[metric]
        return best, f"{metric} in the file names ({mode})", metric, value, mode
    names = ", ".join(ranked) or "none shared"
    return None, f"metric direction unknown ({names})", None, None, None
