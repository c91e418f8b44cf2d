"""*Guard this disk…*: add a ``[guard]`` section to the policy that governs a workspace,
once the user confirmed, so the guard may free space there by itself.

The policy written to is the one ``mlspace guard`` would read: the workspace's own
``mlspace-policy.toml``, else the user's ``policy.toml``; when there is neither, the
workspace gets one (the commented template, whose rules free only safe suggestions). A
policy that has a ``[guard]`` section already is left alone (the user wrote it). The new
text is checked by reading it back as a policy; if it does not read, the file is put back
as it was and nothing changes.
"""

from __future__ import annotations

import os
from pathlib import Path

from mlspace import trust
from mlspace.act.policy import TEMPLATE, PolicyError, load
from mlspace.config import POLICY_NAME, config_dir
from mlspace.trust import write_private


class AlreadyGuarded(Exception):
    """The policy has a [guard] section already: ``str(err)`` says where."""


def policy_for(root: str) -> Path:
    """The policy the guard reads for ``root`` (or where a new one would go)."""
    own = Path(root) / POLICY_NAME
    user = config_dir() / "policy.toml"
    return own if os.path.lexists(own) or not os.path.lexists(user) else user


def section(keep_free: str) -> str:
    return ("\n# Added by mlspace (Guard this disk…): free space before the disk fills.\n"
            f"[guard]\nact = true\nkeep_free = \"{keep_free}\"\n")


def add_guard(root: str, keep_free: str) -> Path:
    """Write the [guard] section to ``root``'s policy; the policy's path. Raises
    AlreadyGuarded, or PolicyError when the policy there cannot be used."""
    path = policy_for(root)
    old = None
    if os.path.lexists(path):
        current = load(str(path))  # a policy that is not the user's is not edited
        if current.guard is not None:
            raise AlreadyGuarded(f"{path} has a [guard] section already: edit it there")
        old = trust.read_file(path, limit=1 << 20).decode("utf-8", "surrogateescape")
    write_private(path, (old if old is not None else TEMPLATE) + section(keep_free))
    try:
        load(str(path))
    except PolicyError:
        if old is None:
            os.unlink(path)
        else:
            write_private(path, old)
        raise
    return path
