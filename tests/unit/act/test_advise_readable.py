"""A suggestion can be checked before anything moves: each item relative to the suggestion's
folder with what it is (step, metric), and what is kept and why, also in the plan's JSON."""

from __future__ import annotations

import json
import os
from pathlib import Path

from layouts import inventory_of
from workspaces import hf_run, retention_of

from mlspace.advise import KeptItem, PlanItem, Suggestion, advise
from mlspace.report.plan_text import plan_record


def test_retention_names_the_best_and_latest_it_keeps_and_why(tmp_path: Path) -> None:
    run = hf_run(tmp_path)  # checkpoint-10 is the best; 50 and 60 are the latest two
    s = retention_of(tmp_path)
    assert s.folder == str(run)
    kept = {s.relative(k.path): k for k in s.kept}
    assert {name: k.why for name, k in kept.items()} == {
        "checkpoint-60": "the latest",
        "checkpoint-50": "one of the latest 2",
        "checkpoint-10": "the best eval_loss 1",
    }
    assert kept["checkpoint-10"].evidence == "trainer_state.json best_model_checkpoint"
    assert kept["checkpoint-60"].evidence == "highest step (60)"
    for name, k in kept.items():  # the sizes a person weighs: the checkpoint's, as scanned
        stats = [p.lstat() for p in (run / name, *(run / name).iterdir())]
        assert k.apparent_size == sum(st.st_size for st in stats)
        assert k.disk_usage == sum(st.st_blocks * 512 for st in stats)
    assert not set(s.paths) & {k.path for k in s.kept}


def test_each_checkpoint_that_goes_carries_its_step_and_metric(tmp_path: Path) -> None:
    hf_run(tmp_path)
    s = retention_of(tmp_path)
    assert {s.relative(i.path): i.note for i in s.items} == {
        "checkpoint-20": "step 20 · eval_loss 1.1",
        "checkpoint-30": "step 30 · eval_loss 1.2",
        "checkpoint-40": "step 40 · eval_loss 1.3",
    }


def test_items_are_listed_in_the_order_a_person_reads_steps(tmp_path: Path) -> None:
    hf_run(tmp_path, steps=(500, 1000, 1500, 10000, 20000, 30000))
    s = retention_of(tmp_path)
    assert [s.relative(p) for p in s.paths] == ["checkpoint-1000", "checkpoint-1500",
                                                "checkpoint-10000"]


def test_stripping_resume_state_keeps_the_latest_ones_own(tmp_path: Path) -> None:
    run = hf_run(tmp_path)
    strip = next(s for s in advise(inventory_of(tmp_path)).suggestions
                 if s.policy == "strip-resume-state")
    assert strip.folder == str(run)
    assert sorted(strip.relative(p) for p in strip.paths) == [
        "checkpoint-10/optimizer.pt", "checkpoint-50/optimizer.pt"]
    assert [(strip.relative(k.path), k.why) for k in strip.kept] == [
        ("checkpoint-60/optimizer.pt", "resume state of the latest")]


def test_the_folder_of_one_item_is_its_parent_and_outside_paths_stay_whole() -> None:
    item = PlanItem("/w/run/checkpoint-1", True, 10, 10, 0.0, 1)
    alone = Suggestion("x", "p", "t", "r", "safe", (item,))
    assert alone.folder == "/w/run" and alone.relative(item.path) == "checkpoint-1"
    assert alone.relative("/elsewhere/file") == "/elsewhere/file"
    with_kept = Suggestion("x", "p", "t", "r", "safe", (item,),
                           kept=(KeptItem("/w/other/best", 5, 5, "the best"),))
    assert with_kept.folder == "/w"
    assert with_kept.relative(item.path) == "run/checkpoint-1"
    root = Suggestion("x", "p", "t", "r", "safe", (PlanItem("/a", False, 1, 1, 0.0, 1),
                                                    PlanItem("/b", False, 1, 1, 0.0, 1)))
    assert root.folder == "/" and root.relative("/a") == "a"


def test_the_plan_json_carries_folder_notes_and_kept(tmp_path: Path) -> None:
    run = hf_run(tmp_path)
    plan = advise(inventory_of(tmp_path))
    doc = json.loads(json.dumps(plan_record(plan)))
    retention = next(s for s in doc["suggestions"] if s["policy"] == "checkpoint-retention")
    assert retention["folder"] == str(run)
    assert retention["paths"] == [i["path"] for i in retention["items"]]  # old key kept
    assert retention["items"][0]["note"] == "step 20 · eval_loss 1.1"
    assert retention["items"][0]["bytes"] > 0
    best = next(k for k in retention["kept"] if k["why"].startswith("the best"))
    assert best == {"path": os.path.join(run, "checkpoint-10"),
                    "bytes": best["bytes"], "apparent_bytes": best["apparent_bytes"],
                    "why": "the best eval_loss 1",
                    "evidence": "trainer_state.json best_model_checkpoint"}


def test_augmented_copies_name_the_raw_data_that_stays(tmp_path: Path) -> None:
    """Beside train_aug/, the raw train/ and val/ folders are listed as what stays; beside
    Augmentor's output/ in a folder of twelve class folders, their parent is."""
    from mlspace.advise import AdviceSettings
    from mlspace.demo import generate

    root = generate(tmp_path / "ws")
    plan = advise(inventory_of(root), AdviceSettings(augmented_min_age_days=0))
    copies = {s.title: s for s in plan.suggestions if s.policy == "augmented-copies"}
    beside = copies["Remove augmented copies in train_aug"]
    assert [(beside.relative(k.path), k.why) for k in beside.kept] == [
        ("train", "raw data: never suggested"), ("val", "raw data: never suggested")]
    inside = copies["Remove augmented copies in output"]
    (kept,) = inside.kept
    assert inside.relative(kept.path) == "train"
    assert kept.why == "raw data: never suggested (12 folders beside the copies)"
    train = root / "data" / "imagenet-mini" / "train"
    classes = [p for p in train.iterdir() if p.name != "output"]  # what stays of train/
    assert kept.apparent_size == sum(os.lstat(p).st_size for c in classes
                                     for p in [c, *c.rglob("*")])
