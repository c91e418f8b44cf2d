"""The tools' own layouts beyond the first fifteen (tests/layouts_tools.py, layouts_exports.py,
layouts_trackers.py): the units they make, and that an exported model is never thinned out
as a step of a training series while a real series of saves still is."""

from __future__ import annotations

import os
from pathlib import Path

from hostile_helpers import suggested_paths
from layouts import inventory_of, make, name_of, series_at
from layouts_exports import (
    TORCHSCRIPT,
    diffusers_pipelines,
    exported_models,
    sentence_transformers_model,
)
from layouts_tools import TIMM, composer_run, distributed_checkpoints, torchtune_run
from layouts_trackers import OPTUNA_DB, aim_repo, dvc_project, sacred_runs
from workspaces import age

from mlspace.advise import advise
from mlspace.classify import Artifact, Inventory


def _built(tmp_path: Path, layout: object) -> Path:
    make(tmp_path, layout().spec)  # type: ignore[operator]
    age(tmp_path)
    return tmp_path


def _artifacts(inv: Inventory, kind: str = "checkpoint") -> dict[str, Artifact]:
    return {os.path.relpath(a.path, inv.snapshot.roots[0]): a
            for a in inv.artifacts if a.kind == kind}


def _suggested(inv: Inventory, root: Path) -> set[str]:
    return {os.path.relpath(p, root) for p in suggested_paths(advise(inv))}


def test_exported_models_are_exports_never_thinned(tmp_path: Path) -> None:
    root = _built(tmp_path, exported_models)
    inv = inventory_of(root)
    found = _artifacts(inv)
    assert {name: (a.tool, a.role) for name, a in found.items() if name.startswith("export/")} \
        == {"export/model.onnx": ("ONNX", "export"), "export/model.pt2": ("torch.export", "export"),
            "export/model_scripted.pt": ("TorchScript", "export"),
            "export/model_traced.pt": ("TorchScript", "export"),
            "export/resnet50.keras": ("Keras", "export")}
    assert found["tf_export/saved_model"].role == "export"
    # TF Serving's numbered versions are a series: the older one may go, for review
    versions = series_at(inv, root / "serving/resnet")
    assert [name_of(m) for m in versions.members] == ["1", "2", "3"]
    assert _suggested(inv, root) == {"serving/resnet/1"}


def test_a_torch_save_pt_is_no_torchscript(tmp_path: Path) -> None:
    make(tmp_path, {"weights/model.pt": (TIMM / "top1" / "last.pth.tar").read_bytes(),
                    "weights/scripted.pt": TORCHSCRIPT, "weights/empty.pt": b""})
    found = _artifacts(inventory_of(tmp_path))
    assert (found["weights/model.pt"].tool, found["weights/model.pt"].role) == ("PyTorch", None)
    assert found["weights/scripted.pt"].role == "export"
    assert found["weights/empty.pt"].role is None


def test_a_diffusers_pipeline_is_exported_components_beside_its_training_saves(
        tmp_path: Path) -> None:
    root = _built(tmp_path, diffusers_pipelines)
    inv = inventory_of(root)
    found = _artifacts(inv)
    assert {(n, a.tool, a.role) for n, a in found.items() if n.startswith("sd-finetuned/")} == {
        (f"sd-finetuned/{c}", "diffusers", "export")
        for c in ("scheduler", "text_encoder", "tokenizer", "unet", "vae")}
    series = series_at(inv, root / "ddpm-butterflies-128")
    assert name_of(series.latest) == "checkpoint-1000"
    assert {"unet", "scheduler"} <= {name_of(p) for p in series.protected}
    assert all("/checkpoint-500" in p for p in _suggested(inv, root))  # the components stay


def test_a_sentence_transformers_model_is_one_export(tmp_path: Path) -> None:
    root = _built(tmp_path, sentence_transformers_model)
    found = _artifacts(inventory_of(root))
    for name in ("models/all-MiniLM-L6-v2-finetuned", "st-out"):
        assert (found[name].tool, found[name].role, found[name].is_dir) == \
            ("sentence-transformers", "export", True)


def test_training_tools_make_series_of_their_saves(tmp_path: Path) -> None:
    for layout in (distributed_checkpoints, torchtune_run, composer_run):
        _built(tmp_path / layout.__name__, layout)
    inv = inventory_of(tmp_path)
    dcp = series_at(inv, tmp_path / "distributed_checkpoints/dcp_ckpt")
    assert (dcp.tool, name_of(dcp.latest)) == ("torch.distributed.checkpoint", "step_2000")
    tune = series_at(inv, tmp_path / "torchtune_run/output/llama3_2_3B/lora")
    assert [name_of(m) for m in tune.members] == ["epoch_0", "epoch_1"]
    assert (tune.tool, name_of(tune.latest)) == ("torchtune", "epoch_1")
    composer = series_at(inv, tmp_path / "composer_run/runs/bert-mlm/checkpoints")
    assert composer.tool == "Composer"
    assert composer.latest_reason == "latest-rank0.pt links to it"
    assert name_of(composer.latest) == "ep3-ba1500-rank0.pt"


def test_tracker_records_and_dvc_cache(tmp_path: Path) -> None:
    for layout in (sacred_runs, aim_repo, dvc_project):
        _built(tmp_path / layout.__name__, layout)
    inv = inventory_of(tmp_path)
    runs = {name for name, a in _artifacts(inv, "run").items() if a.tool == "Sacred"}
    assert runs == {"sacred_runs/runs/1", "sacred_runs/runs/2", "sacred_runs/my_runs/1"}
    assert set(_artifacts(inv, "log")) == {"aim_repo/.aim"}
    (cache,) = _artifacts(inv, "cache").values()
    assert (cache.name, cache.tool) == ("cache", "DVC")
    assert not {p for p in _suggested(inv, tmp_path) if "/.dvc/" in p}


def test_only_an_optuna_schema_makes_an_sqlite_file_a_log(tmp_path: Path) -> None:
    make(tmp_path, {"study.db": OPTUNA_DB, "garbage.db": os.urandom(4096),
                    "cut.db": OPTUNA_DB[:100], "empty.sqlite": b""})
    os.mkfifo(tmp_path / "fifo.db")  # never opened: it would block
    inv = inventory_of(tmp_path)
    cats = {p: inv.category(e).id for e, _, p in inv.snapshot.iter_paths()}
    assert {p: c for p, c in cats.items() if p != "."} == {
        "study.db": "log", "garbage.db": "other", "cut.db": "other", "empty.sqlite": "other",
        "fifo.db": "other"}
