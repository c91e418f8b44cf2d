"""zarr: the user keeps a gridded hourly temperature dataset as a Zarr v3 store
(``data/t2m_hourly.zarr``: a group with a chunked ``t2m`` array, a sharded ``rh`` array and
the ``time``/``lat``/``lon`` coordinates), and the user's ``resample.py`` writes a derived
copy, daily means on a 2x coarser grid, as a Zarr v2 store with consolidated metadata
(``data/t2m_daily_coarse.zarr``, v2 for an older reader), as a climate user would.

    python3.11 -m venv /tmp/h9/zarr/venv
    /tmp/h9/zarr/venv/bin/pip install zarr numpy
    /tmp/h9/zarr/venv/bin/python tests/corpus/heldout9/zarr/make_fixtures.py

The hourly store is written with ``zarr.create_group`` / ``create_array`` (default codecs:
bytes + zstd; ``rh`` with ``shards=``), 10 days of 16x16 hourly toy fields; then
``python resample.py`` reads it and writes the derived store (``zarr_format=2``,
``zarr.consolidate_metadata``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

RESAMPLE = '''"""Daily means on a 2x coarser grid: python resample.py"""
import numpy as np
import zarr

src = zarr.open_group("data/t2m_hourly.zarr", mode="r")
hours, ny, nx = src["t2m"].shape
days = hours // 24


def daily_coarse(values):
    daily = values.reshape(days, 24, ny, nx).mean(axis=1)
    return daily.reshape(days, ny // 2, 2, nx // 2, 2).mean(axis=(2, 4)).astype("float32")


out = zarr.create_group("data/t2m_daily_coarse.zarr", zarr_format=2, overwrite=True,
                        attributes={**src.attrs, "history": "daily mean, 2x2 coarsened "
                                    "from t2m_hourly.zarr by resample.py"})
for name in ("t2m", "rh"):
    out.create_array(name, data=daily_coarse(src[name][:]), chunks=(5, ny // 2, nx // 2),
                     attributes={**src[name].attrs, "_ARRAY_DIMENSIONS": ["time", "lat", "lon"]})
out.create_array("time", data=src["time"][::24], attributes={"_ARRAY_DIMENSIONS": ["time"],
                                                            **src["time"].attrs})
for name in ("lat", "lon"):
    coarse = src[name][:].reshape(-1, 2).mean(axis=1)
    out.create_array(name, data=coarse, attributes={"_ARRAY_DIMENSIONS": [name]})
zarr.consolidate_metadata("data/t2m_daily_coarse.zarr")
print("wrote data/t2m_daily_coarse.zarr", {k: v.shape for k, v in out.arrays()})
'''


def _hourly(path: str) -> None:
    import numpy as np
    import zarr

    rng = np.random.default_rng(0)
    hours, ny, nx = 240, 16, 16
    lat = np.linspace(44.0, 51.5, ny)
    lon = np.linspace(2.0, 9.5, nx)
    t = np.arange(hours)
    diurnal = 6 * np.sin(2 * np.pi * (t - 9) / 24)[:, None, None]
    t2m = 285 - 0.6 * (lat - 44)[None, :, None] + diurnal + rng.normal(0, 1, (hours, ny, nx))
    rh = np.clip(70 - 1.5 * diurnal + rng.normal(0, 5, (hours, ny, nx)), 5, 100)
    root = zarr.create_group(path, attributes={"title": "toy 2 m temperature, hourly",
                                               "source": "station grid export"})
    root.create_array("t2m", data=t2m.astype("float32"), chunks=(24, 16, 16),
                      dimension_names=("time", "lat", "lon"), attributes={"units": "K"})
    root.create_array("rh", data=rh.astype("float32"), chunks=(24, 8, 8),
                      shards=(120, 16, 16), dimension_names=("time", "lat", "lon"),
                      attributes={"units": "%"})
    root.create_array("time", data=t.astype("int64"), dimension_names=("time",),
                      attributes={"units": "hours since 2024-01-01 00:00:00"})
    root.create_array("lat", data=lat, dimension_names=("lat",))
    root.create_array("lon", data=lon, dimension_names=("lon",))


def run(work: Path) -> list[dict[str, object]]:
    _hourly("data/t2m_hourly.zarr")
    Path("resample.py").write_text(RESAMPLE)
    done = subprocess.run([sys.executable, "resample.py"], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.stdout.startswith("wrote data/t2m_daily_coarse.zarr"), done.stdout
    return [{"run": "python resample.py", "best": None, "latest": None,
             "evidence": "zarr is an array store: neither the hourly store nor the resampled "
                         "copy is a model, and zarr has no notion of a checkpoint"}]


def label(path: str) -> str:
    if path.startswith("data/t2m_hourly.zarr/"):
        return "dataset"
    if path.startswith("data/t2m_daily_coarse.zarr/"):
        return "augmented"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "zarr", tool="zarr",
           kind="chunked array store (Zarr v3 dataset, Zarr v2 derived copy)",
           command="zarr.create_group('data/t2m_hourly.zarr') with create_array (t2m chunked, "
                   "rh sharded); python resample.py (daily mean, 2x2 coarsened, written to "
                   "data/t2m_daily_coarse.zarr with zarr_format=2 and consolidate_metadata)")
