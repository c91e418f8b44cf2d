"""Third round of issue 27's principles, each on a small workspace: a model's parts share its
stem; a pickle named as a record is the record even with estimators inside; a trace travels
with the profiler page that shows it; a .log is a log even in a debug folder; a run's empty
markers and counters belong to its records; an encoding of the data beside it is a derived
copy."""

from __future__ import annotations

import json
from pathlib import Path

from layout_kit import Sparse
from layouts import categories_by_path, inventory_of, make

#: A pickle whose first global is a scikit-learn class (read by pickletools, never loaded).
SKLEARN_PICKLE = (b"\x80\x04csklearn.ensemble._gb\nGradientBoostingClassifier\n)\x81}b."
                  + b"\0" * 4000)
VIEWER = (b"<!DOCTYPE html>\n<html><head><title>Trace Viewer</title></head>\n"
          b"<script>/* flamegraph of trace events */</script>\n" + b"<p>call</p>\n" * 800)
TRACE = b'{"traceEvents":[' + b'{"ph":"X","pid":1,"tid":1,"ts":1.5,"dur":0.2,"name":"f"},' * 200


def test_a_file_sharing_a_models_stem_is_part_of_that_model(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {
        "tokenizer/m.model": b"\n\x0b\n\x05<unk>\x15\0\0\0\0\x18\x02" + b"\x01" * 3000,
        "tokenizer/m.vocab": b"<unk>\t0\n<s>\t0\n\xe2\x96\x81the\t-3.1\n",
        "other/words.vocab": b"<unk>\t0\nthe\t-3.1\n",
    })
    cats = categories_by_path(inventory_of(root))
    assert cats["tokenizer/m.model"] == "checkpoint"
    assert cats["tokenizer/m.vocab"] == "checkpoint"  # one model's parts: m.*
    assert cats["other/words.vocab"] != "checkpoint"  # no model beside it


def test_a_pickle_named_a_record_is_the_record_even_holding_estimators(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {"search/result.pkl": SKLEARN_PICKLE,
                                  "search/best_estimator.pkl": SKLEARN_PICKLE})
    cats = categories_by_path(inventory_of(root))
    assert cats["search/result.pkl"] == "log"
    assert cats["search/best_estimator.pkl"] == "checkpoint"


def test_a_trace_beside_its_viewer_page_is_debug_even_when_named_a_result(tmp_path: Path
                                                                           ) -> None:
    big = 20 * 2**20  # past the size of a record, so its name does not make it one
    root = make(tmp_path / "ws", {
        "prof/report.html": Sparse(big + 1, VIEWER), "prof/result.json": Sparse(big, TRACE),
        "prof/results.json": json.dumps({"val_loss": 0.4, "epoch": 3}),
        "plain/result.json": Sparse(big, TRACE[:20]),
    })
    cats = categories_by_path(inventory_of(root))
    assert cats["prof/report.html"] == "debug"  # its own bytes say profile viewer
    assert cats["prof/result.json"] == "debug"  # the trace it shows
    assert cats["prof/results.json"] != "debug"  # a small record stays the record
    assert cats["plain/result.json"] != "debug"  # no viewer, no trace verdict


def test_a_log_is_a_log_in_a_debug_folder_and_tensors_there_are_debug(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {
        "run/debug/debug.log": "2026-01-01 INFO started\n",
        "run/debug/batch_12.pt": Sparse(4096, b"PK\x03\x04"),
        "run/debug/logits.npy": Sparse(4096, b"\x93NUMPY"),
    })
    cats = categories_by_path(inventory_of(root))
    assert cats["run/debug/debug.log"] == "log"
    assert cats["run/debug/batch_12.pt"] == cats["run/debug/logits.npy"] == "debug"


def test_a_runs_empty_markers_and_counters_belong_to_its_records(tmp_path: Path) -> None:
    run = "tracker/offline/run__abc"
    root = make(tmp_path / "ws", {
        f"{run}/data-1.log": '{"op": "log", "value": 0.4}\n' * 20,
        f"{run}/last_put_version": "17\n", f"{run}/last_ack_version": b"",
        "project/README": b"", "project/notes": "a plain file\n",
    })
    cats = categories_by_path(inventory_of(root))
    assert cats[f"{run}/last_put_version"] == cats[f"{run}/last_ack_version"] == "log"
    # Beside no records, an empty or plain file is what the names make it.
    assert cats["project/README"] == cats["project/notes"] == "other"


def test_an_encoding_of_the_data_beside_it_is_a_derived_copy(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {
        "data/corpus.txt": "the cat sat\n" * 200, "data/encoded.txt": "4 9 12\n" * 200,
        "data/train_tokenized.jsonl": '{"ids": [4, 9, 12]}\n' * 50,
        "data/encoder_notes.txt": "which encoder\n",
    })
    cats = categories_by_path(inventory_of(root))
    assert cats["data/corpus.txt"] == "dataset"
    assert cats["data/encoded.txt"] == cats["data/train_tokenized.jsonl"] == "augmented"
    assert cats["data/encoder_notes.txt"] == "dataset"  # the word must stand alone
