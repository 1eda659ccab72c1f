"""Shared by the benches that run real libraries' own test suites: fetch an sdist once, and
pin pytest's rootdir to it so no pytest configuration of an enclosing checkout applies."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path


def fetch_sdist(spec: str, dirname: str, work: Path, python: str = sys.executable) -> Path:
    """``work/dirname``: the sdist of ``spec`` downloaded into ``work/sdists`` and extracted once."""
    root = work / dirname
    if not root.is_dir():
        sdists = work / "sdists"
        sdists.mkdir(parents=True, exist_ok=True)
        if not list(sdists.glob(dirname + ".tar.gz")):
            subprocess.run([python, "-m", "pip", "-q", "download", "--no-binary", ":all:", "--no-deps",
                            spec, "-d", str(sdists)], check=True)
        with tarfile.open(next(sdists.glob(dirname + ".tar.gz"))) as tar:
            tar.extractall(work)  # noqa: S202 - a registry sdist we just downloaded
    return root


def pin_rootdir(root: Path) -> None:
    """An empty pytest.ini unless the library configures pytest itself."""
    has_ini = (root / "pytest.ini").exists() or "[pytest]" in _read(root / "tox.ini") or (
        "[tool:pytest]" in _read(root / "setup.cfg")) or "[tool.pytest" in _read(root / "pyproject.toml")
    if not has_ini:
        (root / "pytest.ini").write_text("[pytest]\n")


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
