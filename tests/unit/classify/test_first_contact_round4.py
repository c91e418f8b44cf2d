"""Fourth round of issue 27's principles, each on a small workspace: a loader's processed
copy beside the raw files is its cache; a search's pickled state beside no model is its
record; compound record names and folders of nothing but records; what describes one saved
model is part of it, whatever its parts are called; a hidden tmp folder is a tool's scratch;
a corpus split is data, and a vocabulary beside models is theirs."""

from __future__ import annotations

import json
from pathlib import Path

from layout_kit import Sparse
from layouts import categories_by_path, inventory_of, make
from layouts_corpus import permissive_plan

#: Pickles as their first bytes show them (read by pickletools, never loaded).
BUILTINS_PICKLE = b"\x80\x04\x95\x00\x10\x00\x00\x00\x00\x00\x00cbuiltins\nlist\n)\x81." \
    + b"\0" * 2000
PLAIN_PICKLE = b"\x80\x04\x95\x20\x00\x00\x00\x00\x00\x00\x00}\x94(\x8c\x01a\x94K\x01u." \
    + b"\0" * 64
LIGHTNING_PICKLE = b"\x80\x04cpytorch_lightning.callbacks\nModelCheckpoint\n)\x81." + b"\0" * 900
TORCH_ZIP = Sparse(300_000, b"PK\x03\x04" + b"\0" * 26 + b"archive/data.pkl")


def test_a_processed_copy_beside_raw_in_one_datasets_folder_is_the_loaders_cache(
        tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {
        "data/Cora/raw/ind.cora.x": Sparse(22_119),
        "data/Cora/processed/data.pt": Sparse(15_723_733, b"PK\x03\x04"),
        "data/Cora/processed/pre_transform.pt": Sparse(1_261, b"PK\x03\x04"),
        # a project's own stages of its data stay data
        "data/raw/train.csv": "a,b\n1,2\n",
        "data/processed/train.pt": Sparse(400_000, b"PK\x03\x04"),
        # a processed table a person opens is data too
        "data/Books/raw/books.csv": "title\nx\n",
        "data/Books/processed/books.parquet": Sparse(80_000, b"PAR1"),
    })
    cats = categories_by_path(inventory_of(root))
    assert cats["data/Cora/processed/data.pt"] == "cache"
    assert cats["data/Cora/processed/pre_transform.pt"] == "cache"
    assert cats["data/Cora/raw/ind.cora.x"] == "dataset"
    assert cats["data/processed/train.pt"] == "dataset"
    assert cats["data/Books/processed/books.parquet"] == "dataset"


def test_a_searchs_pickled_state_beside_no_model_is_the_searchs_record(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {
        "tpot_checkpoint/population.pkl": Sparse(5_736_391, BUILTINS_PICKLE),
        "tuning/optimizer.pkl": Sparse(106_300, BUILTINS_PICKLE),
        "tuning/log.json": json.dumps([{"loss": 0.05, "learning_rate": 0.18}]),
        # an optimizer pickled beside the model it trains is part of that save
        "run/model.pt": TORCH_ZIP,
        "run/optimizer.pkl": Sparse(50_000, BUILTINS_PICKLE),
    })
    cats = categories_by_path(inventory_of(root))
    assert cats["tpot_checkpoint/population.pkl"] == "log"
    assert cats["tuning/optimizer.pkl"] == "log"
    assert cats["run/optimizer.pkl"] == "checkpoint"


def test_a_folder_of_nothing_but_records_is_the_runs_record(tmp_path: Path) -> None:
    record = {"config": {"C": 1.0}, "cost": 0.04, "budget": 9}
    root = make(tmp_path / "ws", {
        "smac3_output/22d57f44/0/runhistory.json": json.dumps({"data": [record] * 20}),
        "smac3_output/22d57f44/0/scenario.json": json.dumps({"seed": 0, "n_trials": 20}),
        "smac3_output/22d57f44/0/intensifier.json": json.dumps({"incumbent_ids": [3]}),
        # a lone description with no record beside it says nothing of a run
        "tool/scenario.json": json.dumps({"seed": 0}),
        # nor does a record beside code make the code's files records
        "app/trainhistory.json": json.dumps([{"loss": 1.0}]),
        "app/settings.json": json.dumps({"theme": "dark"}),
        "app/main.py": "print('hi')\n",
    })
    cats = categories_by_path(inventory_of(root))
    for name in ("runhistory", "scenario", "intensifier"):
        assert cats[f"smac3_output/22d57f44/0/{name}.json"] == "log", name
    assert cats["tool/scenario.json"] == "other"
    assert cats["app/trainhistory.json"] == "log"  # the record word ends the compound
    assert cats["app/settings.json"] == "other"


