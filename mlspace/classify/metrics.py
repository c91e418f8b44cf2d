"""Which way a metric improves, judged from its name as the tools name them."""

from __future__ import annotations

import re

_LOWER_IS_BETTER = re.compile(
    r"loss|err|error|perplexity|ppl|wer|cer|mae|mse|rmse|nll|fid|distance|time|regret", re.I
)
_HIGHER_IS_BETTER = re.compile(
    r"acc|accuracy|(?<![a-z])f1(?![0-9])|(?<![a-z])map(?![a-z])|(?<![a-z])auc|bleu|rouge|iou"
    r"|dice|top1|top5|precision|recall|(?<![a-z])r2(?![0-9])|score|fitness"
    r"|reward|return|psnr|ssim|exact_match|em\b|(?<![a-z])rew(?![a-z])",
    re.I,
)
#: A negated metric (scikit-learn's neg_log_loss, a tuner's neg_val_loss): its value is read
#: as written, so it improves the other way round.
_NEGATED = re.compile(r"(?:neg|negative|minus)[_\-.]?(?=[A-Za-z])", re.I)


def direction(metric: str) -> str | None:
    """"min", "max", or None when the name does not tell."""
    negated = _NEGATED.match(metric)
    if negated:
        plain = direction(metric[negated.end():])
        return {"min": "max", "max": "min"}.get(plain or "")
    if _LOWER_IS_BETTER.search(metric):
        return "min"
    if _HIGHER_IS_BETTER.search(metric):
        return "max"
    return None
