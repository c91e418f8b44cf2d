"""xarray with dask: the user's ``preprocess.py`` turns two years of toy gridded daily
temperature (``data/raw/t2m_<year>.nc``, netCDF files the user has) into training inputs on a
local dask cluster: ``xr.open_mfdataset`` with dask chunks, a merged and rechunked copy to
Zarr (``data/interim/``), then a monthly climatology (netCDF) and standardised anomalies
(Zarr) under ``data/processed/``, the whole inside ``distributed.performance_report``.

    python3.11 -m venv /tmp/h7/xarray/venv
    /tmp/h7/xarray/venv/bin/pip install --only-binary=:all: xarray "dask[distributed]" \\
        netCDF4 zarr bokeh
    /tmp/h7/xarray/venv/bin/python tests/corpus/heldout7/xarray/make_fixtures.py

``python preprocess.py > logs/preprocess.log 2>&1``. The cluster is
``LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="1GiB",
local_directory="dask-scratch", dashboard_address=None)``: the workers' space inside the
project, as a user pointing dask's scratch at the project's disk would.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

PREPROCESS = '''"""Daily t2m -> climatology and standardised anomalies: python preprocess.py"""
import xarray as xr
from dask.distributed import Client, LocalCluster, performance_report

if __name__ == "__main__":
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="1GiB",
                           local_directory="dask-scratch", dashboard_address=None)
    client = Client(cluster)
    print(client)
    with performance_report(filename="reports/dask-report.html"):
        ds = xr.open_mfdataset("data/raw/t2m_*.nc", combine="by_coords",
                               chunks={"lat": 8, "lon": 12}, parallel=True)
        print(ds)
        # one merged store, chunked in space for the per-gridpoint statistics below
        merged = ds.chunk({"time": -1})
        merged.to_zarr("data/interim/t2m_daily.zarr", mode="w")
        t2m = xr.open_zarr("data/interim/t2m_daily.zarr")["t2m"]

        clim = t2m.groupby("time.month").mean().rename("t2m_clim").compute()
        clim.to_netcdf("data/processed/t2m_climatology.nc")

        anom = t2m - clim.sel(month=t2m["time.month"]).drop_vars("month")
        anom = (anom / anom.std("time")).rename("t2m_anom").astype("float32")
        anom.to_dataset().to_zarr("data/processed/t2m_anomalies.zarr", mode="w")
    print("wrote data/processed/t2m_climatology.nc, data/processed/t2m_anomalies.zarr")
    client.close()
    cluster.close()
'''


def _raw(folder: Path) -> None:
    import numpy as np
    import pandas as pd
    import xarray as xr

    rng = np.random.default_rng(0)
    folder.mkdir(parents=True)
    lat = np.linspace(35.0, 58.0, 16)
    lon = np.linspace(-10.0, 25.0, 24)
    for year in (2020, 2021):
        time = pd.date_range(f"{year}-01-01", f"{year}-12-31", freq="D")
        doy = time.dayofyear.to_numpy()[:, None, None]
        base = 288.0 - 0.6 * (lat[None, :, None] - 45.0) + 0 * lon[None, None, :]
        season = 9.0 * np.sin(2 * np.pi * (doy - 110) / 365.25)
        t2m = base + season + rng.normal(0, 2.5, (len(time), lat.size, lon.size))
        ds = xr.Dataset({"t2m": (("time", "lat", "lon"), t2m.astype("float32"),
                                 {"units": "K", "long_name": "2 metre temperature"})},
                        coords={"time": time, "lat": lat, "lon": lon},
                        attrs={"source": "station reanalysis export", "year": year})
        ds.to_netcdf(folder / f"t2m_{year}.nc")


def run(work: Path) -> list[dict[str, object]]:
    _raw(Path("data/raw"))
    Path("preprocess.py").write_text(PREPROCESS)
    for folder in ("data/interim", "data/processed", "reports", "logs"):
        Path(folder).mkdir(parents=True, exist_ok=True)
    with open("logs/preprocess.log", "w") as log:
        subprocess.run([sys.executable, "preprocess.py"], stdout=log, stderr=subprocess.STDOUT,
                       check=True)
    text = Path("logs/preprocess.log").read_text()
    sys.stderr.write(text)
    assert "wrote data/processed/" in text, text
    assert Path("reports/dask-report.html").is_file()
    return []


def label(path: str) -> str:
    if path.startswith(("data/raw/", "data/processed/")):
        return "dataset"
    if path.startswith("data/interim/"):
        return "augmented"
    if path.startswith("reports/"):
        return "debug"
    if path.startswith("logs/"):
        return "log"
    if path.startswith("dask-scratch/"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "xarray", tool="xarray",
           kind="labelled N-d arrays on dask (open_mfdataset, to_zarr, to_netcdf, "
                "distributed LocalCluster and performance_report)",
           command="python preprocess.py > logs/preprocess.log 2>&1 (LocalCluster(n_workers=2, "
                   "local_directory='dask-scratch'); open_mfdataset('data/raw/t2m_*.nc'); "
                   "to_zarr data/interim/t2m_daily.zarr; climatology to_netcdf and anomalies "
                   "to_zarr under data/processed/; performance_report reports/dask-report.html)")
