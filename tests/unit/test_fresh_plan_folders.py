"""Which folders a cleanup from a saved scan scans again (mlspace.ui.fresh_plan)."""

from __future__ import annotations

from mlspace.advise import KeptItem, PlanItem, Suggestion
from mlspace.ui.fresh_plan import folders_to_read


def suggestion(*paths: str, kept: tuple[str, ...] = ()) -> Suggestion:
    return Suggestion("s", "checkpoint-retention", "t", "r", "safe",
                      tuple(PlanItem(p, True, 1, 1, 0.0, 1) for p in paths),
                      kept=tuple(KeptItem(k, 1, 1, "the best") for k in kept))


def test_the_parent_of_each_suggestions_folder_within_its_scanned_folder() -> None:
    roots = ["/ws", "/data"]
    run = suggestion("/ws/outputs/run/checkpoint-1", kept=("/ws/outputs/run/checkpoint-2",))
    trial = suggestion("/ws/ray/exp/trial_0/checkpoint_000001",
                       kept=("/ws/ray/exp/trial_0/checkpoint_000002",))
    top = suggestion("/data/cache-1.arrow", "/data/cache-2.arrow")
    assert folders_to_read([run, trial, top], roots) == [
        "/data", "/ws/outputs", "/ws/ray/exp"]  # the records beside the trial: its parent


def test_a_folder_inside_another_is_scanned_with_it_and_nothing_outside_the_scan() -> None:
    outer = suggestion("/ws/a/x", "/ws/a/y")  # folder /ws/a: its parent is the root
    inner = suggestion("/ws/a/b/c/1", "/ws/a/b/c/2")
    elsewhere = suggestion("/elsewhere/q/1", "/elsewhere/q/2")
    assert folders_to_read([outer, inner, elsewhere], ["/ws"]) == ["/ws"]
