"""sdv: a data scientist makes a shareable synthetic copy of the user's customer table with
the Synthetic Data Vault (SDV): single-table ``Metadata`` detected from the real CSV and
saved as JSON, a ``GaussianCopulaSynthesizer`` and a ``CTGANSynthesizer`` (a tiny GAN, a
few epochs, CPU) fitted on it, each saved with ``synthesizer.save("...pkl")``, synthetic
CSVs sampled, and SDV's quality and diagnostic reports (``sdv.evaluation.evaluate_quality``
/ ``run_diagnostic``) saved with ``report.save(...)`` plus their property details as CSV.

    python3.11 -m venv /tmp/h11/sdv/venv
    /tmp/h11/sdv/venv/bin/pip install torch==2.13.0 (the CPU build) sdv
    /tmp/h11/sdv/venv/bin/python tests/corpus/heldout11/sdv/make_fixtures.py

The workspace is HOME, so what SDV writes in the user data folder
(``platformdirs.user_data_dir("sdv")``: ``~/.local/share/sdv/sdv_logger_config.yml``, the
default logging config it copies there on import; with its default ``log_registry: null``
no ``sdv_logs.csv`` is written) is captured with the project. The user's real
data is ``data/real/customers.csv`` (400 toy customers). ``python make_metadata.py``
(``Metadata.detect_from_dataframes``, the id set as primary key, ``save_to_json``),
``python fit_gaussian_copula.py``, ``python fit_ctgan.py`` (20 epochs, loss values to
``logs/``), ``python sample_more.py`` (``sdv.utils.load_synthesizer`` and a second sample).
"""

# ruff: noqa: E501 - the lines the tool's scripts and install ran with, quoted as they were

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

METADATA = '''"""Describe the real table for SDV: python make_metadata.py"""
from sdv.io.local import CSVHandler
from sdv.metadata import Metadata

real = CSVHandler().read(folder_name="data/real")
metadata = Metadata.detect_from_dataframes(real)
metadata.update_column("customer_id", sdtype="id", regex_format="C[0-9]{5}")
metadata.update_column("signup_date", sdtype="datetime", datetime_format="%Y-%m-%d")
metadata.validate()
metadata.save_to_json("metadata/customers_metadata.json")
print("saved metadata/customers_metadata.json")
'''

REPORTS = '''
def evaluate(real, synthetic, metadata, name):
    quality = evaluate_quality(real, synthetic, metadata)
    quality.save(f"reports/{name}_quality_report.pkl")
    for prop in ("Column Shapes", "Column Pair Trends"):
        slug = prop.lower().replace(" ", "_")
        quality.get_details(prop).to_csv(f"reports/{name}_{slug}.csv", index=False)
    diagnostic = run_diagnostic(real, synthetic, metadata)
    diagnostic.save(f"reports/{name}_diagnostic_report.pkl")
    diagnostic.get_details("Data Validity").to_csv(f"reports/{name}_data_validity.csv",
                                                   index=False)
    print(f"{name}: quality score {quality.get_score():.4f}, "
          f"diagnostic score {diagnostic.get_score():.4f}")
'''

GAUSSIAN = '''"""Gaussian copula synthesizer: python fit_gaussian_copula.py"""
from pathlib import Path

from sdv.evaluation import evaluate_quality, run_diagnostic
from sdv.io.local import CSVHandler
from sdv.metadata import Metadata
from sdv.single_table import GaussianCopulaSynthesizer
''' + REPORTS + '''

real = CSVHandler().read(folder_name="data/real")
metadata = Metadata.load_from_json("metadata/customers_metadata.json")
synthesizer = GaussianCopulaSynthesizer(metadata, default_distribution="beta")
synthesizer.fit(real)
Path("synthesizers").mkdir(exist_ok=True)
synthesizer.save("synthesizers/gaussian_copula.pkl")
print("saved synthesizers/gaussian_copula.pkl")
synthetic = synthesizer.sample(num_rows=400)
CSVHandler().write(synthetic, folder_name="synthetic", file_name_suffix="_gaussian_copula", mode="w")
print("sampled", len(synthetic["customers"]), "rows -> synthetic/customers_gaussian_copula.csv")
Path("reports").mkdir(exist_ok=True)
evaluate(real, synthetic, metadata, "gaussian_copula")
'''

