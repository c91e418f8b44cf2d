"""Which way a metric improves, judged from its name as the tools name them."""

from __future__ import annotations

import re

_LOWER_IS_BETTER = re.compile(
    r"loss|err|error|perplexity|ppl|wer|cer|mae|mse|rmse|nll|fid|distance|time", re.I
)
_HIGHER_IS_BETTER = re.compile(
    r"acc|accuracy|f1|map|auc|bleu|rouge|iou|dice|top1|top5|precision|recall|r2|score|fitness"
    r"|reward|return|psnr|ssim|exact_match|em\b",
    re.I,
)


def direction(metric: str) -> str | None:
    """"min", "max", or None when the name does not tell."""
    if _LOWER_IS_BETTER.search(metric):
        return "min"
    if _HIGHER_IS_BETTER.search(metric):
        return "max"
    return None
