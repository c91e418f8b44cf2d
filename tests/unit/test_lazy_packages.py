"""The packages whose names load on first use (:mod:`mlspace.lazy`) give the same objects an
eager import gave, whatever was imported before.

A public name that is also a submodule's name is the trap: importing that submodule from
anywhere sets the package attribute to the module, the package ``__getattr__`` is then never
asked, and ``from mlspace.act import undo`` handed out a module (the CLI's undo crashed).
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from types import ModuleType

import pytest

LAZY_PACKAGES = ["mlspace.act", "mlspace.advise", "mlspace.cli", "mlspace.scan"]


def _submodules(package: ModuleType) -> set[str]:
    return {info.name for info in pkgutil.iter_modules(package.__path__)}


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_no_public_name_is_also_a_submodule(name: str) -> None:
    package = importlib.import_module(name)
    assert sorted(set(package.__all__) & _submodules(package)) == []


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_every_public_name_resolves_after_all_submodules_loaded(name: str) -> None:
    """In a fresh interpreter: import every submodule first, then each public name is the
    object its submodule defines, not a module."""
    script = (
        "import importlib, pkgutil, types\n"
        f"p = importlib.import_module({name!r})\n"
        "for info in pkgutil.iter_modules(p.__path__):\n"
        "    if not info.name.startswith('_'):\n"
        "        importlib.import_module(p.__name__ + '.' + info.name)\n"
        "bad = [n for n in p.__all__ if isinstance(getattr(p, n), types.ModuleType)]\n"
        "print(bad)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert (result.returncode, result.stdout.strip()) == (0, "[]"), result.stderr


def test_an_unknown_name_is_an_attribute_error() -> None:
    act = importlib.import_module("mlspace.act")
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        act.nothing_here  # noqa: B018
