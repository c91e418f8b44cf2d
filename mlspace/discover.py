"""Likely ML folders for the first-run page: the Hugging Face cache and home folders that
hold checkpoints or experiment logs. Looks at names only, two levels deep, a bounded number
of entries, so it costs milliseconds even on a large home."""

from __future__ import annotations

import os
from pathlib import Path

SIGNS = {"checkpoints", "lightning_logs", "wandb", "mlruns", "outputs", "runs", "work_dirs",
         "nemo_experiments", "multirun", "checkpoint", "ckpt", "ckpts"}
MAX_ENTRIES = 400


def likely_ml_folders(home: Path | None = None, limit: int = 6) -> list[str]:
    home = home or Path.home()
    found: list[str] = []
    hf = Path(os.environ.get("HF_HOME") or home / ".cache" / "huggingface")
    if hf.is_dir():
        found.append(str(hf))
    for folder in _subfolders(home):
        if folder.name.startswith("."):
            continue
        children = {c.name for c in _subfolders(folder)}
        if children & SIGNS or any(n.startswith("checkpoint-") for n in children):
            found.append(str(folder))
        if len(found) >= limit:
            break
    return found


def _subfolders(folder: Path) -> list[Path]:
    out = []
    try:
        with os.scandir(folder) as entries:
            for i, entry in enumerate(entries):
                if i >= MAX_ENTRIES:
                    break
                if entry.is_dir(follow_symlinks=False):
                    out.append(Path(entry.path))
    except OSError:
        return []
    return sorted(out)
