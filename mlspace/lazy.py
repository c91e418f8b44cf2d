"""A package's names loaded when first asked for (PEP 562), so that importing one small
submodule does not import all its siblings.

Importing ``mlspace.act.purge`` runs ``mlspace/act/__init__.py`` first; when that file
imported the executor, a command that only reads the trash (``mlspace scan``'s disk line)
paid for the classifier and the advice too. A package lists where each public name lives,
and ``module_getattr`` gives it the ``__getattr__`` that imports the submodule on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def module_getattr(package: str, where: Mapping[str, str],
                   namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``where`` maps each public name to the
    submodule defining it; the value found is kept in ``namespace`` (the package's
    ``globals()``), so each name is looked up once."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__
