"""Before Qt starts on Linux/X11: are the system libraries its xcb plugin needs there?

On a fresh desktop Qt's message for a missing libxcb-cursor is cryptic ("could not load the
Qt platform plugin xcb"). This check names the missing libraries and the exact command that
installs them on the user's distribution family. No Qt import here."""

from __future__ import annotations

import ctypes.util
import os
import sys

#: library (as ctypes finds it) -> package on Debian/Ubuntu, Fedora/RHEL, Arch, openSUSE
XCB_LIBRARIES = {
    "xcb-cursor": ("libxcb-cursor0", "xcb-util-cursor", "xcb-util-cursor", "libxcb-cursor0"),
    "xkbcommon-x11": ("libxkbcommon-x11-0", "libxkbcommon-x11", "libxkbcommon-x11",
                      "libxkbcommon-x11-0"),
    "xcb-icccm": ("libxcb-icccm4", "xcb-util-wm", "xcb-util-wm", "libxcb-icccm4"),
    "xcb-keysyms": ("libxcb-keysyms1", "xcb-util-keysyms", "xcb-util-keysyms",
                    "libxcb-keysyms1"),
    "xcb-shape": ("libxcb-shape0", "libxcb", "libxcb", "libxcb-shape0"),
    "xcb-render-util": ("libxcb-render-util0", "xcb-util-renderutil", "xcb-util-renderutil",
                        "libxcb-render-util0"),
    "xcb-image": ("libxcb-image0", "xcb-util-image", "xcb-util-image", "libxcb-image0"),
}
FAMILIES = (("Debian/Ubuntu", "sudo apt install"), ("Fedora/RHEL", "sudo dnf install"),
            ("Arch", "sudo pacman -S"), ("openSUSE", "sudo zypper install"))


def missing_xcb_libraries(find: object = ctypes.util.find_library) -> list[str]:
    return [lib for lib in XCB_LIBRARIES if find(lib) is None]  # type: ignore[operator]


def display_problem() -> str | None:
    """A message saying what to do, or None when the app can start."""
    if not sys.platform.startswith("linux"):
        return None
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform and not platform.startswith("xcb"):
        return None  # offscreen, wayland, ...: the xcb plugin is not used
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        return ("mlspace: no display to open a window on. Over SSH, use the command line "
                "(mlspace scan, inventory, plan, clean, report), or run with "
                "QT_QPA_PLATFORM=offscreen for --screenshot.")
    if os.environ.get("WAYLAND_DISPLAY") and not platform:
        return None  # Qt picks its Wayland plugin
    missing = missing_xcb_libraries()
    if not missing:
        return None
    lines = ["mlspace: Qt cannot open a window: these system libraries are missing: "
             + ", ".join(f"lib{m}" for m in missing) + ".", "Install them with:"]
    for column, (family, command) in enumerate(FAMILIES):
        packages = sorted({XCB_LIBRARIES[m][column] for m in missing})
        lines.append(f"  {family + ':':<15} {command} {' '.join(packages)}")
    return "\n".join(lines)
