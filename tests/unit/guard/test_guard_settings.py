"""The guard's settings and records: the policy's [guard] section is checked with its
line, the state file is taken only from a folder and file of the user's, a guard that
stopped shows as off, Guard this disk… never overwrites a [guard] the user wrote, and the
warnings go where the researcher is."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from mlspace.act.policy import PolicyError, load
from mlspace.guard import notify, setup
from mlspace.guard import state as saved
from mlspace.guard.samples import Sample
from mlspace.guard.view import OFF, view_of

RULE = '[[rule]]\nfolders = ["*"]\n'


def _policy(tmp_path: Path, text: str) -> str:
    path = tmp_path / "p.toml"
    path.write_text("version = 1\n" + text + RULE)
    return str(path)


def test_the_guard_section_is_read_and_its_mistakes_name_their_line(tmp_path: Path) -> None:
    p = load(_policy(tmp_path, '[guard]\nact = true\nkeep_free = "50 GiB"\nwarn_hours = 3\n'
                               'mail = "me@example.org"\n'))
    assert p.guard is not None and p.guard.act and p.guard.keep_free == 50 << 30
    assert p.guard.warn_hours == 3 and p.guard.mail == "me@example.org"
    assert load(_policy(tmp_path, "")).guard is None
    for text, line, words in (('[guard]\nact = true\n', 3, "needs keep_free"),
                              ('[guard]\nact = "yes"\n', 3, "true or false"),
                              ('[guard]\nkeep_free = "lots"\n', 3, "size"),
                              ('[guard]\nmail = "a b@c"\n', 3, "e-mail"),
                              ('[guard]\nactt = true\n', 3, "unknown guard setting")):
        with pytest.raises(PolicyError, match=words) as err:
            load(_policy(tmp_path, text))
        assert err.value.line == line, text


def test_a_state_file_others_can_write_is_not_used(tmp_path: Path) -> None:
    state = saved.GuardState()
    state.disks["/x"] = saved.DiskState("/x", [Sample(1.0, 10, 0, 0)])
    saved.save(state)
    assert saved.load().disks["/x"].samples == [Sample(1.0, 10, 0, 0)]
    os.chmod(saved.state_file(), 0o666)
    again = saved.load()
    assert again.disks == {} and "can be changed by others" in again.problem
    os.chmod(saved.state_file(), 0o600)
    saved.state_file().write_text("{not json")
    broken = saved.load()
    assert broken.disks == {} and "started afresh" in broken.problem


def test_a_guard_that_stopped_shows_as_off() -> None:
    state = saved.GuardState()
    state.disks["/x"] = saved.DiskState("/x", last={
        "status": "watching", "time": 1000.0, "next_round": 1600.0, "available": 5,
        "full_in": [7200.0, 3600.0, 9000.0], "acting": True})
    running = view_of("/x", state, now=1000.0)
    assert running.status == "watching" and running.forecast == \
        "fills in ~2 h at the current rate"
    assert view_of("/x", state, now=1600.0 + 3600).status == OFF
    assert view_of("/y", state).status == OFF


def test_guard_this_disk_adds_a_section_once_and_keeps_the_users_policy(tmp_path: Path
                                                                         ) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    path = setup.add_guard(str(ws), "5 GiB")
    assert path == ws / "mlspace-policy.toml"
    first = load(str(path))
    assert first.guard is not None and first.guard.keep_free == 5 << 30
    assert len(first.rules) == 2  # the template's rules: safe suggestions only
    with pytest.raises(setup.AlreadyGuarded):
        setup.add_guard(str(ws), "9 GiB")
    assert load(str(path)).guard.keep_free == 5 << 30  # type: ignore[union-attr]


def test_a_warning_goes_to_the_desktop_when_there_is_a_session_bus(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []

    def runner(argv: list[str], **kw: object) -> subprocess.CompletedProcess:
        calls.append(argv)
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nowhere")
    monkeypatch.setattr(notify, "desktop_argv", lambda t, b: ["gdbus", "call", t, b])
    assert notify.warn("/scratch is filling up", "fills in about 1 h", runner=runner) == \
        [notify.DESKTOP]
    assert calls == [["gdbus", "call", "/scratch is filling up", "fills in about 1 h"]]


def test_headless_it_logs_and_mails(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[list[str], object]] = []

    def runner(argv: list[str], **kw: object) -> subprocess.CompletedProcess:
        calls.append((argv, kw.get("input")))
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/nonexistent")
    monkeypatch.setattr(notify.shutil, "which",
                        lambda name: f"/usr/bin/{name}" if name in ("logger", "sendmail")
                        else None)
    used = notify.warn("full soon", "body", mail="me@example.org", runner=runner)
    assert used == [notify.JOURNAL, notify.MAIL]
    assert calls[0][0][:3] == ["/usr/bin/logger", "-t", "mlspace-guard"]
    assert calls[1][0] == ["/usr/bin/sendmail", "-t"]
    assert "To: me@example.org\nSubject: mlspace: full soon" in str(calls[1][1])
