"""Numbers in names and one-line pointers are text anyone can write: an epoch of ``nan`` or
``1e999`` in a Lightning name, a Megatron tracker holding ``²`` or 5000 digits. None of them
stops a scan."""

from __future__ import annotations

from pathlib import Path

import pytest
from layouts import inventory_of, make, name_of, series_at

from mlspace.advise import advise
from mlspace.classify.checkpoint_names import parse_checkpoint_name


@pytest.mark.parametrize("epoch", ["nan", "inf", "-inf", "1e999"])
def test_an_epoch_that_is_no_number_is_unknown(tmp_path: Path, epoch: str) -> None:
    """A Lightning checkpoint named epoch=nan / inf / 1e999: its epoch is unknown, and the
    run is classified and advised as usual."""
    name = f"epoch={epoch}-step=30.ckpt"
    parsed = parse_checkpoint_name(name)
    assert parsed is not None and parsed.epoch is None and parsed.step == 30
    root = make(tmp_path, {f"lightning_logs/version_0/checkpoints/{name}": 100,
                           "lightning_logs/version_0/checkpoints/epoch=1-step=20.ckpt": 100})
    inv = inventory_of(root)
    series = series_at(inv, root / "lightning_logs/version_0/checkpoints")
    assert name_of(series.latest) == name
    advise(inv)


@pytest.mark.parametrize("text", ["\u00b2\n", "9" * 5000 + "\n", "-3\n", "release\n"])
def test_a_megatron_tracker_that_names_no_iteration(tmp_path: Path, text: str) -> None:
    """latest_checkpointed_iteration.txt holding a superscript digit, 5000 digits, a
    negative number or "release": no crash; the latest is the highest iteration."""
    root = make(tmp_path, {
        "save/latest_checkpointed_iteration.txt": text,
        "save/iter_0001000/mp_rank_00/model_optim_rng.pt": 100,
        "save/iter_0002000/mp_rank_00/model_optim_rng.pt": 100,
    })
    inv = inventory_of(root)
    series = series_at(inv, root / "save")
    assert name_of(series.latest) == "iter_0002000"
    assert series.latest_reason == "highest step (2000)"
