"""Path rules, in one place: workspace-relative paths, display paths, the directories no scan enters.

Records keep paths relative to the workspace when the file lies inside it (the dedupe key of a
diagnostic depends on that form); shards from other machines are made relative to their own
workspace roots before they are merged.  Display paths are what a person or agent is shown.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

# Never the project's own code: version control, tool state, caches, virtual environments, vendored deps.
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".whetstone", "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", "node_modules", "CMakeFiles", "_deps",
})
# Generated output: skipped by scans that look for hand-written sources (not by those that need
# generated headers).
GENERATED_DIRS = frozenset({"build", "dist", "coverage", ".next"})


def inside(path: str, root: str) -> bool:
    """Is the normalised absolute ``path`` the ``root`` or below it?"""
    base = os.path.normpath(root)
    return path == base or path.startswith(base.rstrip(os.sep) + os.sep)


def workspace_relative(path: str, workspace: str, cwd: str = "") -> str:
    """A printed path made absolute against ``cwd``, then relative to the workspace if inside it."""
    if not path or path.startswith("<"):
        return path
    full = os.path.normpath(path if os.path.isabs(path) or not cwd else os.path.join(cwd, path))
    if workspace and os.path.isabs(full) and inside(full, workspace):
        return os.path.relpath(full, os.path.normpath(workspace))
    return full if os.path.isabs(path) or cwd else path


def relative_to_roots(path: str, roots: Iterable[str]) -> str:
    """An absolute path relative to the first root it lies strictly inside (POSIX separators), else as given."""
    if not path or not os.path.isabs(path):
        return path
    norm = os.path.normpath(path)
    for root in roots:
        if not root:
            continue
        base = os.path.normpath(root)
        if norm == base:
            return path
        if inside(norm, base):
            return Path(os.path.relpath(norm, base)).as_posix()
    return path


def display_path(path: str | os.PathLike[str], base: str | os.PathLike[str] | None = None) -> str:
    """What to show for a file: relative to ``base`` (the current directory) when inside it, else absolute."""
    full = os.path.abspath(path)
    root = os.path.abspath(base) if base is not None else os.getcwd()
    if inside(full, root):
        return os.path.relpath(full, root)
    return full


def relative_posix(path: str | os.PathLike[str], workspace: str | os.PathLike[str] | None) -> str:
    """A file's path relative to the workspace (resolved, POSIX separators); as given when outside it."""
    given = Path(path)
    if workspace is None:
        return given.as_posix()
    try:
        return given.resolve().relative_to(Path(workspace).resolve()).as_posix()
    except (ValueError, OSError):
        return given.as_posix()


CONFIG_NAME = "whetstone.json5"


def find_config(start: Path | None = None) -> Path | None:
    """The nearest whetstone.json5 up from ``start``.  Here, not in .config: the store is found (and a
    run's command started) before the configuration's types are loaded."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None
