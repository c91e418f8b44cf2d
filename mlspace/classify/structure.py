"""How a folder is shaped, whatever its names: the patterns an ML engineer reads at a glance.

- Siblings that repeat the same member set under a number (``trial_0/``, ``trial_1/``, each
  holding ``trial.json`` and ``checkpoint.weights.h5``) are the saves of one series.
- Files that repeat under a prefix (``params.pt``, ``history.json`` and
  ``train_end_params.pt``, ``train_end_history.json``) are the components of fixed-name
  checkpoints: each set is one checkpoint, never a series.
- Numbered shards beside one index (``shard.00000.mds`` ... and ``index.json``) are a
  dataset; and a copy whose index names its shards compressed while the folder holds them
  unpacked is what a streaming loader made of a remote dataset: a cache.

Pure functions over names (and one index's text): no reads here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_NUMBER = re.compile(r"\d+")
#: A folder name that numbers a save: a stem and a number at its end (``trial_3``, ``step100``,
#: ``run-02``), or a number alone.
_NUMBERED = re.compile(r"(.*?)[_\-.]?(\d+)")
_SEPARATORS = ("_", "-", ".")
_COMPRESSED = (".zstd", ".zst", ".gz", ".bz2", ".xz", ".lz4", ".br", ".snappy")


def numbered_stem(name: str) -> str | None:
    """The stem a numbered folder name shares with its siblings (``trial_`` for ``trial_3``),
    or None for a name that does not end in a number."""
    match = _NUMBERED.fullmatch(name)
    return match.group(1) if match else None


def repeated_member_sets(siblings: dict[str, frozenset[str]]) -> list[str]:
    """Of ``siblings`` (folder name -> the names inside it), those that share a stem and a
    number form with at least one other and hold exactly the same member set."""
    groups: dict[tuple[str, frozenset[str]], list[str]] = {}
    for name, members in siblings.items():
        stem = numbered_stem(name)
        if stem is not None and members:
            groups.setdefault((stem, members), []).append(name)
    return [name for names in groups.values() if len(names) >= 2 for name in names]


def twin_prefixes(names: Iterable[str]) -> list[str]:
    """Prefixes (ending in a separator) under which the same names repeat: with ``params.pt``
    and ``train_end_params.pt`` both present, ``train_end_``. Longest first."""
    names_set = set(names)
    found = set()
    for name in names_set:
        for at, char in enumerate(name[:-1]):
            if char in _SEPARATORS and name[at + 1:] in names_set:
                found.add(name[:at + 1])
    return sorted(found, key=len, reverse=True)


def twin_components(names: Iterable[str]) -> dict[str, str]:
    """For each name that is a component of a twin set, the prefix of its set ("" for the
    set without a prefix): the names whose remainder repeats under another prefix."""
    names = list(names)
    prefixes = twin_prefixes(names)
    if not prefixes:
        return {}
    remainders: dict[str, set[str]] = {}
    prefix_of: dict[str, tuple[str, str]] = {}
    for name in names:
        prefix = next((p for p in prefixes if name.startswith(p) and len(name) > len(p)), "")
        prefix_of[name] = (prefix, name[len(prefix):])
        remainders.setdefault(name[len(prefix):], set()).add(prefix)
    return {name: prefix for name, (prefix, rest) in prefix_of.items()
            if len(remainders[rest]) >= 2}


def shard_pattern(name: str) -> str:
    """A name with its numbers blanked (``shard.#.mds``): shards of one set share it."""
    return _NUMBER.sub("#", name)


def shards(names: Iterable[str]) -> list[str]:
    """The names that are numbered shards of one set (at least two share a pattern)."""
    by_pattern: dict[str, list[str]] = {}
    for name in names:
        if _NUMBER.search(name):
            by_pattern.setdefault(shard_pattern(name), []).append(name)
    return [n for members in by_pattern.values() if len(members) >= 2 for n in members]


def index_says_cache(index_head: str, present: set[str]) -> bool:
    """Whether an index that lists shards (its head, as text) names them compressed
    (``shard.00000.mds.zstd``) where the folder holds them unpacked (``shard.00000.mds``)
    and not the compressed ones: a loader unpacked them from a remote copy, so this folder
    is a cache of it. The names are read as the quoted strings of the head, so an index
    too long to read whole still tells by its first shards."""
    named = {m.rsplit("/", 1)[-1] for m in _QUOTED.findall(index_head[:_INDEX_HEAD])}
    compressed = {n for n in named if n.endswith(_COMPRESSED)}
    if not compressed or compressed & present:
        return False
    unpacked = {n.rsplit(".", 1)[0] for n in compressed}
    return bool(unpacked & present)


def index_names_shards(index_head: str, shard_names: Iterable[str]) -> bool:
    """Whether an index's head names at least one of the shards beside it (by its name,
    or by its name less a compression suffix)."""
    named = {m.rsplit("/", 1)[-1] for m in _QUOTED.findall(index_head[:_INDEX_HEAD])}
    named |= {n.rsplit(".", 1)[0] for n in named if n.endswith(_COMPRESSED)}
    return any(name in named for name in shard_names)


def mirror_shaped(folder_path: str, depth: int = 3) -> bool:
    """Whether a folder of shards sits where a loader keeps a copy of a remote dataset:
    under a folder named by a digest (``chunks/<32 hex>/``), the key a cache derives
    from the remote's address, within ``depth`` levels."""
    parts = [p for p in folder_path.replace("\\", "/").split("/") if p][-depth:]
    return any(_DIGEST.fullmatch(part) for part in parts)


_DIGEST = re.compile(r"[0-9a-f]{32,64}")


def digest_named(name: str) -> bool:
    """A file named by a digest of its content or key (``9f86d0…a08.pt``): 32 to 64 hex
    digits before its extension, or a 64-bit hash written in decimal (OpenVINO's
    ``model_cache/8745040751211560216.blob``)."""
    return _DIGEST_NAME.fullmatch(name.split(".", 1)[0]) is not None


_DIGEST_NAME = re.compile(r"[0-9a-f]{32,64}|\d{16,20}")

#: A quoted string that could name a file; how much of an index is looked at.
_QUOTED = re.compile(r'"([^"\\\n]{1,255}\.[A-Za-z0-9]{1,8})"')
_INDEX_HEAD = 1 << 18
