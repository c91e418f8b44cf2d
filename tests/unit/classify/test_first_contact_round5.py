"""Fifth round of issue 27's principles, found on heldout4 after its first contact: a folder
named a cache whose files are named by digests is that cache, whatever their extension; a
run's plots/ folder holds what it rendered of itself."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

from layout_kit import Sparse
from layouts import categories_by_path, inventory_of, make


def test_a_cache_folder_of_digest_named_files_is_a_cache_whatever_their_extension(
        tmp_path: Path) -> None:
    digests = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(4)]
    root = make(tmp_path / "ws", {
        **{f"persistent_cache/{d}.pt": Sparse(35_000, b"PK\x03\x04") for d in digests},
        # a folder named a cache holding named saves is not judged so
        "model_cache_notes/model_epoch_3.pt": Sparse(35_000, b"PK\x03\x04"),
        # digest-named saves in a folder that does not say cache stay checkpoints
        "saves/" + digests[0] + ".pt": Sparse(35_000, b"PK\x03\x04"),
    })
    cats = categories_by_path(inventory_of(root))
    for d in digests:
        assert cats[f"persistent_cache/{d}.pt"] == "cache"
    assert cats["model_cache_notes/model_epoch_3.pt"] == "checkpoint"
    assert cats["saves/" + digests[0] + ".pt"] == "checkpoint"


def test_a_runs_plots_folder_is_its_record(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {
        "saves/mlp_experiment/plots/loss.png": Sparse(27_000, b"\x89PNG\r\n\x1a\n"),
        "saves/mlp_experiment/plots/loss.pdf": Sparse(10_000, b"%PDF-1.4"),
        "saves/mlp_experiment/log.tsv": "epoch\tloss\n1\t0.5\n",
        "src/plots/__init__.py": "", "src/plots/draw.py": "import matplotlib\n",
    })
    cats = categories_by_path(inventory_of(root))
    assert cats["saves/mlp_experiment/plots/loss.png"] == "log"
    assert cats["saves/mlp_experiment/plots/loss.pdf"] == "log"
    assert cats["src/plots/draw.py"] == "other"  # code stays code


def _torch_save(payload: int) -> bytes:
    """The zip torch.save writes (its member names; the pickle inside is never read)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("archive/data.pkl", b"\x80\x02}q\x00." + b"\0" * payload)
        archive.writestr("archive/version", b"3\n")
        archive.writestr("archive/data/0", b"\1" * payload)
    return out.getvalue()


def test_files_of_the_kind_the_evidence_made_models_are_models_too(tmp_path: Path) -> None:
    torch_zip, optim = _torch_save(3000), _torch_save(6000)
    steps = (300, 600, 900)
    root = make(tmp_path / "ws", {
        **{f"svi/step_{s}.params": torch_zip for s in steps},
        **{f"svi/step_{s}.optim": optim for s in steps},
        "svi/best.params": torch_zip,
        "svi/losses.csv": "step,loss\n300,1.5\n600,1.2\n",
    })
    cats = categories_by_path(inventory_of(root))
    for s in steps:
        assert cats[f"svi/step_{s}.optim"] == "checkpoint"
        assert cats[f"svi/step_{s}.params"] == "checkpoint"
    assert cats["svi/best.params"] == "checkpoint"
    assert cats["svi/losses.csv"] == "log"