def test_what_describes_one_saved_model_is_part_of_it(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {
        "examples/basic/model.ckpt": Sparse(46_108, b"PK\x03\x04"),
        "examples/basic/config.yml": "task: classification\nlearning_rate: 0.001\n",
        "examples/basic/datamodule.sav": Sparse(109_214, PLAIN_PICKLE),
        "examples/basic/callbacks.sav": Sparse(45_681, LIGHTNING_PICKLE),
        "examples/basic/version.txt": "1.2.0",
        # beside a series of saves a config is the run's, not one model's
        "series/model_1.ckpt": Sparse(46_108, b"PK\x03\x04"),
        "series/model_2.ckpt": Sparse(46_108, b"PK\x03\x04"),
        "series/config.yml": "learning_rate: 0.001\n",
    })
    cats = categories_by_path(inventory_of(root))
    for name in ("model.ckpt", "config.yml", "datamodule.sav", "callbacks.sav", "version.txt"):
        assert cats[f"examples/basic/{name}"] == "checkpoint", name
    assert cats["series/config.yml"] != "checkpoint"


def test_a_hidden_tmp_folder_is_a_tools_scratch_space(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {".pt_tmp/exp_version_manager.yml": "adult: 1\n",
                                  ".tmp/partial.bin": b"\1" * 100,
                                  "tmp/notes.txt": "what I put here myself\n"})
    cats = categories_by_path(inventory_of(root))
    assert cats[".pt_tmp/exp_version_manager.yml"] == "cache"
    assert cats[".tmp/partial.bin"] == "cache"
    assert cats["tmp/notes.txt"] != "cache"


def test_a_corpus_split_is_data_and_a_vocabulary_beside_models_is_theirs(tmp_path: Path
                                                                         ) -> None:
    lines = "".join(f"sentence number {i}\n" for i in range(300))
    root = make(tmp_path / "ws", {
        "toy/src-train.txt": lines, "toy/tgt-val.txt": lines[:400],
        "toy/requirements.txt": "torch\n",
        "toy/run/example.vocab.src": "<unk>\t0\nthe\t12\n",
        "toy/run/model_step_100.pt": Sparse(337_925, b"PK\x03\x04"),
        "toy/run/model_step_200.pt": Sparse(337_925, b"PK\x03\x04"),
        "toy/run/model_step_300.pt": Sparse(337_925, b"PK\x03\x04"),
        "toy/run/train.log": "[INFO] step 300\n",
    })
    inv = inventory_of(root)
    cats = categories_by_path(inv)
    assert cats["toy/src-train.txt"] == "dataset"
    assert cats["toy/tgt-val.txt"] == "dataset"
    assert cats["toy/requirements.txt"] == "other"
    assert cats["toy/run/example.vocab.src"] == "checkpoint"
    # the models need it whichever of them stays: no plan removes it
    touched = {item.path for s in permissive_plan(inv).suggestions for item in s.items}
    assert str(root / "toy/run/example.vocab.src") not in touched
    assert str(root / "toy/run/model_step_100.pt") in touched  # the series is thinned


def test_a_numbered_layer_folder_is_judged_by_its_words(tmp_path: Path) -> None:
    versions = ("2026-12-02T10.14.51.218Z", "2026-12-02T10.15.20.164Z")
    root = make(tmp_path / "ws", {
        "data/01_raw/companies.csv": "id,name\n1,a\n",
        **{f"data/06_models/regressor.pickle/{v}/regressor.pickle": Sparse(2_000_000, b"\x80\x04")
           for v in versions},
        **{f"data/08_reporting/confusion.png/{v}/confusion.png": Sparse(15_352, b"\x89PNG")
           for v in versions},
        # code stays code, whatever its package is called
        "src/pipelines/reporting/__init__.py": "", "src/pipelines/reporting/nodes.py": "x = 1\n",
        # a year is no ordinal
        "2024_logs/state.bin": b"\1" * 64, "07_logs/state.bin": b"\1" * 64,
    })
    inv = inventory_of(root)
    cats = categories_by_path(inv)
    assert cats["data/01_raw/companies.csv"] == "dataset"
    for v in versions:
        assert cats[f"data/06_models/regressor.pickle/{v}/regressor.pickle"] == "checkpoint"
        assert cats[f"data/08_reporting/confusion.png/{v}/confusion.png"] == "log"
    assert cats["src/pipelines/reporting/nodes.py"] == "other"
    assert cats["07_logs/state.bin"] == "log"
    assert cats["2024_logs/state.bin"] != "log"
    # identical versions: the copy a tool loads as its latest is the one that stays
    newest = f"data/06_models/regressor.pickle/{versions[1]}/regressor.pickle"
    touched = {item.path for s in permissive_plan(inv).suggestions for item in s.items}
    assert str(root / newest) not in touched
    assert str(root / newest.replace(versions[1], versions[0])) in touched
