"""Entry point of the packaged app: the same as the ``mlspace`` command.

freeze_support() lets the scanner's worker processes start inside a frozen executable."""

import multiprocessing
import sys

from mlspace.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
