"""Great Expectations: a file-based GX project (``gx.get_context(mode="file")``, the
``gx/`` folder in the project) for the user's monthly order exports. ``setup_gx.py`` adds a
pandas filesystem data source on ``data/``, a CSV asset with a monthly batch definition, an
expectation suite of four expectations, a validation definition and a checkpoint with an
``UpdateDataDocsAction``; ``validate.py YYYY-MM`` runs the checkpoint on that month's file.

    python3.11 -m venv /tmp/h8/gx/venv
    /tmp/h8/gx/venv/bin/pip install great_expectations
    /tmp/h8/gx/venv/bin/python \
        tests/corpus/heldout8/great_expectations/make_fixtures.py

``python setup_gx.py``, then ``python validate.py 2026-01`` (passes) and
``python validate.py 2026-02`` (fails: three rows with a negative amount and an unknown
status).
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

SETUP = r'''"""Create the GX project for the order exports: python setup_gx.py"""
import great_expectations as gx

context = gx.get_context(mode="file", project_root_dir=".")
source = context.data_sources.add_pandas_filesystem(name="local_files", base_directory="data")
asset = source.add_csv_asset(name="orders")
monthly = asset.add_batch_definition_monthly(
    name="orders_monthly", regex=r"orders_(?P<year>\d{4})-(?P<month>\d{2})\.csv")
suite = context.suites.add(gx.ExpectationSuite(name="orders_suite"))
suite.add_expectation(gx.expectations.ExpectColumnValuesToNotBeNull(column="order_id"))
suite.add_expectation(gx.expectations.ExpectColumnValuesToBeUnique(column="order_id"))
suite.add_expectation(gx.expectations.ExpectColumnValuesToBeBetween(
    column="amount", min_value=0, max_value=5000))
suite.add_expectation(gx.expectations.ExpectColumnValuesToBeInSet(
    column="status", value_set=["paid", "refunded", "pending"]))
validation = context.validation_definitions.add(
    gx.ValidationDefinition(name="orders_validation", data=monthly, suite=suite))
context.checkpoints.add(gx.Checkpoint(
    name="orders_checkpoint", validation_definitions=[validation],
    actions=[gx.checkpoint.UpdateDataDocsAction(name="update_data_docs")]))
print("project ready")
'''

VALIDATE = '''"""Validate one month of orders: python validate.py YYYY-MM"""
import sys
import great_expectations as gx

year, month = sys.argv[1].split("-")
context = gx.get_context(mode="file", project_root_dir=".")
checkpoint = context.checkpoints.get("orders_checkpoint")
result = checkpoint.run(batch_parameters={"year": year, "month": month})
print("success", result.success)
for key in result.run_results:
    print("result", key)
'''


def _orders(month: str, bad: int) -> None:
    rng = random.Random(int(month))
    rows = ["order_id,customer,amount,status"]
    for i in range(50):
        amount = round(rng.uniform(5, 500), 2)
        status = rng.choice(["paid", "paid", "refunded", "pending"])
        if i < bad:
            amount, status = -10.0, "lost"
        rows.append(f"{month}{i:04d},cust{rng.randint(1, 20)},{amount},{status}")
    Path(f"data/orders_2026-{month}.csv").write_text("\n".join(rows) + "\n")


def _run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, done.returncode
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    Path("data").mkdir()
    _orders("01", 0)
    _orders("02", 3)
    Path("setup_gx.py").write_text(SETUP)
    Path("validate.py").write_text(VALIDATE)
    assert "project ready" in _run("setup_gx.py")
    checkpoints = []
    for month, success in (("2026-01", True), ("2026-02", False)):
        out = _run("validate.py", month)
        assert f"success {success}" in out.splitlines(), out
        key = next(x for x in out.splitlines() if x.startswith("result ")).split("::")[1]
        assert Path(f"gx/uncommitted/validations/{key}.json").exists(), key
        checkpoints.append({
            "run": f"python validate.py {month}", "best": None, "latest": None,
            "evidence": f"checkpoint.run returned success {success} with one validation "
                        f"result, {key} (printed); a GX Checkpoint is a validation runner "
                        f"(its config is gx/checkpoints/orders_checkpoint.json), no model or "
                        f"training state is saved, so there is no best or latest"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.endswith(".ge_store_backend_id"):
        return "cache"
    if path.startswith(("gx/uncommitted/validations/", "gx/uncommitted/data_docs/")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "great_expectations",
           tool="great_expectations", kind="data validation (file-based GX project)",
           command="python setup_gx.py; python validate.py 2026-01; python validate.py "
                   "2026-02 (setup_gx.py: gx.get_context(mode='file'), pandas filesystem "
                   "source on data/, monthly CSV batch definition, suite 'orders_suite', "
                   "validation definition, checkpoint 'orders_checkpoint' with "
                   "UpdateDataDocsAction; validate.py: checkpoint.run(batch_parameters="
                   "{year, month}))")
