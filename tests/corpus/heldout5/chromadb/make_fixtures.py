"""chromadb: a small retrieval project's local vector store, a ``chromadb.PersistentClient``
at ``chroma_db/`` (the getting-started guide's persistent client) holding the user's FAQ
(``data/faq.jsonl``) with their own embeddings passed in (a hashing bag-of-words stand-in
for an embedding model, as a user with a model of their own passes ``embeddings=``), then
updated the way an app's store is: answers upserted, entries deleted, and a second
collection of user feedback added that exists only in the store.

    python3.11 -m venv /tmp/h5/chromadb/venv
    /tmp/h5/chromadb/venv/bin/pip install chromadb
    /tmp/h5/chromadb/venv/bin/python tests/corpus/heldout5/chromadb/make_fixtures.py

``ANONYMIZED_TELEMETRY=False``: ``python ingest.py`` (``get_or_create_collection('faq',
metadata={'hnsw:space': 'cosine'})``, ``add`` in batches of 50), ``python update.py``
(``upsert`` 10, ``delete`` 6, collection ``feedback`` with 40 ``add``-ed comments), then
``python query.py "how do I reset my password"`` (reads only).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

EMBED = '''"""Toy text embedding: hashed bag of words, L2-normalised (stands in for our model)."""
import hashlib
import re

import numpy as np

DIM = 64


def embed(texts):
    out = np.zeros((len(texts), DIM), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in re.findall(r"[a-z]+", text.lower()):
            h = int(hashlib.md5(word.encode()).hexdigest(), 16)
            out[row, h % DIM] += 1.0 if (h >> 8) % 2 else -1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return (out / np.maximum(norms, 1e-6)).tolist()
'''

INGEST = '''"""Load the FAQ into the local Chroma store."""
import json

import chromadb

from embed import embed

if __name__ == "__main__":
    rows = [json.loads(line) for line in open("data/faq.jsonl")]
    client = chromadb.PersistentClient(path="chroma_db")
    faq = client.get_or_create_collection("faq", metadata={"hnsw:space": "cosine"})
    for start in range(0, len(rows), 50):
        batch = rows[start:start + 50]
        faq.add(ids=[r["id"] for r in batch],
                documents=[r["question"] + "\\n" + r["answer"] for r in batch],
                embeddings=embed([r["question"] + " " + r["answer"] for r in batch]),
                metadatas=[{"topic": r["topic"]} for r in batch])
    print("faq count", faq.count())
'''

UPDATE = '''"""Edit answers, retire entries and store user feedback."""
import chromadb

from embed import embed

if __name__ == "__main__":
    client = chromadb.PersistentClient(path="chroma_db")
    faq = client.get_collection("faq")
    got = faq.get(ids=[f"faq-{i:03d}" for i in range(10)], include=["documents", "metadatas"])
    docs = [d + " (updated: see the new help centre)" for d in got["documents"]]
    faq.upsert(ids=got["ids"], documents=docs, embeddings=embed(docs),
               metadatas=got["metadatas"])
    faq.delete(ids=[f"faq-{i:03d}" for i in range(110, 116)])
    feedback = client.get_or_create_collection("feedback")
    notes = [f"comment {i}: the answer about {t} was {w}"
             for i, (t, w) in enumerate(zip(["billing", "login", "export", "privacy"] * 10,
                                            ["helpful", "unclear", "outdated", "great"] * 10))]
    feedback.add(ids=[f"fb-{i:03d}" for i in range(len(notes))], documents=notes,
                 embeddings=embed(notes), metadatas=[{"rating": i % 5} for i in range(40)])
    print("faq count", faq.count(), "feedback count", feedback.count())
'''

QUERY = '''"""Ask the FAQ: python query.py QUESTION"""
import sys

import chromadb

from embed import embed

if __name__ == "__main__":
    client = chromadb.PersistentClient(path="chroma_db")
    faq = client.get_collection("faq")
    hits = faq.query(query_embeddings=embed([sys.argv[1]]), n_results=3)
    for doc, dist in zip(hits["documents"][0], hits["distances"][0]):
        print(f"{dist:.3f}  {doc.splitlines()[0]}")
'''

TOPICS = {
    "billing": ("invoice", "refund", "charge", "plan", "card"),
    "login": ("password", "reset", "account", "sign", "email"),
    "export": ("download", "csv", "report", "data", "file"),
    "privacy": ("delete", "personal", "consent", "cookie", "retention"),
}


def _faq(path: Path) -> None:
    import numpy as np

    rng = np.random.default_rng(3)
    topics = sorted(TOPICS)
    lines = []
    for i in range(120):
        topic = topics[i % len(topics)]
        words = rng.choice(TOPICS[topic], size=3)
        lines.append(json.dumps({
            "id": f"faq-{i:03d}", "topic": topic,
            "question": f"How do I {words[0]} my {words[1]}?",
            "answer": f"Open Settings, choose {topic}, then {words[2]} (article {i})."}))
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n")


def _run(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True,
                          env=env)
    sys.stderr.write(done.stdout + done.stderr)
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    _faq(Path("data/faq.jsonl"))
    for name, text in (("embed.py", EMBED), ("ingest.py", INGEST), ("update.py", UPDATE),
                       ("query.py", QUERY)):
        Path(name).write_text(text)
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    assert "faq count 120" in _run(env, "ingest.py")
    assert "faq count 114 feedback count 40" in _run(env, "update.py")
    _run(env, "query.py", "how do I reset my password")
    return []


def label(path: str) -> str:
    if path.startswith(("data/", "chroma_db/")):
        return "dataset"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "chromadb", tool="chromadb",
           kind="vector database, embedded persistent store (chromadb.PersistentClient)",
           command="python ingest.py; python update.py; python query.py 'how do I reset my "
                   "password' (PersistentClient(path='chroma_db'), collections faq and "
                   "feedback, embeddings passed in)")
