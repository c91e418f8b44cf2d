"""faiss-cpu: a retrieval project. The user's ``embed.py`` embeds its passages
(``data/passages.jsonl``) into ``vectors/passages.npy`` (a toy encoder: hashed bag of words
through a fixed random projection, standing in for a sentence encoder) with their ids in
``vectors/passages_ids.json``; ``build_index.py`` builds two Faiss indexes over them and writes
them beside the embeddings with ``faiss.write_index`` (a trained ``IndexIVFFlat`` and an
``IndexHNSWFlat``, both wrapped in ``IndexIDMap2``); ``search.py`` reads one back with
``faiss.read_index`` and writes the top-5 passages of a few queries.

    python3.11 -m venv /tmp/h6/faiss/venv
    /tmp/h6/faiss/venv/bin/pip install --only-binary :all: faiss-cpu
    /tmp/h6/faiss/venv/bin/python tests/corpus/heldout6/faiss-cpu/make_fixtures.py

``python embed.py``, ``python build_index.py``, ``python search.py`` on 3000 toy passages,
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

EMBED = '''"""Embed the passages: python embed.py"""
import json
from pathlib import Path

import numpy as np

from encoder import encode

passages = [json.loads(line) for line in open("data/passages.jsonl")]
vectors = encode([p["text"] for p in passages])
Path("vectors").mkdir(exist_ok=True)
np.save("vectors/passages.npy", vectors)
Path("vectors/passages_ids.json").write_text(json.dumps([p["id"] for p in passages]))
print("embedded", vectors.shape)
'''

BUILD = '''"""Build the ANN indexes beside the embeddings: python build_index.py"""
import time

import faiss
import numpy as np

vectors = np.load("vectors/passages.npy")
ids = np.arange(len(vectors), dtype="int64")
dim = vectors.shape[1]

quantizer = faiss.IndexFlatIP(dim)
ivf = faiss.IndexIVFFlat(quantizer, dim, 32, faiss.METRIC_INNER_PRODUCT)
start = time.time()
ivf.train(vectors)
ivf = faiss.IndexIDMap2(ivf)
ivf.add_with_ids(vectors, ids)
faiss.write_index(ivf, "vectors/passages.ivf32.faiss")
print("ivf", ivf.ntotal, f"{time.time() - start:.2f}s")

hnsw = faiss.IndexIDMap2(faiss.IndexHNSWFlat(dim, 32, faiss.METRIC_INNER_PRODUCT))
hnsw.add_with_ids(vectors, ids)
faiss.write_index(hnsw, "vectors/passages.hnsw32.faiss")
print("hnsw", hnsw.ntotal)
'''

SEARCH = '''"""Search: python search.py"""
import json
from pathlib import Path

import faiss

from encoder import encode

index = faiss.read_index("vectors/passages.ivf32.faiss")
faiss.extract_index_ivf(index).nprobe = 8
passages = [json.loads(line) for line in open("data/passages.jsonl")]
queries = ["battery life of the laptop", "return policy for shoes", "pasta recipe with garlic"]
scores, found = index.search(encode(queries), 5)
Path("results").mkdir(exist_ok=True)
with open("results/search_top5.jsonl", "w") as out:
    for query, row, row_scores in zip(queries, found, scores):
        hits = [{"id": passages[i]["id"], "score": round(float(s), 4)}
                for i, s in zip(row, row_scores)]
        out.write(json.dumps({"query": query, "hits": hits}) + "\\n")
print("searched", len(queries))
'''

TOPICS = {
    "laptop": "battery screen keyboard charger laptop performance life hours display",
    "shoes": "shoes size return policy refund running leather comfortable exchange",
    "pasta": "pasta garlic recipe sauce tomato olive oil boil basil cheese",
    "phone": "phone camera signal battery app update screen storage",
    "travel": "flight hotel booking luggage airport delay seat passport",
}


def _passages(path: Path) -> None:
    import json

    import numpy as np

    rng = np.random.default_rng(0)
    names = sorted(TOPICS)
    filler = ["the", "a", "good", "bad", "very", "with", "and", "for", "my", "it", "was", "is"]
    lines = []
    for n in range(3000):
        topic = TOPICS[names[n % len(names)]].split()
        words = list(rng.choice(topic, size=8)) + list(rng.choice(filler, size=6))
        rng.shuffle(words)
        lines.append(json.dumps({"id": f"p{n:05d}", "text": " ".join(words)}))
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n")


def _run(*args: str) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env)
    sys.stderr.write(done.stdout + done.stderr)
    done.check_returncode()


def run(work: Path) -> list[dict[str, object]]:
    _passages(Path("data/passages.jsonl"))
    for name, text in (("encoder", ENCODER), ("embed", EMBED), ("build_index", BUILD),
                       ("search", SEARCH)):
        Path(f"{name}.py").write_text(text)
    for script in ("embed.py", "build_index.py", "search.py"):
        _run(script)
    return []  # Faiss saves no model or training state, and names no best or latest


def label(path: str) -> str:
    if path.startswith("data/") or path.startswith("vectors/passages"):
        return "augmented" if path.endswith(".faiss") else "dataset"
    if path.startswith("__pycache__/"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "faiss-cpu", tool="faiss-cpu",
           kind="vector similarity search (faiss.write_index beside the embeddings)",
           command="python embed.py (vectors/passages.npy, vectors/passages_ids.json); "
                   "python build_index.py (IndexIDMap2 of IndexIVFFlat nlist=32 and of "
                   "IndexHNSWFlat M=32, faiss.write_index to vectors/*.faiss); "
                   "python search.py (faiss.read_index, top-5 to results/search_top5.jsonl)")
