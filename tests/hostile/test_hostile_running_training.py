"""A policy runs while a trainer is still writing its next checkpoint: the fresh one is never
counted among the latest kept, so the last complete checkpoint (the one a job that dies
mid-save resumes from) stays too."""

from __future__ import annotations

from pathlib import Path

from cli_runner import run_mlspace
from workspaces import hf_run

from mlspace.advise import AdviceSettings, advise
from mlspace.classify import classify
from mlspace.scan import ScanOptions, scan


def _training(root: Path) -> Path:
    """checkpoint-10 ... -80 finished a month ago; checkpoint-90 being written now."""
    run = hf_run(root, steps=(10, 20, 30, 40, 50, 60, 70, 80))
    (run / "checkpoint-90").mkdir()
    (run / "checkpoint-90" / "model.safetensors").write_bytes(b"\0" * 4096)  # mid-save
    return run


def test_keep_latest_1_keeps_the_last_complete_checkpoint_too(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    run = _training(root)
    policy = tmp_path / "policy.toml"
    policy.write_text('version = 1\n[[rule]]\nfolders = ["*"]\nkeep_best = 1\nkeep_latest = 1\n')
    done = run_mlspace("apply-policy", str(root), "--policy", str(policy), "--yes")
    assert done.returncode in (0, 1), done.stderr
    assert (run / "checkpoint-90").is_dir()  # being written: never touched
    assert (run / "checkpoint-80").is_dir()  # the last complete one: what a resume needs
    assert (run / "checkpoint-10").is_dir()  # the recorded best
    assert not (run / "checkpoint-50").exists()  # the rest went


def test_the_plan_says_why_the_fresh_one_is_kept(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _training(root)
    plan = advise(classify(scan([root], ScanOptions(workers=1))),
                  AdviceSettings(keep_best=1, keep_latest=1))
    retention = next(s for s in plan.suggestions if s.policy == "checkpoint-retention")
    whys = {Path(k.path).name: k.why for k in retention.kept}
    assert "written in the last 10 minutes" in whys["checkpoint-90"]
    assert "one of the latest 1 complete ones" in whys["checkpoint-80"]
    assert not any(p.endswith(("checkpoint-80", "checkpoint-90")) for p in retention.paths)
