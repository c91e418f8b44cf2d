"""Kedro: a project made by ``kedro new`` from the spaceflights-pandas starter, then
``kedro run`` twice, on CPU, as Kedro's spaceflights tutorial does.

    /work/venvs/tools-b/bin/pip install kedro "kedro-datasets[pandas-csvdataset,\
pandas-exceldataset,pandas-parquetdataset,plotly-plotlydataset,plotly-jsondataset,\
matplotlib-matplotlibdataset]" seaborn scikit-learn
    KEDRO_STARTERS=/path/to/kedro-starters /work/venvs/tools-b/bin/python \
        tests/corpus/heldout3/kedro/make_fixtures.py

``kedro new --starter=spaceflights-pandas`` clones kedro-org/kedro-starters; this machine
reaches no code host, so the script names a local clone of it (``KEDRO_STARTERS``), which
``kedro new`` takes as the same cookiecutter template. The project (``spaceflights/``) ships
its raw data in ``data/01_raw/``; ``kedro run`` writes the catalog's parquet tables into
``data/02_intermediate/`` and ``data/03_primary/``, a versioned ``regressor.pickle`` (a
fitted scikit-learn LinearRegression) under ``data/06_models/regressor.pickle/<timestamp>/``
and versioned plots under ``data/08_reporting/``. ``KEDRO_LOGGING_CONFIG=conf/logging.yml``,
as the project's own logging file says to enable it, adds ``info.log``. Telemetry is off
(``DO_NOT_TRACK``), as with no network its prompt cannot be answered.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

MODELS = "spaceflights/data/06_models/regressor.pickle"


def run(work: Path) -> list[dict[str, object]]:
    env = {**os.environ, "DO_NOT_TRACK": "1", "KEDRO_DISABLE_TELEMETRY": "true"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's run leaves its __pycache__
    kedro = [sys.executable, "-m", "kedro"]
    starter = Path(os.environ["KEDRO_STARTERS"]) / "spaceflights-pandas"
    subprocess.run([*kedro, "new", f"--starter={starter}", "--name=spaceflights"],
                   cwd=work, env=env, check=True, stdin=subprocess.DEVNULL)
    for _ in range(2):
        subprocess.run([*kedro, "run"], cwd=work / "spaceflights", check=True,
                       env={**env, "KEDRO_LOGGING_CONFIG": "conf/logging.yml"},
                       stdin=subprocess.DEVNULL)
    versions = sorted(p.name for p in (work / MODELS).iterdir())
    return [{"run": MODELS, "best": None,
             "latest": f"{MODELS}/{versions[-1]}/regressor.pickle",
             "evidence": f"two kedro runs saved versions {versions}; Kedro loads a versioned "
                         f"dataset's newest version, and records no best"}]


def label(path: str) -> str:
    if path.startswith("spaceflights/data/01_raw/") and not path.endswith(".gitkeep"):
        return "dataset"
    if path.startswith(("spaceflights/data/02_intermediate/",
                        "spaceflights/data/03_primary/")) and path.endswith(".parquet"):
        return "augmented"
    if path.startswith("spaceflights/data/06_models/") and path.endswith(".pickle"):
        return "checkpoint"
    if path.startswith("spaceflights/data/08_reporting/") and not path.endswith(".gitkeep"):
        return "log"
    if path == "spaceflights/info.log":
        return "log"
    return "cache" if "/__pycache__/" in path else "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "kedro", tool="Kedro",
           kind="pipeline framework",
           command="kedro new --starter=spaceflights-pandas --name=spaceflights; "
                   "KEDRO_LOGGING_CONFIG=conf/logging.yml kedro run (twice)")
