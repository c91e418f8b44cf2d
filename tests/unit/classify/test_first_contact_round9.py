"""Ninth round of issue 27's principles, from heldout8's misses at first contact:

- a rendered report site (``index.html`` beside ``static/`` or beside other pages) is one
  log unit: its images are no dataset, its fonts and styles no *other*; a project's built
  documentation and a site holding a checkpoint are left alone;
- an HTML page in a folder named for a run's results or reports (``explanations/``) is the
  run's report;
- a tool's hidden note about a file beside it (``.clean.csv.metadata``) and a hidden dbm
  database (``.doit.db.dat`` with ``.dir`` and ``.bak``) are the tool's state: a cache.
"""

from __future__ import annotations

from pathlib import Path

from layout_kit import Sparse
from layouts import categories_by_path, inventory_of, make

from mlspace.classify.name_meaning import says_record

_PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 200
_FONT = b"OTTO" + b"\x00" * 5000


def _site(prefix: str) -> dict[str, object]:
    """A data-validation tool's data docs, as Great Expectations renders them."""
    return {
        f"{prefix}/index.html": b"<html><body>validation results</body></html>" * 40,
        f"{prefix}/static/images/logo-long.png": _PNG,
        f"{prefix}/static/images/favicon.ico": b"\x00\x00\x01\x00" + b"\x00" * 300,
        f"{prefix}/static/fonts/HKGrotesk/HKGrotesk-Bold.otf": _FONT,
        f"{prefix}/static/styles/data_docs_default_styles.css": b"body { margin: 0 }\n",
        f"{prefix}/validations/suite/20261203T082812Z/orders.html": b"<html></html>" * 50,
    }


def test_a_report_site_is_one_log_unit(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {
        **_site("gx/uncommitted/data_docs/local_site"),
        "data/orders.csv": b"id,amount\n" + b"1,2\n" * 500,
    })
    got = categories_by_path(inventory_of(root))
    for path, category in got.items():
        if path.startswith("gx/uncommitted/data_docs/local_site/"):
            assert category == "log", path
    assert got["data/orders.csv"] == "dataset"


def test_pages_beside_an_index_make_a_site_without_an_assets_folder(tmp_path: Path) -> None:
    """A coverage-style report: index.html beside a page per module and its images."""
    root = make(tmp_path / "ws", {
        "report/index.html": b"<html></html>" * 30,
        "report/train_py.html": b"<html></html>" * 30,
        "report/model_py.html": b"<html></html>" * 30,
        "report/keybd_closed.png": _PNG,
    })
    got = categories_by_path(inventory_of(root))
    assert got["report/keybd_closed.png"] == "log"
    assert got["report/model_py.html"] == "log"  # a page, whatever its name says


def test_what_is_no_report_site_keeps_its_categories(tmp_path: Path) -> None:
    """Built documentation, a lone index.html beside pictures, and a "site" that holds a
    checkpoint are not made reports."""
    root = make(tmp_path / "ws", {
        **_site("docs/_build/html"),
        "gallery/index.html": b"<html></html>" * 30,
        "gallery/cat_001.png": _PNG,
        "demo/index.html": b"<html></html>" * 30,
        "demo/static/app.js": b"console.log(1)\n",
        "demo/model.safetensors": Sparse(5_000_000, b"\x08\x00\x00\x00\x00\x00\x00\x00{}"),
    })
    got = categories_by_path(inventory_of(root))
    assert got["docs/_build/html/static/images/logo-long.png"] != "log"
    assert got["gallery/cat_001.png"] != "log"
    assert got["demo/model.safetensors"] == "checkpoint"
    assert got["demo/static/app.js"] != "log"


def test_a_page_in_a_folder_named_for_reports_is_a_log(tmp_path: Path) -> None:
    """An explainable-boosting model's explanations, rendered as big standalone pages."""
    assert says_record("explanations") and says_record("reports")
    page = Sparse(4_800_000, b"<!DOCTYPE html><html><head><script>", b"</html>\n")
    root = make(tmp_path / "ws", {
        "explanations/ebm_global.html": page,
        "explanations/ebm_local_0.html": page,
        "train.py": b"from interpret.glassbox import ExplainableBoostingClassifier\n",
    })
    got = categories_by_path(inventory_of(root))
    assert got["explanations/ebm_global.html"] == "log"
    assert got["train.py"] == "other"


def test_a_tools_hidden_notes_about_files_are_its_cache(tmp_path: Path) -> None:
    """A pipeline runner's products/ with a metadata sidecar per product, and a task
    runner's shelve database at the project's top."""
    meta = b'{"timestamp": 1764750000.0, "stored_source_code": "def clean(): ..."}'
    root = make(tmp_path / "ws", {
        "products/clean.csv": b"id,amount\n" + b"1,2\n" * 500,
        "products/.clean.csv.metadata": meta,
        "products/model.npz": Sparse(30_000, b"PK\x03\x04" + b"\x00" * 26 + b"coef.npy"),
        "products/.model.npz.metadata": meta,
        ".doit.db.dat": b"\x80\x04" + b"\x00" * 1700,
        ".doit.db.dir": b"'clean', (0, 1706)\n",
        ".doit.db.bak": b"'clean', (0, 1706)\n",
        "dodo.py": b"def task_clean():\n    return {}\n",
        ".env.local": b"KEY=1\n",  # names no file beside it
    })
    got = categories_by_path(inventory_of(root))
    for note in ("products/.clean.csv.metadata", "products/.model.npz.metadata",
                 ".doit.db.dat", ".doit.db.dir", ".doit.db.bak"):
        assert got[note] == "cache", note
    assert got["products/clean.csv"] != "cache"
    assert got["dodo.py"] == "other"
    assert got[".env.local"] != "cache"


def test_a_hidden_part_of_a_dataset_stays_part_of_it(tmp_path: Path) -> None:
    """Spark writes a .crc checksum beside each part of a dataset it saves: in a dataset's
    folder, what the dataset's folder says stands."""
    root = make(tmp_path / "ws", {
        "data/processed/part-00000.parquet": b"PAR1" + b"\x00" * 4000 + b"PAR1",
        "data/processed/.part-00000.parquet.crc": b"crc\x00" * 8,
    })
    got = categories_by_path(inventory_of(root))
    assert got["data/processed/.part-00000.parquet.crc"] == "dataset"
