"""Install mlspace into the user's application menu (freedesktop): the desktop entry with
"Open with mlspace" on folders, the icon in every size, and AppStream metainfo, all under
$XDG_DATA_HOME; and remove them again."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from mlspace.assets import ICON_SIZES, icon_png, icon_svg, resource

DESKTOP_FILE = "mlspace.desktop"
METAINFO_FILE = "io.github.mlspace.metainfo.xml"


def data_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"))


def installed_files(base: Path | None = None) -> list[Path]:
    base = base or data_home()
    files = [base / "applications" / DESKTOP_FILE, base / "metainfo" / METAINFO_FILE,
             base / "icons" / "hicolor" / "scalable" / "apps" / "mlspace.svg"]
    files += [base / "icons" / "hicolor" / f"{s}x{s}" / "apps" / "mlspace.png"
              for s in ICON_SIZES]
    return files


def launcher_command() -> str:
    """How the desktop entry starts the app: the mlspace-gui script next to this Python if
    there is one, else this Python running the package."""
    script = Path(sys.executable).with_name("mlspace-gui")
    if script.exists():
        return shlex.quote(str(script))
    found = shutil.which("mlspace-gui")
    if found:
        return shlex.quote(found)
    return f"{shlex.quote(sys.executable)} -m mlspace"


def install(base: Path | None = None) -> list[Path]:
    base = base or data_home()
    entry = resource(DESKTOP_FILE).read_text()
    command = launcher_command()
    entry = entry.replace("Exec=mlspace-gui %F", f"Exec={command} %F")
    entry = entry.replace("TryExec=mlspace-gui\n", "")
    targets = installed_files(base)
    contents: list[bytes] = [entry.encode(), resource(METAINFO_FILE).read_bytes(),
                             icon_svg().read_bytes()]
    contents += [icon_png(s).read_bytes() for s in ICON_SIZES]
    for target, data in zip(targets, contents, strict=True):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    _refresh_caches(base)
    return targets


def uninstall(base: Path | None = None) -> list[Path]:
    removed = []
    for target in installed_files(base or data_home()):
        if target.exists():
            target.unlink()
            removed.append(target)
    _refresh_caches(base or data_home())
    return removed


def _refresh_caches(base: Path) -> None:
    """Tell the desktop about the change where the tools exist (harmless otherwise)."""
    for command in (["update-desktop-database", str(base / "applications")],
                    ["gtk-update-icon-cache", "-q", "-t", str(base / "icons" / "hicolor")]):
        if shutil.which(command[0]):
            subprocess.run(command, capture_output=True, check=False)
