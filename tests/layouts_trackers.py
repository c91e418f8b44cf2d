"""Labelled workspaces of experiment trackers and data versioning: Optuna, Sacred, Aim, DVC.

Names and records as the tools wrote them on a toy run here (optuna 5.0.0, sacred 0.8.7,
aim 3.29.1, dvc 3.67.1); sizes of a real project's files, as Sparse files.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from layout_kit import MB, Labelled, Sparse, as_category, under

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def sqlite_bytes(sql: str) -> bytes:
    """An SQLite database file made by running ``sql`` (a dump), as bytes."""
    db = sqlite3.connect(":memory:")
    db.executescript(sql)
    return db.serialize()


#: The study of tests/fixtures/optuna (storage="sqlite:///lr-sweep.db", Optuna's own schema).
OPTUNA_DB = sqlite_bytes((FIXTURES / "optuna" / "lr-sweep.sql").read_text())


def optuna_studies() -> Labelled:
    """Optuna's RDB storage (an SQLite file named after the study, as its tutorial names it)
    and its JournalFileBackend log are records of the trials; an SQLite file of another
    schema keeps its folder's category."""
    other_db = sqlite_bytes("CREATE TABLE labels (image TEXT, label INTEGER);"
                            "INSERT INTO labels VALUES ('cat_0001.jpg', 3);")
    return Labelled("Optuna studies", {
        **as_category("log", {"lr-sweep.db": OPTUNA_DB,
                              "studies/resnet-search.sqlite3": OPTUNA_DB,
                              "optuna_journal_storage.log":
                                  '{"op_code": 0, "worker_id": "a1b2", "study_name": "lr"}\n'}),
        **as_category("dataset", {"data/annotations.db": other_db}),
        **as_category("other", {"tune.py": "import optuna\n", "app.db": other_db}),
    })


_SACRED_RUN = {"artifacts": [], "command": "main", "experiment": {
    "base_dir": "/work/proj", "dependencies": ["numpy==2.4.6", "sacred==0.8.7"],
    "mainfile": "train.py", "name": "train_mnist", "repositories": [],
    "sources": [["train.py", "_sources/train_9ca2f1707502fb8bbebf17315cceb365.py"]]},
    "heartbeat": "2026-11-30T19:48:13.676999", "host": {"hostname": "gpu01"},
    "meta": {"command": "main", "options": {}}, "resources": [], "result": 0.33,
    "start_time": "2026-11-30T19:48:13.600219", "status": "COMPLETED",
    "stop_time": "2026-11-30T19:48:13.676991"}


def _sacred_run(run_id: int) -> dict[str, object]:
    return {f"{run_id}/config.json": json.dumps({"lr": 0.01, "seed": 26554911}, indent=2),
            f"{run_id}/cout.txt": "training with 0.01\n",
            f"{run_id}/metrics.json": json.dumps({"val_loss": {
                "steps": [0, 1, 2], "timestamps": ["2026-11-30T19:48:13.655107"] * 3,
                "values": [1.0, 0.5, 0.333]}}, indent=2),
            f"{run_id}/run.json": json.dumps(_SACRED_RUN, indent=2)}


def sacred_runs() -> Labelled:
    """FileStorageObserver("runs") and FileStorageObserver("my_runs") (its docs' name)."""
    sources = {"_sources/train_9ca2f1707502fb8bbebf17315cceb365.py": "from sacred import "
                                                                   "Experiment\n"}
    return Labelled("Sacred runs", {
        **as_category("log", under("runs", {**_sacred_run(1), **_sacred_run(2), **sources})),
        **as_category("log", under("my_runs", {**_sacred_run(1), **sources})),
        **as_category("other", {"train.py": "from sacred import Experiment\n",
                                "config.json": '{"lr": 0.01}'}),
    })


def aim_repo() -> Labelled:
    """An Aim repository (.aim/): RocksDB chunks per run hash, indexes and run_metadata.sqlite."""
    run = "a373e60f6f9a49eaa6fe9ca1"
    rocks = {"000009.sst": Sparse(48 * MB), "CURRENT": "MANIFEST-000004\n",
             "IDENTITY": "8f6c1f3e-1b2a-4c5d-9e8f-0a1b2c3d4e5f", "LOCK": "",
             "LOG": Sparse(27_344), "MANIFEST-000004": Sparse(195), "OPTIONS-000007": Sparse(6_534)}
    return Labelled("Aim repository", {
        **as_category("log", under(".aim", {
            "VERSION": "1.2\n", "run_metadata.sqlite": Sparse(65_536),
            f"check_ins/{run}-0000000000000001-starting-1796068164.28-00000": "",
            **under(f"meta/chunks/{run}", rocks), **under("meta/index", rocks),
            **under(f"seqs/chunks/{run}", rocks)})),
        **as_category("other", {"train.py": "from aim import Run\n"}),
    })


def dvc_project() -> Labelled:
    """`dvc init` and `dvc add data/train.csv` (cache type copy): the cache holds the data's
    content under its md5; the .dvc file and DVC's own files are versioned like code."""
    md5 = "6588bf39c0108d6b8f181ef07de903cf"
    return Labelled("DVC project", {
        **as_category("cache", {f".dvc/cache/files/md5/{md5[:2]}/{md5[2:]}": Sparse(812 * MB),
                                ".dvc/cache/files/md5/3f/0b5a9b0c6d1e2f3a4b5c6d7e8f9a0b1c.dir":
                                    '[{"md5": "6588bf39c0108d6b8f181ef07de903cf", '
                                    '"relpath": "train.csv"}]'}),
        **as_category("dataset", {"data/train.csv": Sparse(812 * MB),
                                  "data/images/img_0001.jpg": Sparse(120_000)}),
        **as_category("other", {
            ".dvc/config": "[core]\n    remote = storage\n", ".dvc/.gitignore": "/config.local\n"
            "/tmp\n/cache\n", ".dvc/tmp/btime": "", ".dvc/tmp/lock": Sparse(7),
            ".dvc/tmp/rwlock": '{"read": {}, "write": {}}', ".dvcignore": "# Add patterns\n",
            "data/train.csv.dvc": f"outs:\n- md5: {md5}\n  size: 851443712\n  hash: md5\n"
                                  "  path: train.csv\n",
            "data/.gitignore": "/train.csv\n",
            "dvc.yaml": "stages:\n  prepare:\n    cmd: python prepare.py\n",
            "dvc.lock": "schema: '2.0'\nstages:\n  prepare:\n    cmd: python prepare.py\n",
            "prepare.py": "import pandas\n"}),
    })


TRACKER_LAYOUTS = (optuna_studies, sacred_runs, aim_repo, dvc_project)
