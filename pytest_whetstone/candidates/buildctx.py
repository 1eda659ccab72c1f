"""The per-run context every build-candidate generator gets: workspace, config, lazy indexes."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import paths
from ..locate.cfamily import FunctionIndex
from ..records import BuildErrorRecord, FixCandidate
from .cfile import read_lines, resolve

if TYPE_CHECKING:
    from ..build.compdb import CompileDatabase
    from ..config import Config

Generator = Callable[["_Ctx", BuildErrorRecord], list[FixCandidate]]


class _Ctx:
    """Per-run state: workspace, config and lazily built indexes."""

    def __init__(self, workspace: Path, config: Config | None) -> None:
        self.workspace = Path(workspace)
        self.config = config
        self._index: FunctionIndex | None = None
        self._lines: dict[str, list[str] | None] = {}
        self._compdb: CompileDatabase | None = None

    @property
    def compdb(self) -> CompileDatabase:
        """The commands ccwrap recorded for this workspace (empty when none)."""
        if self._compdb is None:
            from ..build.compdb import COMMANDS_DIR, CompileDatabase
            from ..store.sessions import find_store

            store = find_store(self.workspace, create=False)
            self._compdb = CompileDatabase.from_store(store) if (store / COMMANDS_DIR).is_dir() else CompileDatabase([])
        return self._compdb

    def include_dirs(self, file_path: str) -> list[Path]:
        """The directories `#include "..."` searches for this file: its own, then the -iquote/-I
        directories of its unit's recorded command (or the workspace's usual ones)."""
        path = resolve(file_path, self.workspace)
        out = [path.parent]
        commands = self.compdb.for_source(path)
        if commands:
            args = commands[0].arguments
            for i, arg in enumerate(args):
                for flag in ("-iquote", "-I", "-isystem"):
                    if arg == flag and i + 1 < len(args):
                        out.append(Path(commands[0].directory, args[i + 1]))
                    elif arg.startswith(flag) and len(arg) > len(flag) and not (flag == "-I" and arg.startswith(("-iquote", "-isystem"))):
                        out.append(Path(commands[0].directory, arg[len(flag):]))
        else:
            out += [self.workspace / d for d in ("include", "inc", "src")] + [self.workspace]
        seen: list[Path] = []
        for d in out:
            if d.is_dir() and d.resolve() not in [x.resolve() for x in seen]:
                seen.append(d)
        return seen

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
        rel = paths.relative_posix(resolve(file_path, self.workspace), self.workspace)
        return rel if not os.path.isabs(rel) else file_path
