"""Where mlspace keeps its files, per platform (platformdirs): settings and rules in the config
dir, the cleanup journal in the data dir. Created on first use.

The user's settings file, ``config.toml`` in the config dir, is read here too. It holds what
the CLI and the app share and what an unattended run needs without a window: today the cold
tier (``archive_root``, and whether an archived item leaves a symlink or a stub) and the
ages after which archiving is suggested. A missing file means the defaults; a broken one is
an error with its line, never silently ignored (an unattended run would otherwise archive
with the wrong settings, or not at all, without anyone noticing). It is taken only when it
is yours and nobody else can change it (mlspace.trust); a link to a file of yours, as a
dotfiles manager makes, is followed, and saving writes through it.
"""

from __future__ import annotations

import json
import math
import os
import sys
from dataclasses import dataclass, fields
from pathlib import Path

import platformdirs

from mlspace import trust
from mlspace.safe_read import NOT_THERE, Unreadable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

APP_NAME = "mlspace"
LINK_MODES = ("symlink", "stub")


#: The file a workspace's own policy is kept in (``policy``, ``apply-policy``, ``guard``).
POLICY_NAME = "mlspace-policy.toml"


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def state_dir() -> Path:
    """What mlspace keeps about itself (crash reports)."""
    return Path(platformdirs.user_state_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    """What mlspace can regenerate (the demo workspace)."""
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def config_file() -> Path:
    return config_dir() / "config.toml"


class ConfigError(Exception):
    """The settings file cannot be used; ``str(err)`` names the file and, when known, the
    line."""


@dataclass(frozen=True)
class Settings:
    """The user's settings, with the defaults for anything the file leaves out."""

    archive_root: str | None = None  # the cold tier; None: archiving is not offered
    archive_link: str = "symlink"  # what stands at an archived item's path: symlink or stub
    archive_checkpoints_days: float = 60.0  # kept checkpoints of finished runs
    archive_datasets_days: float = 180.0  # raw and processed datasets
    archive_logs_days: float = 180.0  # log folders and log archives
    #: What mlspace moved to the trash is deleted for good after this many days (undo works
    #: until then); 0 keeps it until it is freed by hand.
    trash_days: float = 14.0


_DAYS = {"archive_checkpoints_days", "archive_datasets_days", "archive_logs_days",
         "trash_days"}


def load_settings(path: Path | None = None) -> Settings:
    """Read ``config.toml`` (or ``path``); the defaults when there is none. Raises
    ConfigError for a file that is there but wrong."""
    path = path or config_file()
    if not os.path.lexists(path):
        return Settings()
    try:
        text = trust.read_file(path, limit=1 << 20).decode("utf-8")
        data = tomllib.loads(text)
    except trust.Untrusted as err:
        raise ConfigError(f"not using the settings file: {err}") from None
    except Unreadable as err:
        if str(err) == NOT_THERE:  # a link to nothing: as good as no file
            return Settings()
        raise ConfigError(f"{path}: {err}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: {err}") from None
    return settings_from(data, str(path))


def settings_from(data: dict, where: str) -> Settings:
    """Check and convert the keys mlspace knows; an unknown one is an error (a typo would
    otherwise silently change nothing)."""
    values: dict[str, object] = {}
    for key, value in data.items():
        if key == "archive_root":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{where}: archive_root must be a folder path")
            values[key] = os.path.abspath(os.path.expanduser(value))
        elif key == "archive_link":
            if value not in LINK_MODES:
                raise ConfigError(f"{where}: archive_link must be one of {LINK_MODES}")
            values[key] = value
        elif key in _DAYS:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    not math.isfinite(value) or value < 0:
                raise ConfigError(f"{where}: {key} must be a number of days, 0 or more")
            values[key] = float(value)
        else:
            raise ConfigError(f"{where}: unknown setting {key!r}")
    return Settings(**values)  # type: ignore[arg-type]


def save_settings(settings: Settings, path: Path | None = None) -> None:
    """Write ``settings`` as ``config.toml`` (or ``path``), whole or not at all: a temporary
    file, fsynced, renamed over the old one, so an unattended run never reads half a file.
    The app's Settings dialog writes it; comments in a hand-written file are not kept (the
    file holds only the keys mlspace knows, so nothing else is lost). Raises OSError, or
    ValueError for a path that is not UTF-8 (TOML cannot hold it)."""
    path = path or config_file()
    lines = ["# mlspace settings: the app's Edit > Settings writes them; the CLI reads them too."]
    for f in fields(Settings):
        value = getattr(settings, f.name)
        if value is None:
            lines.append(f"# {f.name} = \"/mnt/archive\"   # not set: archiving is not offered")
        elif isinstance(value, str):
            lines.append(f"{f.name} = {json.dumps(value, ensure_ascii=False)}")  # a TOML string
        else:
            lines.append(f"{f.name} = {int(value) if value == int(value) else value!r}")
    text = "\n".join(lines) + "\n"
    trust.write_private(_through_link(path), text)


def _through_link(path: Path) -> Path:
    """Where to write ``path``: a link's target when the link and the folders on the way
    pass the ownership rule (a dotfiles manager's link stays a link), else the path."""
    if not path.is_symlink():
        return path
    try:
        return Path(trust.resolve(path)[0])
    except Unreadable:
        return path
