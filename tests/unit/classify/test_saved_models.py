"""What a tool saves as a model is one checkpoint, all of it; what it records about the run is
a log (issue 13): HF Trainer's final save, PEFT adapters, Keras BackupAndRestore, MLflow
LoggedModels, and an architecture config beside weights."""

from __future__ import annotations

from pathlib import Path

from layouts import (
    categories_by_path,
    hf_trainer_final_save,
    inventory_of,
    keras_backup,
    make,
    mlflow_logged_model,
    peft_adapter,
)

from mlspace.classify import Inventory

OUT = "gpt2-finetuned"
MODEL_FILES = ("model.safetensors", "config.json", "generation_config.json", "tokenizer.json",
               "tokenizer_config.json", "training_args.bin", "README.md")
RUN_RECORDS = ("all_results.json", "train_results.json", "eval_results.json",
               "trainer_state.json")


def _classified(root: Path, spec: dict[str, object]) -> tuple[Inventory, dict[str, str]]:
    inv = inventory_of(make(root, spec))
    return inv, categories_by_path(inv)


def test_hf_trainer_final_save_is_one_checkpoint_and_its_records_are_logs(
        tmp_path: Path) -> None:
    root = tmp_path / "ws"
    inv, cats = _classified(root, hf_trainer_final_save().spec)
    assert {cats[f"{OUT}/{name}"] for name in MODEL_FILES} == {"checkpoint"}
    assert {cats[f"{OUT}/{name}"] for name in RUN_RECORDS} == {"log"}
    assert cats[f"{OUT}/checkpoint-1000/trainer_state.json"] == "checkpoint"
    final = inv.series_by_id[f"series:{root / OUT}#files"]
    (member,) = final.members
    artifact = inv.artifact_by_id[member]
    assert artifact.name == "model.safetensors"
    assert sorted(inv.snapshot.name(e) for e in artifact.entries) == sorted(MODEL_FILES)
    assert final.protected == final.members
    assert inv.run_by_id[f"run:{root / OUT}"].tool == "HF Trainer"
    assert [a.name for a in inv.artifacts if a.kind == "checkpoint"
            and a.path.startswith(str(root / OUT) + "/checkpoint-")] \
        == ["checkpoint-1000", "checkpoint-1500"]


def test_sharded_weights_of_every_format_and_their_index_are_one_saved_model(
        tmp_path: Path) -> None:
    """A save_pretrained() folder outside any run (a merged export): one checkpoint."""
    root = make(tmp_path / "ws", {
        "export/model-00001-of-00002.safetensors": 100,
        "export/model-00002-of-00002.safetensors": 100,
        "export/model.safetensors.index.json": "{}",
        "export/pytorch_model.bin": 100,
        "export/config.json": "{}",
        "export/special_tokens_map.json": "{}",
        "export/merges.txt": "#version: 0.2\n",
    })
    inv = inventory_of(root)
    assert set(categories_by_path(inv).values()) == {"checkpoint", "other"}  # other: folders
    (saved,) = [a for a in inv.artifacts if a.kind == "checkpoint"]
    assert saved.name == "model.safetensors" and len(saved.entries) == 7


def test_a_peft_adapter_with_its_config_and_card_is_one_checkpoint(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    inv, cats = _classified(root, peft_adapter().spec)
    for name in ("adapter_model.safetensors", "adapter_config.json", "README.md",
                 "special_tokens_map.json"):
        assert cats[f"lora-out/{name}"] == "checkpoint", name
        assert cats[f"lora-out/checkpoint-200/{name}"] == "checkpoint", name
    assert cats["lora-out/train_results.json"] == "log"
    final = inv.series_by_id[f"series:{root / 'lora-out'}#files"]
    (adapter,) = (inv.artifact_by_id[m] for m in final.members)
    assert adapter.name == "adapter_model.safetensors" and len(adapter.entries) == 7


def test_a_config_beside_a_run_without_weights_is_no_checkpoint(tmp_path: Path) -> None:
    """Records alone (a run that never saved its model) make no checkpoint artifact."""
    root = make(tmp_path / "ws", {"out/trainer_state.json": "{}", "out/training_args.bin": 10,
                                  "out/all_results.json": "{}"})
    inv = inventory_of(root)
    assert [a for a in inv.artifacts if a.kind == "checkpoint"] == []
    assert categories_by_path(inv)["out/all_results.json"] == "log"


def test_a_lone_model_file_does_not_make_the_project_a_saved_model(tmp_path: Path) -> None:
    """model.safetensors is written by many tools: beside it, a README.md and a config.json
    are the project's own unless Hugging Face's own files say the folder is a save."""
    cats = categories_by_path(inventory_of(make(tmp_path / "ws", {
        "model.safetensors": 100, "README.md": "# my project\n", "config.json": "{}",
        "train.py": "import torch\n",
    })))
    assert cats["model.safetensors"] == "checkpoint"
    assert cats["README.md"] == cats["config.json"] == cats["train.py"] == "other"


def test_keras_backup_and_restore_is_resume_state(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    inv, cats = _classified(root, keras_backup().spec)
    names = ("latest.weights.h5", "latest.weights.h5.bkp", "training_metadata.json",
             "training_metadata.json.bkp")
    assert {cats[f"backup/{name}"] for name in names} == {"checkpoint"}
    backup = inv.artifact_by_id[f"checkpoint:{root / 'backup'}"]
    assert backup.tool == "Keras BackupAndRestore" and backup.is_dir


def test_mlflow_logged_model_artifacts_are_the_model_and_the_rest_records(
        tmp_path: Path) -> None:
    root = tmp_path / "ws"
    inv, cats = _classified(root, mlflow_logged_model().spec)
    model = "mlruns/183469426003731029/models/m-54583d89a8ae4453aa6b4f20358c2929"
    for name in ("meta.yaml", "metrics/val_loss", "params/lr", "tags/mlflow.user"):
        assert cats[f"{model}/{name}"] == "log", name
    for name in ("MLmodel", "data/model.pt2", "conda.yaml", "requirements.txt"):
        assert cats[f"{model}/artifacts/{name}"] == "checkpoint", name
    assert f"checkpoint:{root / model}/artifacts" in inv.artifact_by_id


def test_an_architecture_config_beside_weights_is_no_checkpoint(tmp_path: Path) -> None:
    cats = categories_by_path(inventory_of(make(tmp_path / "ws", {
        "models/yolov8n-custom.yaml": "nc: 80\n",
        "models/yolov8n.pt": 100,
        "models/hparams.yaml": "lr: 0.01\n",
        "yolov5/models/__init__.py": "",
        "yolov5/models/yolo.py": "import torch\n",
        "yolov5/models/yolov5s.yaml": "nc: 80\n",
    })))
    assert cats["models/yolov8n-custom.yaml"] == "other"
    assert cats["models/yolov8n.pt"] == "checkpoint"
    assert cats["models/hparams.yaml"] == "log"
    assert cats["yolov5/models/yolo.py"] == "other"  # a Python package is source code
    assert cats["yolov5/models/yolov5s.yaml"] == "other"
