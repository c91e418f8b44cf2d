"""Advising: from an inventory, the cleanups an experienced ML engineer would make, each a
frozen Suggestion with its reason, risk, exact paths and the space it frees.

The names load when first asked for (:mod:`mlspace.lazy`): a command that needs only the
plan's types (the disk line's ``Plan``, ``SAFE``) does not import the classifier.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlspace.lazy import module_getattr

if TYPE_CHECKING:
    from mlspace.advise.checkpoint_policies import kept_checkpoints
    from mlspace.advise.model import (
        REVIEW,
        RISKY,
        SAFE,
        AdviceSettings,
        KeptItem,
        Plan,
        PlanItem,
        Suggestion,
        plan_item,
    )
    from mlspace.advise.whole_plan import advise

_WHERE = {"kept_checkpoints": "checkpoint_policies", "advise": "whole_plan",
          **dict.fromkeys(("REVIEW", "RISKY", "SAFE", "AdviceSettings", "KeptItem", "Plan",
                           "PlanItem", "Suggestion", "plan_item"), "model")}

__all__ = ["REVIEW", "RISKY", "SAFE", "AdviceSettings", "KeptItem", "Plan", "PlanItem",
           "Suggestion", "advise", "kept_checkpoints", "plan_item"]

__getattr__ = module_getattr(__name__, _WHERE, globals())
