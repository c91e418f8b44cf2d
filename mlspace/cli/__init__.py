"""The ``mlspace`` command: the same engine as the app, headless, for servers over SSH.

One module a job: ``dispatch`` (the entry point), ``parser`` (the commands and their
arguments), ``app`` (opening the app), ``sources`` (scanning or opening what a command works
on), ``output`` (stdout or -o FILE), ``terminal`` (progress and questions), ``exits`` (exit
codes), and a ``cmd_*`` module per group of commands.

Exit codes: 0 ok, 1 finished but some paths could not be read (results still printed),
2 bad usage or a missing root (a message, never a traceback), 130 interrupted.
"""


from __future__ import annotations

from mlspace.cli.dispatch import main
from mlspace.lazy import module_getattr

__all__ = ["build_parser", "main", "run_gui"]

#: The names loaded when first asked for (PEP 562): the app's command line is not
#: imported by a command's start-up.
_WHERE = {"build_parser": "parser", "run_gui": "app"}


__getattr__ = module_getattr(__name__, _WHERE, globals())
