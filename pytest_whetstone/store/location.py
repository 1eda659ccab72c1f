"""Where the store is: the one resolver every face asks, and the store's layout.

Order, first that answers: an explicit directory (``--dir``, ``--whetstone-dir``, a tool's
argument), ``$WHETSTONE_DIR``, the ``store`` key of ``whetstone.json5`` (relative to that file),
the workspace's own ``.whetstone`` when a workspace is named, the nearest ``.whetstone/`` upwards,
else a new one at the nearest project root.  ccwrap's ``shim_store.c`` and ``store.py`` repeat the
environment and walking-up rules on purpose: the shim must not import the package.
"""

from __future__ import annotations

import os
from pathlib import Path

STORE_DIRNAME = ".whetstone"
ENV_DIR = "WHETSTONE_DIR"
ENV_SESSION = "WHETSTONE_SESSION"
ENV_NESTED = "WHETSTONE_NESTED"  # set for a run's children: a nested run prints no verdict block
LAYOUT = ("sessions", "audits", "spool")
_ROOT_MARKERS = ("whetstone.json5", ".git", "pyproject.toml", "setup.py", "CMakeLists.txt")
_MAX_SESSION_ID = 128


def resolve_store(
    explicit: str | os.PathLike[str] | None = None,
    *,
    start: Path | None = None,
    workspace: Path | None = None,
    create: bool = True,
) -> Path:
    """The store directory (see the module docstring for the order); its layout made when ``create``."""
    here = (start or workspace or Path.cwd()).resolve()
    if explicit:
        root = Path(explicit).expanduser()
        root = (root if root.is_absolute() else here / root).resolve()
    elif os.environ.get(ENV_DIR):
        root = Path(os.environ[ENV_DIR]).expanduser().resolve()
    else:
        root = _configured(here) or (
            workspace.resolve() / STORE_DIRNAME if workspace is not None
            else _nearest(here) or _default_root(here) / STORE_DIRNAME
        )
    if create:
        ensure_layout(root)
    return root


def ensure_layout(store: Path) -> Path:
    for sub in LAYOUT:
        (store / sub).mkdir(parents=True, exist_ok=True)
    return store


def check_session_id(sid: str) -> str:
    """A session id names a file inside the store: no path separators, no hidden names."""
    if not sid or "/" in sid or "\\" in sid or sid.startswith(".") or len(sid) > _MAX_SESSION_ID:
        raise ValueError(f"invalid session id {sid!r}")
    return sid


def workspace_of(store: Path) -> Path:
    """The workspace a store belongs to: the directory that holds it."""
    return store.parent if store.name == STORE_DIRNAME else Path.cwd()


def _configured(here: Path) -> Path | None:
    """The ``store`` key of the nearest whetstone.json5, relative to that file."""
    from ..paths import find_config

    path = find_config(here)
    if path is None:
        return None
    from ..config import ConfigError, load_config  # only when there is a file to read

    try:
        store = load_config(path=path).store
    except ConfigError:
        return None  # the run reports the config error itself
    if not store:
        return None
    root = Path(store).expanduser()
    return (root if root.is_absolute() else path.parent / root).resolve()


def _nearest(here: Path) -> Path | None:
    for directory in (here, *here.parents):
        candidate = directory / STORE_DIRNAME
        if candidate.is_dir():
            return candidate
    return None


def _default_root(here: Path) -> Path:
    for directory in (here, *here.parents):
        if any((directory / marker).exists() for marker in _ROOT_MARKERS):
            return directory
    return here
