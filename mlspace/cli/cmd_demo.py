"""``mlspace demo DIR``: the sample ML workspace the app's --demo opens, written into a
folder, to try every command on without risking real files."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from mlspace.cli.exits import EXIT_OK, UsageError


def cmd_demo(args: argparse.Namespace) -> int:
    from mlspace.demo import generate

    try:
        root = generate(Path(args.folder))
    except FileExistsError as err:  # a folder that is not empty says so itself
        raise UsageError(str(err) if os.path.isdir(args.folder) else
                         f"{args.folder} exists and is not a folder: name a folder for the "
                         "demo workspace") from None
    print(f"Demo workspace written to {root}\nOpen it with: mlspace {root}")
    return EXIT_OK
