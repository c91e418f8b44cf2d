"""Policy files: every mistake is named with its line; selection takes only what the policy
allows (safe by default, review or risky only when named), respects rule ages and stops
at the cap."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mlspace.act import policy
from mlspace.advise import Plan, PlanItem, Suggestion

NOW = time.time()


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "policy.toml"
    path.write_text(text)
    return str(path)


def test_the_template_is_a_valid_policy(tmp_path: Path) -> None:
    loaded = policy.load(_write(tmp_path, policy.TEMPLATE))
    assert len(loaded.rules) == 2 and loaded.max_bytes == 100 * 10**9
    assert loaded.rules[0].keep == (1, 2) and loaded.rules[0].allow == {"safe"}


@pytest.mark.parametrize(("text", "line", "message"), [
    ('version = 1\n[[rule]]\nfolders = ["*"]\nallow = ["sfe"]\n', 4, "unknown risk or policy"),
    ('version = 1\nmax_bytes = "lots"\n[[rule]]\nfolders = ["*"]\n', 2, "max_bytes"),
    ('version = 1\n[[rule]]\nfolders = ["*"]\n[[rule]]\nfolder = ["x"]\n', 5,
     "unknown rule setting"),
    ('version = 1\n[[rule]]\nfolders = ["*"]\naction = "delete"\n', 4, "action must be"),
    ('version = 1\n[[rule]]\nfolders = ["*"]\nkeep_latest = 0\n', 4, "keep_latest"),
    ('version = 1\n\n[[rule]\nfolders = ["*"]\n', 3, ""),
    ('version = 1\n', None, "at least one [[rule]]"),  # nothing to point at
    ('[ages]\ndebug_days = -1\n[[rule]]\nfolders = ["*"]\n', 2, "debug_days"),
])
def test_mistakes_name_their_line(tmp_path: Path, text: str, line: int | None,
                                  message: str) -> None:
    with pytest.raises(policy.PolicyError) as caught:
        policy.load(_write(tmp_path, text))
    assert caught.value.line == line, str(caught.value)
    assert message in str(caught.value)
    where = f":{line}" if line else ""
    assert str(caught.value).startswith(f"{tmp_path / 'policy.toml'}{where}: ")


def _item(path: str, size: int = 100, age_days: float = 100) -> PlanItem:
    return PlanItem(path, True, size, size, NOW - age_days * 86400, 1)


def _plan() -> Plan:
    s = [Suggestion("a", "checkpoint-retention", "", "", "safe",
                    (_item("/ws/out/run/c1"), _item("/ws/out/run/c2"))),
         Suggestion("b", "crash-leftovers", "", "", "review", (_item("/ws/out/tmp-1"),)),
         Suggestion("c", "python-caches", "", "", "safe", (_item("/ws/src/__pycache__", 10,
                                                                   age_days=1),)),
         Suggestion("d", "archive-datasets", "", "", "review", (_item("/ws/data/raw"),))]
    return Plan(("/ws",), tuple(s))


def _policy(tmp_path: Path, body: str) -> policy.Policy:
    return policy.load(_write(tmp_path, f"version = 1\n{body}"))


def test_only_safe_suggestions_by_default(tmp_path: Path) -> None:
    chosen = policy.select(_plan(), _policy(tmp_path, '[[rule]]\nfolders = ["*"]\n'), NOW)
    assert sorted(i.path for s, _ in chosen.work for i in s.items) == [
        "/ws/out/run/c1", "/ws/out/run/c2", "/ws/src/__pycache__"]
    held = dict(chosen.held)
    assert "review (crash-leftovers)" in held["/ws/out/tmp-1"]
    assert "/ws/data/raw" in held


def test_naming_a_review_policy_lets_it_run_and_archive_stays_archive(tmp_path: Path) -> None:
    chosen = policy.select(_plan(), _policy(
        tmp_path, '[[rule]]\nfolders = ["*"]\nallow = ["safe", "crash-leftovers", '
        '"archive-datasets"]\naction = "trash"\n'), NOW)
    actions = {i.path: a for s, a in chosen.work for i in s.items}
    assert actions["/ws/out/tmp-1"] == "trash"
    assert actions["/ws/data/raw"] == "archive"  # raw data is never trashed


def test_rules_match_folders_in_order_and_respect_their_ages(tmp_path: Path) -> None:
    chosen = policy.select(_plan(), _policy(
        tmp_path, '[[rule]]\nfolders = ["src"]\nmin_age_days = 7\n'
        '[[rule]]\nfolders = ["out/*"]\naction = "archive"\n'), NOW)
    actions = {i.path: a for s, a in chosen.work for i in s.items}
    assert actions == {"/ws/out/run/c1": "archive", "/ws/out/run/c2": "archive"}
    held = dict(chosen.held)
    assert "younger than the rule's 7 days" in held["/ws/src/__pycache__"]


def test_the_cap_stops_the_run(tmp_path: Path) -> None:
    chosen = policy.select(_plan(), _policy(
        tmp_path, 'max_items = 1\n[[rule]]\nfolders = ["*"]\n'), NOW)
    assert chosen.items == 1
    assert [p for p, _ in chosen.capped] == ["/ws/out/run/c2", "/ws/src/__pycache__"]
    assert "cap (1 item per run)" in chosen.capped[0][1]
    by_bytes = policy.select(_plan(), _policy(
        tmp_path, 'max_bytes = 150\n[[rule]]\nfolders = ["*"]\n'), NOW)
    assert by_bytes.bytes == 100 and len(by_bytes.capped) == 2
