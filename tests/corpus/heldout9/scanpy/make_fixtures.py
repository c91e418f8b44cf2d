"""anndata + scanpy: the user's ``analyze.py`` follows scanpy's clustering tutorial (the
pbmc3k one) on the user's Cell Ranger style count matrix
(``data/filtered_feature_bc_matrix/``: ``matrix.mtx.gz``, ``features.tsv.gz``,
``barcodes.tsv.gz``, toy counts here), with scanpy's default folders: the matrix is read with
``sc.read_10x_mtx(..., cache=True)`` (an ``.h5ad`` copy under ``./cache/``), plots are saved
with ``save=`` (under ``./figures/``), and the processed AnnData is written to
``write/toy3k.h5ad`` as the tutorial's ``results_file``.

    python3.11 -m venv /tmp/h9/scanpy/venv
    /tmp/h9/scanpy/venv/bin/pip install scanpy anndata igraph leidenalg
    /tmp/h9/scanpy/venv/bin/python tests/corpus/heldout9/scanpy/make_fixtures.py

``python analyze.py`` once: QC, normalisation, highly variable genes, PCA, neighbours, UMAP,
Leiden clustering, marker genes (Wilcoxon), five figures, ``adata.write(results_file,
compression="gzip")``.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

ANALYZE = '''"""Cluster the toy sample as scanpy's pbmc3k tutorial does: python analyze.py"""
import scanpy as sc

sc.settings.verbosity = 3
sc.settings.set_figure_params(dpi=50, facecolor="white")
results_file = "write/toy3k.h5ad"

adata = sc.read_10x_mtx("data/filtered_feature_bc_matrix/", var_names="gene_symbols",
                        cache=True)
adata.var_names_make_unique()
sc.pl.highest_expr_genes(adata, n_top=10, save=".png", show=False)
sc.pp.filter_cells(adata, min_genes=20)
sc.pp.filter_genes(adata, min_cells=3)
adata.var["mt"] = adata.var_names.str.startswith("MT-")
sc.pp.calculate_qc_metrics(adata, qc_vars=["mt"], percent_top=None, log1p=False,
                           inplace=True)
sc.pl.violin(adata, ["n_genes_by_counts", "total_counts", "pct_counts_mt"], jitter=0.4,
             multi_panel=True, save="_qc.png", show=False)
adata = adata[adata.obs.pct_counts_mt < 20, :].copy()
adata.layers["counts"] = adata.X.copy()
sc.pp.normalize_total(adata, target_sum=1e4)
sc.pp.log1p(adata)
sc.pp.highly_variable_genes(adata, n_top_genes=100)
adata.raw = adata
sc.tl.pca(adata, n_comps=20)
sc.pl.pca_variance_ratio(adata, n_pcs=20, log=True, save=".png", show=False)
sc.pp.neighbors(adata, n_neighbors=10, n_pcs=10)
sc.tl.umap(adata)
sc.tl.leiden(adata, resolution=0.5, flavor="igraph", n_iterations=2, directed=False)
sc.pl.umap(adata, color=["leiden", "CD3E"], save="_leiden.png", show=False)
sc.tl.rank_genes_groups(adata, "leiden", method="wilcoxon")
sc.pl.rank_genes_groups(adata, n_genes=10, sharey=False, save=".png", show=False)
adata.write(results_file, compression="gzip")
print("clusters", adata.obs["leiden"].value_counts().to_dict())
print("wrote", results_file)
'''


def _counts(folder: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    n_cells, n_genes = 300, 200
    genes = ([f"MT-G{i}" for i in range(5)] + ["CD3E", "CD19", "LYZ"]
             + [f"GENE{i:03d}" for i in range(n_genes - 8)])
    kind = rng.integers(0, 3, size=n_cells)
    mean = rng.gamma(0.6, 1.5, size=n_genes)[None, :].repeat(n_cells, 0)
    for k in range(3):
        mean[kind == k, 5 + k] *= 25
        mean[kind == k, 8 + 20 * k:28 + 20 * k] *= 6
    counts = rng.poisson(mean * rng.uniform(0.5, 1.5, size=(n_cells, 1)))
    folder.mkdir(parents=True)
    rows, cols = np.nonzero(counts.T)
    lines = ["%%MatrixMarket matrix coordinate integer general",
             "%metadata_json: {\"software_version\": \"toy\", \"format_version\": 2}",
             f"{n_genes} {n_cells} {len(rows)}"]
    lines += [f"{g + 1} {c + 1} {counts[c, g]}" for g, c in zip(rows, cols, strict=True)]
    with gzip.open(folder / "matrix.mtx.gz", "wt") as f:
        f.write("\n".join(lines) + "\n")
    with gzip.open(folder / "features.tsv.gz", "wt") as f:
        f.writelines(f"ENSG{i:011d}\t{g}\tGene Expression\n" for i, g in enumerate(genes))
    with gzip.open(folder / "barcodes.tsv.gz", "wt") as f:
        f.writelines(f"{''.join(rng.choice(list('ACGT'), 16))}-1\n" for _ in range(n_cells))


def run(work: Path) -> list[dict[str, object]]:
    _counts(Path("data/filtered_feature_bc_matrix"))
    Path("analyze.py").write_text(ANALYZE)
    Path("write").mkdir()
    done = subprocess.run([sys.executable, "analyze.py"], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.stdout.strip().splitlines()[-1] == "wrote write/toy3k.h5ad", done.stdout
    return [{"run": "python analyze.py", "best": None, "latest": None,
             "evidence": "scanpy analyses data and trains no model: write/toy3k.h5ad is the "
                         "processed AnnData (printed 'wrote write/toy3k.h5ad'), not weights, "
                         "and scanpy has no notion of a checkpoint"}]


def label(path: str) -> str:
    if path.startswith("data/") or path.startswith("write/"):
        return "dataset"
    if path.startswith("cache/"):
        return "cache"
    if path.startswith("figures/"):
        return "log"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "scanpy", tool="scanpy",
           kind="single-cell analysis (scanpy with anndata .h5ad files)",
           anndata=version("anndata"),
           command="python analyze.py (scanpy's pbmc3k tutorial steps: read_10x_mtx(cache="
                   "True) into ./cache/, sc.pl.*(save=...) into ./figures/, "
                   "adata.write('write/toy3k.h5ad', compression='gzip'))")
