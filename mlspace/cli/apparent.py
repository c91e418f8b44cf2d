"""``--apparent``: sizes by what files hold rather than what they take on disk. Sparse files
(the demo's, preallocated shards, disk images) take far less on disk than they hold, so on
disk they read as next to nothing; the commands that print sizes take the flag, and say so
when the sizes they printed on disk hide almost everything."""

from __future__ import annotations

import argparse

from mlspace import fmt

#: On disk at most this share of the apparent size: the files are mostly holes (or very
#: compressed), and sizes on disk no longer tell them apart.
MOSTLY_HOLES = 0.1


def add_apparent_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--apparent", action="store_true",
                        help="sizes, order and totals by apparent size instead of size on "
                        "disk (sparse files take less disk than they hold); JSON always "
                        "carries both")


def with_sparse_note(text: str, on_disk: int, apparent: int, by_apparent: bool) -> str:
    """``text``, and after it a note pointing to --apparent when its sizes were on disk
    (not ``by_apparent``) and that is a small part of what the files hold."""
    if by_apparent or apparent == 0 or on_disk > apparent * MOSTLY_HOLES:
        return text
    return (f"{text}\n\nThese files take {fmt.size(on_disk)} on disk but hold "
            f"{fmt.size(apparent)}: they are sparse (or compressed). Add --apparent to see "
            "them by apparent size.")
