"""statsmodels: the user's ``ols.py`` fits a regression of monthly sales on price, promotion
and month (``smf.ols`` with a formula) and ``arima.py`` a seasonal ARIMA on the same toy
series (``statsmodels.tsa.arima.model.ARIMA``); each saves its results object with the
documented ``results.save(...)`` (a pickle; ``remove_data=True`` for the ARIMA, as the docs
suggest to keep it small), writes ``results.summary()`` as text, and ``arima.py`` writes a
12-month forecast with its confidence interval as CSV.

    python3.11 -m venv /tmp/h7/statsmodels/venv
    /tmp/h7/statsmodels/venv/bin/pip install statsmodels pandas
    /tmp/h7/statsmodels/venv/bin/python tests/corpus/heldout7/statsmodels/make_fixtures.py

``python ols.py`` then ``python arima.py``; then ``python check_saved.py`` reloads both with
``sm.load`` and prints their parameters, as a user checking the pickles would.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

OLS = '''"""Regress monthly sales on price, promotion and month: python ols.py"""
import pandas as pd
import statsmodels.formula.api as smf

df = pd.read_csv("data/monthly_sales.csv", parse_dates=["month"])
df["moy"] = df["month"].dt.month
res = smf.ols("sales ~ price + promo + C(moy)", data=df).fit()
print(res.summary())
with open("reports/ols_summary.txt", "w") as f:
    f.write(res.summary().as_text())
res.save("models/ols_sales.pickle")
print("saved models/ols_sales.pickle")
'''

ARIMA = '''"""Seasonal ARIMA on monthly sales, forecast 12 months: python arima.py"""
import warnings

import pandas as pd
from statsmodels.tsa.arima.model import ARIMA

warnings.simplefilter("ignore")
df = pd.read_csv("data/monthly_sales.csv", parse_dates=["month"], index_col="month")
y = df["sales"].asfreq("MS")
res = ARIMA(y, order=(1, 1, 1), seasonal_order=(0, 1, 1, 12)).fit()
print(res.summary())
with open("reports/arima_summary.txt", "w") as f:
    f.write(res.summary().as_text())
fc = res.get_forecast(12)
out = pd.concat([fc.predicted_mean.rename("forecast"), fc.conf_int(alpha=0.1)], axis=1)
out.index.name = "month"
out.to_csv("outputs/forecast_12m.csv")
res.save("models/arima_111_011_12.pkl", remove_data=True)
print("saved models/arima_111_011_12.pkl")
'''

CHECK = '''"""Reload the saved results and print them: python check_saved.py"""
import statsmodels.api as sm

for path in ["models/ols_sales.pickle", "models/arima_111_011_12.pkl"]:
    res = sm.load(path)
    print(path, type(res).__name__, res.params.round(3).to_dict())
'''


def _data(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    n = 96
    t = np.arange(n)
    price = 10 + rng.normal(0, 0.8, n)
    promo = (rng.random(n) < 0.25).astype(int)
    sales = (200 + 1.5 * t + 25 * np.sin(2 * np.pi * t / 12) - 6 * price + 30 * promo
             + rng.normal(0, 8, n))
    months = [f"{2016 + i // 12}-{i % 12 + 1:02d}-01" for i in range(n)]
    path.parent.mkdir(parents=True)
    rows = [f"{m},{s:.1f},{p:.2f},{q}"
            for m, s, p, q in zip(months, sales, price, promo, strict=True)]
    path.write_text("month,sales,price,promo\n" + "\n".join(rows) + "\n")


def _python(script: str) -> str:
    done = subprocess.run([sys.executable, script], capture_output=True, text=True, check=True)
    sys.stderr.write(done.stdout + done.stderr)
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    _data(Path("data/monthly_sales.csv"))
    Path("ols.py").write_text(OLS)
    Path("arima.py").write_text(ARIMA)
    Path("check_saved.py").write_text(CHECK)
    for folder in ("models", "reports", "outputs"):
        Path(folder).mkdir()
    checkpoints = []
    for script, path in (("ols.py", "models/ols_sales.pickle"),
                         ("arima.py", "models/arima_111_011_12.pkl")):
        out = _python(script)
        assert f"saved {path}" in out, out
        checkpoints.append({
            "run": f"python {script}", "best": None, "latest": path,
            "evidence": f"the script's results.save wrote {path} and printed 'saved {path}'; "
                        f"python check_saved.py reloaded it with sm.load; statsmodels fits "
                        f"once and keeps no notion of best or of checkpoints"})
    out = _python("check_saved.py")
    assert "RegressionResults" in out and "ARIMAResults" in out, out
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith("reports/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "statsmodels", tool="statsmodels",
           kind="statistical models (OLS, ARIMA; results.save pickles, summaries)",
           command="python ols.py; python arima.py; python check_saved.py (results.save to "
                   "models/, summary().as_text() to reports/, ARIMA forecast to "
                   "outputs/forecast_12m.csv)")
