"""Warning the researcher where they are: a desktop notification when there is a session
bus, else a line in the user's journal or log; and mail, when the policy names an address
and the system has ``sendmail``.

No Python dependency is added for it: the freedesktop notification service is called
through ``gdbus`` (or ``notify-send``), the journal through ``logger`` (or stderr, which
systemd sends to the journal when the guard runs as its service), mail through
``sendmail -t``. Each channel that fails is skipped; the caller learns which ones worked.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

Runner = Callable[..., subprocess.CompletedProcess]
TIMEOUT = 10
DESKTOP, JOURNAL, STDERR, MAIL = "desktop", "journal", "stderr", "mail"


def session_bus() -> bool:
    """Is there a session bus to send a notification over?"""
    if os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return True
    runtime = os.environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
    return Path(runtime, "bus").exists()


def _ok(runner: Runner, argv: Sequence[str], text: str | None = None) -> bool:
    try:
        done = runner(list(argv), input=text, capture_output=True, text=True,
                      timeout=TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def desktop_argv(title: str, body: str) -> list[str] | None:
    """The command that shows a notification, or None when no tool for it is here."""
    gdbus = shutil.which("gdbus")
    if gdbus:
        return [gdbus, "call", "--session", "--dest", "org.freedesktop.Notifications",
                "--object-path", "/org/freedesktop/Notifications",
                "--method", "org.freedesktop.Notifications.Notify",
                "mlspace", "0", "drive-harddisk", title, body, "[]",
                "{'urgency': <byte 2>}", "-1"]
    tool = shutil.which("notify-send")
    if tool:
        return [tool, "--app-name=mlspace", "--urgency=critical", "--icon=drive-harddisk",
                title, body]
    return None


def mail_text(address: str, title: str, body: str) -> str:
    return f"To: {address}\nSubject: mlspace: {title}\n\n{body}\n"


def sendmail() -> str | None:
    return shutil.which("sendmail") or next(
        (p for p in ("/usr/sbin/sendmail", "/usr/lib/sendmail") if os.access(p, os.X_OK)),
        None)


def warn(title: str, body: str, mail: str | None = None,
         runner: Runner = subprocess.run) -> list[str]:
    """Send the warning; the channels that took it."""
    used = []
    argv = desktop_argv(title, body) if session_bus() else None
    if argv is not None and _ok(runner, argv):
        used.append(DESKTOP)
    else:
        logger = shutil.which("logger")
        if os.environ.get("JOURNAL_STREAM") or logger is None:
            print(f"mlspace guard: {title}: {body}", file=sys.stderr, flush=True)
            used.append(STDERR)
        elif _ok(runner, [logger, "-t", "mlspace-guard", "-p", "user.warning",
                          f"{title}: {body}"]):
            used.append(JOURNAL)
    tool = sendmail() if mail else None
    if mail and tool and _ok(runner, [tool, "-t"], mail_text(mail, title, body)):
        used.append(MAIL)
    return used
