"""``python -m mlspace``: the same as the ``mlspace`` command."""

import sys

from mlspace.cli import main

if __name__ == "__main__":
    sys.exit(main())
