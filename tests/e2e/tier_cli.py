"""Run the cold-tier and policy commands as ``mlspace`` would, before they are wired into
mlspace.cli: the same parsing and the same UsageError handling, in this process."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from mlspace.cli import EXIT_USAGE, UsageError
from mlspace.cli_tier import add_commands


def run_cli(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="mlspace")
    handlers = add_commands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(list(argv))
    try:
        return handlers[args.command](args)
    except UsageError as err:
        print(f"mlspace: {err}", file=sys.stderr)
        return EXIT_USAGE



if __name__ == "__main__":
    sys.exit(run_cli(sys.argv[1:]))
