"""mlspace.paths.natural_key: how the tree, the runs and the advisor order names."""

from __future__ import annotations

from mlspace.paths import natural_key


def test_numbers_order_by_value() -> None:
    names = ["checkpoint-10000", "checkpoint-2000", "checkpoint-900", "checkpoint-2000-old"]
    assert sorted(names, key=natural_key) == [
        "checkpoint-900", "checkpoint-2000", "checkpoint-2000-old", "checkpoint-10000"]


def test_any_name_can_be_sorted() -> None:
    """Superscripts are digits to str.isdigit() but not to int(); Arabic-Indic digits are
    digits to both. Neither may stop a folder from being sorted."""
    names = ["²", "1²", "x²", "٣", "a1", "2", "1b", ""]
    ordered = sorted(names, key=natural_key)  # int("²") raised ValueError here
    assert ordered[:4] == ["", "1b", "1²", "2"]
    assert sorted(["a10", "a٣"], key=natural_key) == ["a٣", "a10"]