CTGAN = '''"""CTGAN synthesizer (a few epochs on CPU): python fit_ctgan.py"""
from pathlib import Path

from sdv.evaluation import evaluate_quality, run_diagnostic
from sdv.io.local import CSVHandler
from sdv.metadata import Metadata
from sdv.single_table import CTGANSynthesizer
''' + REPORTS + '''

real = CSVHandler().read(folder_name="data/real")
metadata = Metadata.load_from_json("metadata/customers_metadata.json")
synthesizer = CTGANSynthesizer(metadata, epochs=20, batch_size=100, embedding_dim=32,
                               generator_dim=(64, 64), discriminator_dim=(64, 64),
                               enable_gpu=False, verbose=True)
synthesizer.fit(real)
Path("logs").mkdir(exist_ok=True)
synthesizer.get_loss_values().to_csv("logs/ctgan_loss.csv", index=False)
Path("synthesizers").mkdir(exist_ok=True)
synthesizer.save("synthesizers/ctgan.pkl")
print("saved synthesizers/ctgan.pkl")
synthetic = synthesizer.sample(num_rows=400)
CSVHandler().write(synthetic, folder_name="synthetic", file_name_suffix="_ctgan", mode="w")
print("sampled", len(synthetic["customers"]), "rows -> synthetic/customers_ctgan.csv")
Path("reports").mkdir(exist_ok=True)
evaluate(real, synthetic, metadata, "ctgan")
'''

SAMPLE = '''"""Load the saved CTGAN and sample a bigger synthetic table: python sample_more.py"""
from sdv.io.local import CSVHandler
from sdv.utils import load_synthesizer

synthesizer = load_synthesizer("synthesizers/ctgan.pkl")
synthetic = synthesizer.sample(num_rows=1000, batch_size=500)
CSVHandler().write(synthetic, folder_name="synthetic", file_name_suffix="_ctgan_1000", mode="w")
print("sampled", len(synthetic["customers"]), "rows -> synthetic/customers_ctgan_1000.csv")
'''


def _customers(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    start = np.datetime64("2021-01-01")
    lines = ["customer_id,signup_date,age,region,plan,monthly_spend,support_calls,churned"]
    for n in range(400):
        plan = rng.choice(["basic", "standard", "premium"], p=[0.5, 0.35, 0.15])
        age = int(np.clip(rng.normal(41, 12), 18, 85))
        spend = {"basic": 25, "standard": 55, "premium": 110}[plan] * rng.lognormal(0, 0.2)
        calls = int(rng.poisson(1.2))
        churned = bool(rng.random() < 0.15 + 0.08 * calls - 0.002 * age)
        date = start + np.timedelta64(int(rng.integers(0, 1200)), "D")
        region = rng.choice(["north", "south", "east", "west"])
        lines.append(f"C{n:05d},{date},{age},{region},{plan},{spend:.2f},{calls},{churned}")
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n")


def _run(script: str) -> str:
    env = {**os.environ, "HOME": str(Path.cwd())}
    env.pop("XDG_DATA_HOME", None)
    done = subprocess.run([sys.executable, script], capture_output=True, text=True,
                          check=True, env=env)
    sys.stderr.write(done.stdout + done.stderr)
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    _customers(Path("data/real/customers.csv"))
    Path("metadata").mkdir()
    for name, text in [("make_metadata.py", METADATA),
                       ("fit_gaussian_copula.py", GAUSSIAN), ("fit_ctgan.py", CTGAN),
                       ("sample_more.py", SAMPLE)]:
        Path(name).write_text(text)
    assert "saved metadata" in _run("make_metadata.py")
    out = _run("fit_gaussian_copula.py")
    assert "saved synthesizers/gaussian_copula.pkl" in out and "quality score" in out, out
    gc_line = next(line for line in out.splitlines() if "quality score" in line)
    out = _run("fit_ctgan.py")
    assert "saved synthesizers/ctgan.pkl" in out and "quality score" in out, out
    ct_line = next(line for line in out.splitlines() if "quality score" in line)
    assert "1000 rows" in _run("sample_more.py")
    return [{"run": "python fit_gaussian_copula.py", "best": None,
             "latest": "synthesizers/gaussian_copula.pkl",
             "evidence": "synthesizer.save('synthesizers/gaussian_copula.pkl') after fit "
                         "(printed 'saved synthesizers/gaussian_copula.pkl'), the one model "
                         "of the run; SDV saves only when asked and has no notion of a "
                         f"best ({gc_line})"},
            {"run": "python fit_ctgan.py", "best": None, "latest": "synthesizers/ctgan.pkl",
             "evidence": "synthesizer.save('synthesizers/ctgan.pkl') after the 20 epochs of "
                         "fit (printed 'saved synthesizers/ctgan.pkl'), reloaded by "
                         "sample_more.py with sdv.utils.load_synthesizer; CTGAN writes no "
                         "intermediate checkpoints and SDV keeps no best "
                         f"({ct_line})"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("synthetic/"):
        return "augmented"
    if path.startswith("synthesizers/"):
        return "checkpoint"
    if path.startswith(("reports/", "logs/")):
        return "log"
    if path.startswith((".local/share/sdv/", ".cache/")):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "sdv", tool="sdv",
           kind="synthetic tabular data (GaussianCopula and CTGAN synthesizers, "
                "quality/diagnostic reports)",
           command="HOME=<workspace>; python make_metadata.py; python "
                   "fit_gaussian_copula.py; python fit_ctgan.py (epochs=20); python "
                   "sample_more.py")
