"""Exact duplicates: found by content, one copy always kept, the meaningful name preferred."""

from __future__ import annotations

import os
from pathlib import Path

from layouts import inventory_of, make

from mlspace.advise import advise
from mlspace.advise.duplicates import find_duplicates


def test_copies_are_found_and_the_meaningful_name_is_kept(tmp_path: Path) -> None:
    blob = os.urandom(2 << 20)
    other = bytearray(blob)
    other[len(other) // 2] ^= 0xFF  # same size, same edges, different middle
    make(tmp_path, {
        "exports/embeddings_copy.bin": blob,
        "exports/final_embeddings.bin": blob,
        "scratch/tmp/embeddings.bin": blob,
        "scratch/almost.bin": bytes(other),
        "data/raw/shard.bin": blob,  # raw data: never part of a suggestion
    })
    inv = inventory_of(tmp_path)
    groups = find_duplicates(inv)
    names = sorted(sorted(inv.snapshot.name(e) for e in g) for g in groups)
    assert names == [["embeddings.bin", "embeddings_copy.bin", "final_embeddings.bin"]]
    plan = advise(inv, duplicate_groups=groups)
    dup = next(s for s in plan.suggestions if s.policy == "duplicates")
    assert sorted(Path(p).name for p in dup.paths) == ["embeddings.bin", "embeddings_copy.bin"]
    assert "final_embeddings.bin" in dup.reason
    assert [(dup.relative(k.path), k.why) for k in dup.kept] == [
        ("exports/final_embeddings.bin", "the copy that stays")]
    assert not any("data/raw" in p for s in plan.suggestions for p in s.paths)


def test_protected_checkpoints_are_never_removed_as_copies(tmp_path: Path) -> None:
    blob = os.urandom(2 << 20)
    make(tmp_path, {"run_a/model.safetensors": blob, "run_b/model.safetensors": blob})
    inv = inventory_of(tmp_path)
    groups = find_duplicates(inv)
    assert len(groups) == 1  # identical, but each is the only (latest) checkpoint of its run
    assert not [s for s in advise(inv, duplicate_groups=groups).suggestions
                if s.policy == "duplicates"]


def test_hard_links_are_not_duplicates(tmp_path: Path) -> None:
    make(tmp_path, {"a/w.pt": os.urandom(2 << 20)})
    os.link(tmp_path / "a/w.pt", tmp_path / "a/w-link.pt")
    assert find_duplicates(inventory_of(tmp_path)) == []
