"""What a checkpoint's name means whatever tool wrote it: the words that protect it and the
scores it carries, read in the direction each metric improves (issue 27)."""

from __future__ import annotations

import pytest

from mlspace.classify.checkpoint_names import parse_checkpoint_dir, parse_checkpoint_name
from mlspace.classify.metrics import direction
from mlspace.classify.name_meaning import protected_role, scores_in


@pytest.mark.parametrize(("name", "role"), [
    ("resnet18_best.pth", "best"), ("model-best", "best"), ("final.pt", "final"),
    ("checkpoint_final.pt", "final"), ("model_last.pt", "last"), ("latest.pth", "last"),
    ("bestModel.pt", "best"), ("best-val_loss=0.3.ckpt", "best"), ("top_3.pt", "top-k"),
    ("model-top-k-1.pt", "top-k"), ("topk_2.pth", "top-k"), ("model-last", "last"),
    ("BEST_MODEL.PTH", "best"),
])
def test_protected_words_in_file_and_folder_names(name: str, role: str) -> None:
    assert protected_role(name) == role


@pytest.mark.parametrize("name", [
    "bestiary.pt", "lastfm.pt", "finalize_weights.pt", "resnet_epoch_3.pth",
    "epoch=3-top5_acc=0.9.ckpt", "ckpt_5.pt", "params.pt", "laststand2.pt",
])
def test_words_that_only_look_like_protection_protect_nothing(name: str) -> None:
    assert protected_role(name) is None


def test_generic_names_carry_their_role_step_epoch_and_scores() -> None:
    best = parse_checkpoint_name("unet_best.pth")
    assert best is not None and best.role == "best"
    epoch = parse_checkpoint_name("unet_epoch_4.pth")
    assert epoch is not None and (epoch.epoch, epoch.role) == (4, None)
    glued = parse_checkpoint_name("resnet_epoch_05_acc0.91.pth")
    assert glued is not None and glued.metrics == (("acc", 0.91),) and glued.epoch == 5
    ordinal = parse_checkpoint_name("ckpt_12.pt")
    assert ordinal is not None and ordinal.step == 12
    for named in ("resnet50.pt", "model_v2.pt", "gpt2.pt"):
        parsed = parse_checkpoint_name(named)
        assert parsed is not None and parsed.step is None, named
    folder = parse_checkpoint_dir("model-best", None)
    assert folder.role == "best"
    dated = parse_checkpoint_dir("checkpoint_2026-11-30_17-20-00.123456", "Ray Train")
    assert dated.step is None  # a date is no step


@pytest.mark.parametrize(("stem", "scores"), [
    ("epoch=3-val_loss=0.43", (("val_loss", 0.43),)),
    ("model_acc0.91", (("acc", 0.91),)),
    ("neg_val_loss=-0.44", (("neg_val_loss", -0.44),)),
    ("net_val_loss0.43", (("val_loss", 0.43),)),
    ("weights_f1_0.8", (("f1", 0.8),)),
    ("run_3_step_100", ()),
    ("model_v1.5", ()),  # a version, not a score: "v" improves no way
])
def test_scores_in_names(stem: str, scores: tuple) -> None:
    assert scores_in(stem) == scores


@pytest.mark.parametrize(("metric", "mode"), [
    ("val_loss", "min"), ("error_rate", "min"), ("acc", "max"), ("val_f1", "max"),
    ("ep_rew_mean", "max"), ("score", "max"), ("neg_val_loss", "max"),
    ("neg_mean_absolute_error", "max"), ("negative_accuracy", "min"), ("lr", None),
])
def test_metric_direction_from_its_name_and_a_negation_read_as_written(
        metric: str, mode: str | None) -> None:
    assert direction(metric) == mode
