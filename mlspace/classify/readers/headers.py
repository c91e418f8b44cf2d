"""File headers: recognise a Linux core dump by its ELF header (``core`` is also a common
name for a source folder or module, so the name alone proves nothing), and an experiment
tracker's SQLite database by its schema (``study.db`` could be anything)."""

from __future__ import annotations

import os
import re

from mlspace.classify.name_meaning import says_record, words_of
from mlspace.safe_read import Unreadable, read_head

ELF_MAGIC = b"\x7fELF"
ET_CORE = 4


def is_core_dump(path: str) -> bool:
    """True if the file starts with an ELF header whose type is ET_CORE. Read through
    safe_read: a FIFO named ``core`` would block an open(), and a ``core`` that is a link
    is not followed (what it points at is not a dump in this tree), so both are no dump."""
    try:
        header = read_head(path, 18)
    except Unreadable:
        return False
    if len(header) < 18 or not header.startswith(ELF_MAGIC):
        return False
    byteorder = "little" if header[5] == 1 else "big"
    return int.from_bytes(header[16:18], byteorder) == ET_CORE


SQLITE_MAGIC = b"SQLite format 3\0"
#: How far into an SQLite file its schema is looked for. A tracker creates its tables when
#: the database is new, so their CREATE statements sit in its first pages (Optuna 5's ~22
#: tables and indexes end before 100 KiB with 4 KiB pages); trials come after.
SCHEMA_BYTES = 256 * 1024
#: Tables only an Optuna RDB storage has (optuna/storages/_rdb/models.py).
_OPTUNA_TABLES = (b"CREATE TABLE studies", b"CREATE TABLE trials", b"CREATE TABLE trial_params")


def is_tracker_db(path: str) -> bool:
    """True if the file is an SQLite database holding a record of runs: an Optuna study
    (what ``optuna.create_study(storage="sqlite:///<name>.db")`` writes), or any database
    whose tables are mostly named for runs, trials, metrics or events (NNI's
    ``TrialJobEvent`` and ``MetricData``, a trainer's ``loss_histories``), or, where its
    schema lies past what is read, whose own name says so (``runs.db``, ``logs.db``). A
    write-ahead log or shared-memory file beside it (``prefect.db-wal``) is judged by its
    database. Read as bytes through safe_read, never opened as a database: nothing in it
    runs, and no journal is written beside it."""
    database = _SIDECAR.sub("", path)
    try:
        head = read_head(database, SCHEMA_BYTES)
    except Unreadable:
        return False
    if not head.startswith(SQLITE_MAGIC):
        return False
    if all(table in head for table in _OPTUNA_TABLES):
        return True
    tables = [t.decode("ascii") for t in _TABLE.findall(head)]
    tables = [t for t in tables if not t.lower().startswith(_BOOKKEEPING_TABLES)]
    if tables:
        about_runs = [t for t in tables if says_record(t) or not _RUN_WORDS.isdisjoint(
            words_of(t))]
        return 2 * len(about_runs) >= len(tables)
    stem = os.path.basename(database).split(".", 1)[0]
    return says_record(stem) or not _RUN_WORDS.isdisjoint(words_of(stem))


#: An SQLite file's companions, named after it: its write-ahead log, shared memory, journal.
_SIDECAR = re.compile(r"-(wal|shm|journal)$")
_TABLE = re.compile(rb'CREATE TABLE (?:IF NOT EXISTS )?["`\[]?([A-Za-z_][A-Za-z0-9_]{0,100})')
#: Tables any database may keep for itself: they say nothing of what it holds.
_BOOKKEEPING_TABLES = ("sqlite_", "alembic_version", "migrations", "schema_version")
#: Words of a table name, beyond a record's, that say it records runs.
_RUN_WORDS = frozenset({"run", "runs", "task", "tasks"})
