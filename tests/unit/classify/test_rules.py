"""Rules as data: the user's rules file adds and overrides; a broken one is reported and the
defaults still work."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from layouts import categories_by_path, make

from mlspace.classify import RuleError, classify, load_rules
from mlspace.classify.rule_files import parse_rules, user_rules_path
from mlspace.scan import ScanOptions, scan


def _cats(root: Path) -> dict[str, str]:
    return categories_by_path(classify(scan([root], ScanOptions(workers=1))))


def test_user_rules_live_in_the_config_dir(isolated_user_dirs: Path) -> None:
    assert str(user_rules_path()).startswith(str(isolated_user_dirs))
    assert user_rules_path().name == "rules.toml"


def test_user_rule_adds_a_folder_and_a_file_rule(tmp_path: Path) -> None:
    user_rules_path().parent.mkdir(parents=True, exist_ok=True)
    user_rules_path().write_text(
        '[[dir]]\nid = "lab-scratch"\nnames = ["scratch"]\ncontext = "cache"\n\n'
        '[[file]]\nid = "lab-dumps"\nsuffixes = [".dump"]\ncategory = "debug"\n'
    )
    cats = _cats(make(tmp_path / "ws", {"scratch/x.bin": 10, "job.dump": 10}))
    assert cats["scratch/x.bin"] == "cache"
    assert cats["job.dump"] == "debug"


def test_a_rules_file_linked_from_dotfiles_is_read_and_a_fifo_never_blocks(
        tmp_path: Path) -> None:
    """Read through the bounded reader: a link to the user's file (a dotfiles manager's)
    is followed, and a FIFO or a folder under its name is a warning, never a wait."""
    dotfiles = tmp_path / "dotfiles" / "mlspace-rules.toml"
    dotfiles.parent.mkdir()
    dotfiles.write_text('[[file]]\nid = "lab-dumps"\nsuffixes = [".dump"]\ncategory = "debug"\n')
    user_rules_path().parent.mkdir(parents=True, exist_ok=True)
    user_rules_path().symlink_to(dotfiles)
    assert any(r.id == "lab-dumps" for r in load_rules().file_rules)
    user_rules_path().unlink()
    os.mkfifo(user_rules_path())
    rules = load_rules()  # returns at once: nothing is opened
    assert rules.warnings == [f"{user_rules_path()}: is a FIFO, not a regular file; using "
                              "the default rules only"]


def test_user_rule_overrides_and_disables_defaults(tmp_path: Path) -> None:
    root = make(tmp_path / "ws", {"nohup.out": "x", "src/__pycache__/a.pyc": "x"})
    assert _cats(root)["nohup.out"] == "log"
    user_rules_path().parent.mkdir(parents=True, exist_ok=True)
    user_rules_path().write_text(
        '[[file]]\nid = "log-files"\nnames = ["nohup.out"]\ncategory = "debug"\n\n'
        '[[dir]]\nid = "python-bytecode"\ndisabled = true\n'
    )
    cats = _cats(root)
    assert cats["nohup.out"] == "debug"
    assert cats["src/__pycache__/a.pyc"] == "cache"  # still a cache by its suffix


def test_malformed_user_file_names_the_line_and_falls_back(tmp_path: Path) -> None:
    user_rules_path().parent.mkdir(parents=True, exist_ok=True)
    user_rules_path().write_text('[[file]]\nid = "x"\nsuffixes = [".a"\ncategory = "log"\n')
    rules = load_rules()
    assert len(rules.warnings) == 1
    assert "line 3" in rules.warnings[0] or "line 4" in rules.warnings[0]
    assert "using the default rules only" in rules.warnings[0]
    inv = classify(scan([make(tmp_path / "ws", {"nohup.out": "x"})], ScanOptions(workers=1)),
                   rules)
    assert inv.warnings == tuple(rules.warnings)
    assert categories_by_path(inv)["nohup.out"] == "log"


@pytest.mark.parametrize(("text", "message"), [
    ('[[file]]\nid = "a"\nsuffixes = [".x"]\ncategory = "checkpoints"\n',
     "line 2: [[file]] rule 'a': unknown category 'checkpoints'"),
    ('[[dir]]\nid = "b"\nnames = ["x"]\ncontext = "dataset"\nwithin = ["nowhere"]\n',
     "line 2: [[dir]] rule 'b': unknown context 'nowhere'"),
    ('[[dir]]\nid = "c"\nregex = "(unclosed"\ncontext = "cache"\n',
     "line 2: [[dir]] rule 'c': bad regex"),
    ('[[file]]\nid = "d"\nsuffixes = ["x"]\ncategory = "log"\n', "must start with a dot"),
    ('[[file]]\nid = "e"\ncategory = "log"\n', "needs names, suffixes, prefixes or regex"),
    ('[[file]]\nid = "f"\nname = ["x"]\ncategory = "log"\n', "unknown key(s) ['name']"),
    ('[[file]]\nid = "g"\nsuffixes = [".x"]\ncategory = "log"\nweak = "yes"\n',
     "weak must be true or false"),
    ('[[file]]\nid = "h"\nsuffixes = [".x"]\ncategory = "media"\nweak = true\n',
     "only a category can be weak"),
])
def test_rule_errors_say_what_and_where(text: str, message: str) -> None:
    with pytest.raises(RuleError) as err:
        parse_rules(text, "rules.toml", allow_disabled=True)
    assert message in str(err.value)
    assert str(err.value).startswith("rules.toml")


def test_default_rules_are_valid() -> None:
    rules = load_rules()
    assert rules.warnings == []
    ids = [r.id for r in rules.dir_rules] + [r.id for r in rules.file_rules]
    assert len(ids) == len(set(ids))


def test_a_cancelled_or_empty_scan_still_classifies(tmp_path: Path) -> None:
    make(tmp_path / "ws", {"a/b.ckpt": 10})
    empty = scan([tmp_path / "ws"], ScanOptions(workers=1), cancelled=lambda: True)
    assert empty.cancelled and len(empty.dir_entry) == 0
    inv = classify(empty)
    assert inv.artifacts == () and len(inv.categories) == len(empty)
    assert (inv.artifact_of_entries() == -1).all()
    missing = classify(scan([tmp_path / "absent"]))
    assert len(missing.categories) == 0


def test_prefix_and_pattern_rules_keep_their_order_on_many_names(tmp_path: Path) -> None:
    """Many names that only a prefix or a pattern rule knows (enough to be matched in bulk):
    the earlier rule wins, as it does name by name."""
    user_rules_path().parent.mkdir(parents=True, exist_ok=True)
    user_rules_path().write_text(
        '[[file]]\nid = "lab-traces"\nregex = \'dump_.*\\.xyz\'\ncategory = "debug"\n\n'
        '[[file]]\nid = "lab-dumps"\nprefixes = ["dump_"]\ncategory = "cache"\n'
    )
    spec = {f"job/dump_{i:03d}.xyz": 10 for i in range(80)}
    spec.update({f"job/dump_{i:03d}.abc": 10 for i in range(80)})
    spec.update({f"job/runs/events.out.tfevents.{i}.host.1.0": 10 for i in range(80)})
    cats = _cats(make(tmp_path / "ws", spec))
    assert {cats[f"job/dump_{i:03d}.xyz"] for i in range(80)} == {"debug"}  # the pattern first
    assert {cats[f"job/dump_{i:03d}.abc"] for i in range(80)} == {"cache"}  # only the prefix
    assert {cats[f"job/runs/events.out.tfevents.{i}.host.1.0"] for i in range(80)} == {"log"}


def test_a_weak_rule_is_a_guess_that_contents_overrule(tmp_path: Path) -> None:
    """A user's weak rule says what a suffix usually is; a file whose bytes say otherwise
    is what its bytes say, and a strong rule is never second-guessed."""
    user = tmp_path / "rules.toml"
    user.write_text('[[file]]\nid = "guess"\nsuffixes = [".blob"]\ncategory = "dataset"\n'
                    'weak = true\n\n[[file]]\nid = "sure"\nsuffixes = [".sure"]\n'
                    'category = "dataset"\n')
    csv = "epoch,train_loss,val_loss\n0,0.5,0.6\n1,0.4,0.5\n2,0.3,0.45\n"
    root = make(tmp_path / "ws", {"run/metrics_a.blob": csv, "other/metrics_b.sure": csv})
    inv = classify(scan([root], ScanOptions(workers=1)), load_rules(user))
    cats = categories_by_path(inv)
    assert cats["run/metrics_a.blob"] == "log"
    assert cats["other/metrics_b.sure"] == "dataset"
