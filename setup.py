"""Builds mlspace's optional native walker (mlspace/scan/_walker.c) where it can.

Everything else about the package is in pyproject.toml. The extension is Linux-only (it
walks with getdents64) and optional: without a C compiler or Python headers, or with
MLSPACE_NO_NATIVE=1, the install still succeeds and mlspace scans with its Python walker
(``mlspace scan --verbose`` says which walker ran).
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """build_ext that warns, rather than fails, when the walker cannot be compiled."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as err:  # no compiler at all (setuptools raises its own errors)
            self._skipped(err)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as err:  # a compiler that fails (no Python.h, an old libc)
            self._skipped(err)

    def _skipped(self, err: Exception) -> None:
        print(f"mlspace: the native walker was not built ({err}); mlspace will scan with "
              "its Python walker", file=sys.stderr)


def extensions() -> list[Extension]:
    if not sys.platform.startswith("linux") or os.environ.get("MLSPACE_NO_NATIVE") == "1":
        return []
    return [Extension("mlspace.scan._walker", ["mlspace/scan/_walker.c"],
                      extra_compile_args=["-O2", "-std=gnu11", "-Wall", "-Wextra",
                                          "-Wno-missing-field-initializers"],
                      extra_link_args=["-pthread"], optional=True)]


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
