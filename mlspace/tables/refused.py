"""Where no cleanup may start: the scanned folders of an opened saved scan that this machine
cannot check it against, each with why (mlspace.ui.saved_scans says which)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mlspace.paths import within


def cleanup_refused(cleanup_off: Mapping[str, str], paths: Iterable[str]) -> str:
    """Why no cleanup may move these paths ('' when it may): one lies in a folder of
    ``cleanup_off`` ({scanned folder: why})."""
    for path in paths:
        for root, reason in cleanup_off.items():
            if within(path, {root}):
                return reason
    return ""


def read_only_reason(cleanup_off: Mapping[str, str], roots: Iterable[str]) -> str:
    """Why no cleanup at all may start from a scan of ``roots`` ('' when some may): every
    scanned folder is off, each reason said once."""
    reasons = [cleanup_off.get(root, "") for root in roots]
    return "; ".join(dict.fromkeys(reasons)) if reasons and all(reasons) else ""
