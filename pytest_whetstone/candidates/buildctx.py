"""The per-run context every build-candidate generator gets: workspace, config, lazy indexes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..locate.cfamily import FunctionIndex
from ..records import BuildErrorRecord, FixCandidate
from .cfile import read_lines, resolve

if TYPE_CHECKING:
    from ..config import Config

Generator = Callable[["_Ctx", BuildErrorRecord], list[FixCandidate]]


class _Ctx:
    """Per-run state: workspace, config and lazily built indexes."""

    def __init__(self, workspace: Path, config: Config | None) -> None:
        self.workspace = Path(workspace)
        self.config = config
        self._index: FunctionIndex | None = None
        self._lines: dict[str, list[str] | None] = {}

    @property
    def index(self) -> FunctionIndex:
        if self._index is None:
            self._index = FunctionIndex(self.workspace)
        return self._index

    def lines(self, file_path: str) -> list[str] | None:
        if file_path not in self._lines:
            self._lines[file_path] = read_lines(resolve(file_path, self.workspace)) if file_path else None
        return self._lines[file_path]

    def rel(self, file_path: str) -> str:
        path = resolve(file_path, self.workspace)
        try:
            return path.resolve().relative_to(self.workspace.resolve()).as_posix()
        except ValueError:
            return file_path
