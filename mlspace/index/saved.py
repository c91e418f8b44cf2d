"""Open any saved scan: mlspace's Parquet index or an ncdu/gdu JSON export (plain or gzip),
as one :class:`SavedScan` (mlspace.index.sniff tells whether a path is one)."""

from __future__ import annotations

from dataclasses import dataclass, field

from mlspace.classify import Inventory
from mlspace.classify.rules import CompiledRules
from mlspace.index.errors import CannotOpen
from mlspace.index.info import ScanInfo
from mlspace.index.sniff import NCDU_BINARY, PARQUET, saved_scan_format
from mlspace.scan import Snapshot


@dataclass(eq=False)
class SavedScan:
    """A scan read from a file: its snapshot (``source == "import"``), who made it, when,
    and its inventory: the saved one for mlspace's format, else one made from names."""

    path: str
    format: str  # PARQUET or NCDU
    snapshot: Snapshot
    info: ScanInfo
    saved_inventory: Inventory | None = None
    _made: Inventory | None = field(default=None, repr=False)

    def inventory(self, rules: CompiledRules | None = None) -> Inventory:
        """The inventory. An ncdu export says nothing about what things are: it is
        classified here, by names alone (see mlspace.index.offline), once."""
        if self.saved_inventory is not None:
            return self.saved_inventory
        if self._made is None:
            from mlspace.index.offline import classify_offline

            self._made = classify_offline(self.snapshot, rules)
        return self._made


def open_saved(path: str) -> SavedScan:
    """Open the saved scan at ``path``; CannotOpen says why when it cannot be."""
    kind = saved_scan_format(path)
    if kind is None:
        raise CannotOpen("not a saved scan (an mlspace .parquet or an ncdu JSON export)")
    try:
        if kind == PARQUET:
            from mlspace.index.parquet_read import read_parquet

            snapshot, inventory, info = read_parquet(path)
            return SavedScan(path, kind, snapshot, info, inventory)
        if kind == NCDU_BINARY:
            raise CannotOpen("ncdu's binary export: turn it into JSON with "
                             "`ncdu -f FILE -o FILE.json` first")
        from mlspace.index.ncdu_read import read_ncdu

        snapshot, info = read_ncdu(path)
        return SavedScan(path, kind, snapshot, info)
    except OSError as err:
        raise CannotOpen(err.strerror or str(err)) from None
    except (ValueError, TypeError, IndexError, KeyError, OverflowError, MemoryError,
            RecursionError) as err:
        # A check that should have caught a damaged file did not: still a message.
        raise CannotOpen(f"damaged ({type(err).__name__}: {err})") from None
