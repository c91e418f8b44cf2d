"""LanceDB: a product search app keeps its catalogue in a local LanceDB database
(``lancedb.connect("data/lancedb")``, the documented embedded use). ``ingest.py`` embeds
the user's ``data/products.jsonl`` (a toy encoder: hashed bag of words through a fixed random
projection, standing in for a sentence encoder) and creates the table ``products``;
``update.py`` adds the new arrivals of ``data/new_products.jsonl``, deletes discontinued
products, and builds an IVF_PQ vector index and a full-text index (``create_index`` with
``IvfPq`` and ``FTS``); ``query.py`` runs a vector search and a full-text search and writes
the hits.

    python3.11 -m venv /tmp/h6/lancedb/venv
    /tmp/h6/lancedb/venv/bin/pip install --only-binary :all: lancedb pandas
    /tmp/h6/lancedb/venv/bin/python tests/corpus/heldout6/lancedb/make_fixtures.py

``python ingest.py``, ``python update.py``, ``python query.py``: 2000 products, then 200 more,
64-dimensional vectors, CPU.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

ENCODER = '''import zlib

import numpy as np

DIM = 64
PROJECTION = np.random.default_rng(1234).normal(size=(4096, DIM)).astype("float32")


def encode(texts):
    """Hashed bag of words through a fixed random projection, L2-normalised."""
    bags = np.zeros((len(texts), 4096), dtype="float32")
    for row, text in enumerate(texts):
        for word in text.lower().split():
            bags[row, zlib.crc32(word.encode()) % 4096] += 1.0
    vectors = bags @ PROJECTION
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
'''

INGEST = '''"""Create the products table: python ingest.py"""
import json

import lancedb

from encoder import encode


def rows(path):
    products = [json.loads(line) for line in open(path)]
    vectors = encode([p["title"] + " " + p["description"] for p in products])
    return [{**p, "vector": v.tolist()} for p, v in zip(products, vectors)]


if __name__ == "__main__":
    db = lancedb.connect("data/lancedb")
    table = db.create_table("products", data=rows("data/products.jsonl"), mode="overwrite")
    print("products:", table.count_rows(), "rows, version", table.version)
'''

UPDATE = '''"""New arrivals, discontinued products, indexes: python update.py"""
import lancedb
from lancedb.index import FTS, IvfPq

from ingest import rows

db = lancedb.connect("data/lancedb")
table = db.open_table("products")
table.add(rows("data/new_products.jsonl"))
table.delete("category = 'discontinued'")
table.create_index("vector", config=IvfPq(distance_type="cosine", num_partitions=8,
                                          num_sub_vectors=8))
table.create_index("description", config=FTS())
print("products:", table.count_rows(), "rows, version", table.version)
print("indices:", [index.name for index in table.list_indices()])
'''

QUERY = '''"""Search the catalogue: python query.py"""
import json
from pathlib import Path

import lancedb

from encoder import encode

table = lancedb.connect("data/lancedb").open_table("products")
queries = ["waterproof hiking boots", "espresso coffee grinder"]
Path("results").mkdir(exist_ok=True)
with open("results/search_hits.jsonl", "w") as out:
    for query in queries:
        hits = table.search(encode([query])[0]).nprobes(4).limit(5).to_list()
        out.write(json.dumps({"query": query, "kind": "vector",
                              "hits": [h["sku"] for h in hits]}) + "\\n")
        text = table.search(query, query_type="fts").limit(5).to_list()
        out.write(json.dumps({"query": query, "kind": "fts",
                              "hits": [h["sku"] for h in text]}) + "\\n")
print("searched", len(queries))
'''

WORDS = {
    "outdoor": "hiking boots waterproof tent backpack trail jacket rain",
    "kitchen": "coffee espresso grinder kettle pan knife ceramic steel",
    "office": "desk chair monitor keyboard lamp ergonomic notebook pen",
    "garden": "hose shovel seeds planter soil gloves watering pruning",
}


def _products(path: Path, start: int, count: int, seed: int) -> None:
    import json

    import numpy as np

    rng = np.random.default_rng(seed)
    names = sorted(WORDS)
    lines = []
    for n in range(start, start + count):
        category = names[n % len(names)]
        words = WORDS[category].split()
        if n % 97 == 0:
            category = "discontinued"
        lines.append(json.dumps({
            "sku": f"SKU{n:05d}", "category": category,
            "title": " ".join(rng.choice(words, size=3)),
            "description": " ".join(rng.choice(words, size=12)),
            "price": round(float(rng.uniform(5, 300)), 2)}))
    path.write_text("\n".join(lines) + "\n")


def _run(*args: str) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env)
    sys.stderr.write(done.stdout + done.stderr[-3000:])
    done.check_returncode()


def run(work: Path) -> list[dict[str, object]]:
    Path("data").mkdir()
    _products(Path("data/products.jsonl"), 0, 2000, 0)
    _products(Path("data/new_products.jsonl"), 2000, 200, 1)
    for name, text in (("encoder", ENCODER), ("ingest", INGEST), ("update", UPDATE),
                       ("query", QUERY)):
        Path(f"{name}.py").write_text(text)
    for script in ("ingest.py", "update.py", "query.py"):
        _run(script)
    return []  # LanceDB saves no model or training state, and names no best or latest


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("__pycache__/"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "lancedb", tool="lancedb",
           kind="embedded vector database (a local Lance table with its indexes)",
           command="python ingest.py (lancedb.connect('data/lancedb').create_table('products'"
                   ", 2000 rows); python update.py (add 200 rows, delete, create_index "
                   "with IvfPq on vector and FTS on description); python query.py (vector "
                   "and full-text search to results/search_hits.jsonl)")
