"""sktime: the user's ``forecast.py`` tunes a forecaster for its monthly sales series with
sktime's ``ForecastingGridSearchCV`` (a detrended ``make_reduction`` Ridge forecaster, the
window length searched over expanding-window splits), saves the best forecaster with
sktime's own ``forecaster.save(path)`` (a zip: ``_metadata`` and ``_obj`` pickles), writes
the search's ``cv_results_`` and a 12-month forecast; ``predict.py`` then loads the zip with
``sktime.base.load`` and forecasts again, as a user reusing the saved model would.

    python3.11 -m venv /tmp/h6/sktime/venv
    /tmp/h6/sktime/venv/bin/pip install sktime
    /tmp/h6/sktime/venv/bin/python tests/corpus/heldout6/sktime/make_fixtures.py

``python forecast.py`` (data/monthly_sales.csv: 96 toy months with trend, seasonality and
noise) then ``python predict.py 18``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

FORECAST = '''"""Tune and save the sales forecaster: python forecast.py"""
from pathlib import Path

import pandas as pd
from sklearn.linear_model import Ridge
from sktime.forecasting.compose import TransformedTargetForecaster, make_reduction
from sktime.forecasting.model_selection import ForecastingGridSearchCV
from sktime.forecasting.trend import PolynomialTrendForecaster
from sktime.performance_metrics.forecasting import MeanAbsolutePercentageError
from sktime.split import ExpandingWindowSplitter
from sktime.transformations.series.detrend import Detrender

sales = pd.read_csv("data/monthly_sales.csv", index_col="month", parse_dates=True)["units"]
sales.index = sales.index.to_period("M")

pipe = TransformedTargetForecaster([
    ("detrend", Detrender(PolynomialTrendForecaster(degree=1))),
    ("reduce", make_reduction(Ridge(alpha=1.0), window_length=12, strategy="recursive")),
])
search = ForecastingGridSearchCV(
    pipe,
    cv=ExpandingWindowSplitter(initial_window=48, step_length=12, fh=list(range(1, 13))),
    param_grid={"reduce__window_length": [6, 12, 18], "reduce__estimator__alpha": [0.1, 1.0]},
    scoring=MeanAbsolutePercentageError(symmetric=False),
)
search.fit(sales)
print("best params", search.best_params_, "best MAPE", round(search.best_score_, 4))

Path("results").mkdir(exist_ok=True)
search.cv_results_.to_csv("results/cv_results.csv", index=False)
zipped = search.best_forecaster_.save("models/sales_forecaster")
print("saved", zipped.filename)
search.best_forecaster_.predict(fh=list(range(1, 13))).to_csv("results/forecast_12m.csv")
'''

PREDICT = '''"""Forecast with the saved model: python predict.py HORIZON"""
import sys

from sktime.base import load

horizon = int(sys.argv[1])
forecaster = load("models/sales_forecaster")
forecast = forecaster.predict(fh=list(range(1, horizon + 1)))
forecast.to_csv(f"results/forecast_{horizon}m.csv")
print(forecast.tail(3))
'''


def _sales(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    t = np.arange(96)
    units = 200 + 1.5 * t + 30 * np.sin(2 * np.pi * t / 12) + rng.normal(0, 8, size=96)
    months = [f"{2017 + m // 12}-{m % 12 + 1:02d}-01" for m in t]
    path.parent.mkdir(parents=True)
    rows = [f"{m},{u:.1f}" for m, u in zip(months, units, strict=True)]
    path.write_text("month,units\n" + "\n".join(rows) + "\n")


def _run(*args: str) -> str:
    env = {**os.environ, "PYTHONWARNINGS": "ignore::FutureWarning"}
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env)
    sys.stderr.write(done.stdout + done.stderr)
    done.check_returncode()
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    _sales(Path("data/monthly_sales.csv"))
    Path("forecast.py").write_text(FORECAST)
    Path("predict.py").write_text(PREDICT)
    Path("models").mkdir()
    out = _run("forecast.py")
    best = out.splitlines()[0]
    saved = out.splitlines()[1].split("saved ", 1)[1]
    path = "models/sales_forecaster.zip"
    assert Path(saved).resolve() == (work / path).resolve(), saved
    _run("predict.py", "18")
    return [{
        "run": "python forecast.py", "best": path, "latest": path,
        "evidence": f"ForecastingGridSearchCV reported its best_forecaster_ ({best}); "
                    f"best_forecaster_.save('models/sales_forecaster') returned the ZipFile "
                    f"{saved} (printed 'saved ...'), the one model the run saved, so it is "
                    f"also the latest"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path == "results/cv_results.csv":
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "sktime", tool="sktime",
           kind="time-series forecasting (estimator.save zip, sktime.base.load)",
           command="python forecast.py (ForecastingGridSearchCV over a detrended make_reduction "
                   "Ridge forecaster, best_forecaster_.save('models/sales_forecaster'), "
                   "cv_results_ and a 12-month forecast to results/); python predict.py 18 "
                   "(sktime.base.load of models/sales_forecaster, forecast to "
                   "results/forecast_18m.csv)")
