"""Prophet: the user's ``train.py`` fits a ``Prophet`` model (weekly and yearly seasonality,
US holidays) on its toy daily series ``data/daily_visits.csv``, cross-validates it with
``prophet.diagnostics`` (``cross_validation``, ``performance_metrics``), saves the model with
the documented ``model_to_json`` and draws the components; ``forecast.py`` reloads it with
``model_from_json`` and writes a 60-day forecast CSV and plot.

    python3.11 -m venv /tmp/h7/prophet/venv
    /tmp/h7/prophet/venv/bin/pip install --only-binary=:all: prophet
    /tmp/h7/prophet/venv/bin/python tests/corpus/heldout7/prophet/make_fixtures.py

``python train.py > logs/train.log 2>&1`` then ``python forecast.py``. Prophet fits with
the CmdStan model shipped in its wheel (through cmdstanpy, whose run files go to a
temporary folder outside the project and are removed).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

TRAIN = '''"""Fit Prophet on data/daily_visits.csv, cross-validate, save: python train.py"""
import matplotlib

matplotlib.use("Agg")
import pandas as pd
from prophet import Prophet
from prophet.diagnostics import cross_validation, performance_metrics
from prophet.serialize import model_to_json

df = pd.read_csv("data/daily_visits.csv", parse_dates=["ds"])
m = Prophet(weekly_seasonality=True, yearly_seasonality=True, interval_width=0.9)
m.add_country_holidays(country_name="US")
m.fit(df)

df_cv = cross_validation(m, initial="730 days", period="90 days", horizon="30 days")
df_cv.to_csv("reports/cv_predictions.csv", index=False)
metrics = performance_metrics(df_cv)
metrics.to_csv("reports/cv_metrics.csv", index=False)
print(metrics[["horizon", "rmse", "mape", "coverage"]].tail(3).to_string())

with open("models/prophet_visits.json", "w") as f:
    f.write(model_to_json(m))
print("saved models/prophet_visits.json")
fig = m.plot_components(m.predict(df))
fig.savefig("plots/components.png", dpi=60)
'''

FORECAST = '''"""Forecast 60 days with the saved model: python forecast.py"""
import matplotlib

matplotlib.use("Agg")
from prophet.serialize import model_from_json

with open("models/prophet_visits.json") as f:
    m = model_from_json(f.read())
forecast = m.predict(m.make_future_dataframe(periods=60))
cols = ["ds", "yhat", "yhat_lower", "yhat_upper"]
forecast[cols].tail(60).to_csv("outputs/forecast_60d.csv", index=False)
m.plot(forecast).savefig("plots/forecast_60d.png", dpi=60)
print("wrote outputs/forecast_60d.csv")
'''


def _data(path: Path) -> None:
    import datetime as dt

    import numpy as np

    rng = np.random.default_rng(0)
    n = 1095
    t = np.arange(n)
    visits = (500 + 0.3 * t + 60 * np.sin(2 * np.pi * t / 7) + 80 * np.sin(2 * np.pi * t / 365.25)
              + rng.normal(0, 20, n))
    start = dt.date(2023, 1, 1)
    days = [(start + dt.timedelta(days=i)).isoformat() for i in range(n)]
    path.parent.mkdir(parents=True)
    rows = [f"{d},{v:.0f}" for d, v in zip(days, visits, strict=True)]
    path.write_text("ds,y\n" + "\n".join(rows) + "\n")


def run(work: Path) -> list[dict[str, object]]:
    _data(Path("data/daily_visits.csv"))
    Path("train.py").write_text(TRAIN)
    Path("forecast.py").write_text(FORECAST)
    for folder in ("models", "reports", "outputs", "plots", "logs"):
        Path(folder).mkdir()
    with open("logs/train.log", "w") as log:
        subprocess.run([sys.executable, "train.py"], stdout=log, stderr=subprocess.STDOUT,
                       check=True)
    text = Path("logs/train.log").read_text()
    sys.stderr.write(text)
    path = "models/prophet_visits.json"
    assert f"saved {path}" in text, text
    done = subprocess.run([sys.executable, "forecast.py"], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr)
    return [{"run": "python train.py > logs/train.log 2>&1", "best": None, "latest": path,
             "evidence": f"train.py wrote model_to_json(m) to {path} and printed 'saved "
                         f"{path}' (logs/train.log); forecast.py reloaded it with "
                         f"model_from_json. Prophet fits one model and has no notion of "
                         f"best (cross_validation refits on cutoffs and keeps no model)"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("models/"):
        return "checkpoint"
    if path.startswith(("reports/", "logs/", "plots/components")):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "prophet", tool="prophet",
           kind="time-series forecasting (Prophet, CmdStan; model_to_json, diagnostics)",
           command="python train.py > logs/train.log 2>&1; python forecast.py (train.py: "
                   "Prophet().fit, cross_validation/performance_metrics to reports/, "
                   "model_to_json to models/prophet_visits.json, plot_components)")
