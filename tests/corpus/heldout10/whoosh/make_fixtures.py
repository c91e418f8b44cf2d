"""whoosh: the user keeps a folder of plain-text notes (``notes/*.txt``, toy lab notes
here) and searches it with Whoosh, the pure-Python full-text search library: the user's
``build_index.py`` creates the index in ``indexdir/`` beside the notes (the name Whoosh's
quick start uses, ``index.create_in("indexdir", schema)``) and then updates it
incrementally as notes are added, and ``search.py`` queries it.

    python3.11 -m venv /tmp/h9/whoosh/venv
    /tmp/h9/whoosh/venv/bin/pip install whoosh
    /tmp/h9/whoosh/venv/bin/python tests/corpus/heldout10/whoosh/make_fixtures.py

``python build_index.py`` on 30 notes (a new index, one commit), then 10 more notes are
written and ``python build_index.py`` runs again (``open_dir``, adds only the new or
changed files, a second commit: a second segment), then ``python search.py "learning
rate"``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

BUILD = '''"""Index notes/*.txt into indexdir/ (incrementally): python build_index.py"""
import os
from pathlib import Path

from whoosh import index
from whoosh.fields import DATETIME, ID, TEXT, Schema
from whoosh.analysis import StemmingAnalyzer
from datetime import datetime

schema = Schema(path=ID(stored=True, unique=True), title=TEXT(stored=True),
                body=TEXT(analyzer=StemmingAnalyzer()), mtime=DATETIME(stored=True))
if index.exists_in("indexdir"):
    ix = index.open_dir("indexdir")
else:
    os.makedirs("indexdir", exist_ok=True)
    ix = index.create_in("indexdir", schema)
with ix.searcher() as searcher:
    indexed = {fields["path"]: fields["mtime"] for fields in searcher.all_stored_fields()}
added = 0
with ix.writer() as writer:
    for note in sorted(Path("notes").glob("*.txt")):
        mtime = datetime.fromtimestamp(note.stat().st_mtime)
        if indexed.get(str(note)) == mtime:
            continue
        text = note.read_text()
        writer.update_document(path=str(note), title=text.splitlines()[0], body=text,
                               mtime=mtime)
        added += 1
print(f"indexed {added} new notes, {ix.doc_count()} in indexdir")
'''

SEARCH = '''"""Search the notes: python search.py QUERY"""
import sys

from whoosh import index
from whoosh.qparser import QueryParser

ix = index.open_dir("indexdir")
with ix.searcher() as searcher:
    query = QueryParser("body", ix.schema).parse(sys.argv[1])
    for hit in searcher.search(query, limit=5):
        print(f"{hit.score:.2f} {hit['path']}: {hit['title']}")
'''

TOPICS = ["learning rate warmup", "batch size scaling", "dropout on the encoder",
          "tokenizer vocabulary size", "mixed precision overflow", "data loader workers",
          "gradient clipping norm", "evaluation on the held out split",
          "label smoothing", "weight decay schedule"]


def _notes(folder: Path, start: int, count: int) -> None:
    import random

    rng = random.Random(start)
    folder.mkdir(exist_ok=True)
    words = ["loss", "went", "down", "slowly", "after", "the", "change", "and", "the",
             "validation", "curve", "looked", "flatter", "than", "the", "baseline", "so",
             "we", "kept", "the", "old", "setting", "for", "now"]
    for n in range(start, start + count):
        topic = TOPICS[n % len(TOPICS)]
        body = " ".join(rng.choice(words) for _ in range(60))
        (folder / f"{n:03d}-{topic.split()[0]}.txt").write_text(
            f"Run {n}: {topic}\n\nTried {topic} on run {n}. {body}.\n")


def _run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          check=True)
    sys.stderr.write(done.stdout + done.stderr)
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    _notes(Path("notes"), 0, 30)
    Path("build_index.py").write_text(BUILD)
    Path("search.py").write_text(SEARCH)
    assert _run("build_index.py").startswith("indexed 30 new notes, 30")
    _notes(Path("notes"), 30, 10)
    assert _run("build_index.py").startswith("indexed 10 new notes, 40")
    assert "notes/" in _run("search.py", "learning rate")
    return [{"run": "python build_index.py (twice); python search.py", "best": None,
             "latest": None,
             "evidence": "Whoosh is a search index library; nothing it writes is a model, "
                         "and it has no notion of a checkpoint"}]


def label(path: str) -> str:
    if path.startswith("notes/"):
        return "dataset"
    if path.startswith("indexdir/"):
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "whoosh", tool="whoosh",
           kind="full-text search index (Whoosh index folder beside its documents)",
           command="python build_index.py (index.create_in('indexdir', schema), then "
                   "open_dir and update_document for new notes); 10 more notes; python "
                   "build_index.py; python search.py 'learning rate'")
