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


def test_checkpoints_no_series_places_are_never_offered_as_copies(tmp_path: Path) -> None:
    """Vowpal Wabbit's --save_per_pass files (news.vw.1 ...) beside its final news.vw: names
    mlspace cannot order, so it cannot tell which is the run's latest; a pass that equals
    the final model is no copy to remove, and neither is the final model."""
    final = os.urandom(2 << 20)
    spec: dict[str, object] = {f"models/news.vw.{n}": os.urandom(2 << 20) for n in (1, 3)}
    make(tmp_path, {**spec, "models/news.vw": final, "models/news.vw.2": final,
                    "data/news_train.vw": b"1 | a b c\n" * 10})
    inv = inventory_of(tmp_path)
    assert inv.category(inv.snapshot.find(str(tmp_path / "models/news.vw"))).name == \
        "CHECKPOINT"
    groups = find_duplicates(inv)
    assert len(groups) == 1  # found: they are identical
    assert not [s for s in advise(inv, duplicate_groups=groups).suggestions
                if s.policy == "duplicates"]


def test_files_of_a_save_are_not_picked_out_of_it(tmp_path: Path) -> None:
    """A packaged model (BentoML's bento: a tag folder that the tool's ``latest`` names)
    keeps a copy of the service's source; taking it out would break the package. The
    user's own source stays, and so does the package's copy."""
    source = b"import bentoml\n" + os.urandom(1 << 20)
    bento = "bentoml/bentos/iris_classifier"
    make(tmp_path, {"service.py": source, f"{bento}/latest": "rfqjizho4ct3gax4",
                    f"{bento}/rfqjizho4ct3gax4/src/service.py": source,
                    f"{bento}/rfqjizho4ct3gax4/bento.yaml": "service: service:svc\n"})
    inv = inventory_of(tmp_path)
    groups = find_duplicates(inv, min_size=1)
    assert len(groups) == 1
    offered = {p for s in advise(inv, duplicate_groups=groups).suggestions
               if s.policy == "duplicates" for p in s.paths}
    assert not offered & {str(tmp_path / "service.py"),
                          str(tmp_path / f"{bento}/rfqjizho4ct3gax4/src/service.py")}
