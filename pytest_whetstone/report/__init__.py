"""Reports: one analysis model (``model.py``), one small module per output format.

``render(state_or_model, fmt)`` lays out a ``SessionState`` or a
``ReportModel``; ``run_report(...)`` is what ``whetstone report`` calls: it
finds the session (or merges several session files / folders), builds the
model with the loop's audit trail, renders, and optionally writes a file.
"""

from __future__ import annotations

import os
import secrets
import warnings
from collections.abc import Callable, Sequence
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..paths import display_path
from ..store.fold import SessionState
from ..store.location import STORE_DIRNAME, check_session_id, resolve_store, workspace_of
from ..store.sessions import SessionWarning, latest_session_id
from ..store.shards import MergeError, audit_path_for, read_audit

if TYPE_CHECKING:
    from .model import ReportModel, build_model

__all__ = ["FORMATS", "ReportModel", "build_model", "render", "run_report"]


def _format(module: str) -> Callable[[ReportModel], str]:
    """A format's renderer, imported on first use: writing the agent report after every run
    (``report/agent.py``) must not load every format and the merger."""

    def render_with(model: ReportModel) -> str:
        renderer: Callable[[ReportModel], str] = import_module(f"{__name__}.{module}").render
        return renderer(model)

    return render_with


FORMATS: dict[str, Callable[[ReportModel], str]] = {
    "text": _format("text"),
    "json": _format("json_report"),
    "sarif": _format("sarif"),
    "github": _format("github"),
    "html": _format("html"),
}


def __getattr__(name: str) -> Any:
    if name in ("ReportModel", "build_model"):
        from . import model

        return getattr(model, name)
    raise AttributeError(name)
USAGE_EXIT = 2
FAILING_EXIT = 1  # --exit-code: the report shows a failing session
MAX_WARNING_LINES = 10


def render(state_or_model: SessionState | ReportModel, fmt: str = "text", *,
           workspace: Path | None = None) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r} (expected one of: {', '.join(FORMATS)})")
    model = state_or_model
    if isinstance(model, SessionState):
        from .model import build_model

        model = build_model(model, workspace=workspace)
    return FORMATS[fmt](model)


def _is_store(path: Path) -> bool:
    return (path / "sessions").is_dir()


def _resolve_sources(
    sources: Sequence[Path], session_id: str | None
) -> tuple[list[Path], Path | None, str | None]:
    """(session files, workspace, report path) for what the user named."""
    paths = [Path(p) for p in sources]
    if len(paths) == 1 and paths[0].is_dir() and (_is_store(paths[0]) or _is_store(paths[0] / STORE_DIRNAME)):
        store = paths[0] if _is_store(paths[0]) else paths[0] / STORE_DIRNAME
        sid = session_id or latest_session_id(store)
        if not sid:
            raise MergeError(f"no session in {store} (run a build or tests with whetstone first)")
        try:
            check_session_id(sid)
        except ValueError as exc:
            raise MergeError(str(exc)) from None
        path = store / "sessions" / f"{sid}.jsonl"
        if not path.is_file():
            raise MergeError(f"unknown session {sid!r} in {store}")
        workspace = workspace_of(store)
        return [path], workspace, display_path(path, workspace)
    if not paths:
        raise MergeError("no session given")
    from ..store.shards import collect_session_files

    files = collect_session_files(paths)
    if session_id:
        files = [f for f in files if f.stem == session_id]
        if not files:
            raise MergeError(f"unknown session {session_id!r} in the files given")
    if not files:
        raise MergeError("no session files found in " + ", ".join(str(p) for p in paths))
    return files, _guess_workspace(), display_path(files[0], _guess_workspace()) if len(files) == 1 else None


def _guess_workspace() -> Path:
    """Merged shards are reported against the project the user is in."""
    return workspace_of(resolve_store(create=False))


def load_model(sources: Sequence[Path], session_id: str | None = None) -> ReportModel:
    files, workspace, report_path = _resolve_sources(sources, session_id)
    from ..store.merge import merge_sessions
    from .model import build_model

    state = merge_sessions(files, workspace)
    audit = read_audit(audit_path_for(files[0])) if len(files) == 1 else []
    return build_model(state, workspace=workspace, audit=audit, report_path=report_path)


def run_report(
    paths_or_store: Path | Sequence[Path],
    session_id: str | None = None,
    fmt: str = "text",
    output_path: str | os.PathLike[str] | None = None,
    *,
    exit_code: bool = False,
) -> tuple[str, int]:
    """What `whetstone report` does: (text to print, exit code).

    Usage problems (unknown format, no or unknown session, unreadable files)
    give one ``whetstone: error: ...`` line and exit 2.  Corrupt session lines
    are skipped; each becomes one ``whetstone: warning: ...`` line on stderr.
    With output_path, the report goes to that file and the text is one line
    saying so.  A report that was written exits 0, or with ``exit_code`` 1 when
    the session it shows still fails (as ``git diff --exit-code``: CI can gate on it).
    """
    if fmt not in FORMATS:
        return f"whetstone: error: unknown report format {fmt!r} (expected one of: {', '.join(FORMATS)})", USAGE_EXIT
    sources = [paths_or_store] if isinstance(paths_or_store, (str, os.PathLike)) else list(paths_or_store)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SessionWarning)
        try:
            model = load_model([Path(p) for p in sources], session_id)
        except (MergeError, OSError, ValueError) as exc:
            return f"whetstone: error: {_one_line(str(exc))}", USAGE_EXIT
        output = FORMATS[fmt](model)
    _emit_warnings([str(w.message) for w in caught if issubclass(w.category, SessionWarning)])
    done = FAILING_EXIT if exit_code and model.status == "fail" else 0
    if output_path is None:
        return output, done
    target = Path(output_path)
    try:
        _write_atomic(target, output)
    except OSError as exc:
        return f"whetstone: error: cannot write {target}: {exc.strerror or exc}", USAGE_EXIT
    return f"whetstone: wrote the {fmt} report to {target}", done


def _one_line(text_: str) -> str:
    return " ".join(text_.split())


def _emit_warnings(messages: list[str]) -> None:
    from ..store.sessions import warn_line

    for message in messages[:MAX_WARNING_LINES]:
        warn_line(_one_line(message))
    if len(messages) > MAX_WARNING_LINES:
        warn_line(f"{len(messages) - MAX_WARNING_LINES} more unreadable session lines skipped")


def _write_atomic(target: Path, data: str) -> None:
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(3)}.tmp")
    try:
        tmp.write_text(data, encoding="utf-8")
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
