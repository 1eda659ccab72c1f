"""Build hook: install the native ccwrap shim as the `ccwrap` / `ccwrap++` commands.

All metadata lives in pyproject.toml.  This file only adds one step to the
build: compile ``ccwrap/shim.c`` with the system C compiler and install the
binary as the two scripts.  pip's console-script launchers start a Python
interpreter (~25-45 ms per call), far too slow for a compiler wrapper that
runs once per translation unit.  Without a working C compiler the Python
fallback scripts in ``ccwrap/scripts/`` are installed instead (same
behaviour, slower).  Works for ``pip install .`` and ``pip install -e .``
(editable installs copy the scripts too; re-install after editing shim.c).
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import Distribution, setup

try:
    from setuptools.command.build_scripts import build_scripts as _build_scripts
except ImportError:  # setuptools < 66 keeps it in its vendored distutils
    from distutils.command.build_scripts import build_scripts as _build_scripts

HERE = Path(__file__).resolve().parent


class build_scripts(_build_scripts):  # noqa: N801 - setuptools command naming
    def run(self) -> None:
        super().run()  # copies the Python fallbacks first
        sys.path.insert(0, str(HERE))
        try:
            from ccwrap import native

            built = native.build(Path(self.build_dir))
        except Exception as exc:  # noqa: BLE001 - never fail the install over the fast path
            self.warn(f"ccwrap: building the native shim failed: {exc}")
            built = None
        finally:
            sys.path.remove(str(HERE))
        if built is None:
            self.warn("ccwrap: no working C compiler; installed the slower Python fallback")


class BinaryDistribution(Distribution):
    """The wheel carries a native program, so it must get a platform tag."""

    def has_ext_modules(self) -> bool:
        return True


setup(
    scripts=["ccwrap/scripts/ccwrap", "ccwrap/scripts/ccwrap++"],
    cmdclass={"build_scripts": build_scripts},
    distclass=BinaryDistribution,
)
