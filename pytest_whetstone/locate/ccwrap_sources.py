"""Which sources went into a test binary, from the compile and link commands ccwrap recorded.

ccwrap records a command (argv + cwd) when the compiler printed something, failed, or
cleared earlier diagnostics; those land in the session files as ``build_errors``
events carrying ``argv``/``cwd`` (and, before ingestion, as spool files).  From them:
compiles map each object to its source (``-c x.cc -o x.o``), links map a binary to its
inputs (objects, archives, sources compiled in the same command).  A CMake static
library ``libNAME.a`` is taken to hold the objects under ``CMakeFiles/NAME.dir/``
(``ar`` itself is not wrapped).

The answer is all-or-nothing: when any input of the test binary's link cannot be
traced to a source (its compile printed nothing, so ccwrap kept no record), we do
not know what went in and return None -- narrowing on a partial set would drop the
very function at fault.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SOURCE_EXTS = {".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".m", ".mm"}
OBJECT_EXTS = {".o", ".obj", ".lo"}
ARCHIVE_EXTS = {".a", ".lib"}
MAX_SESSIONS = 8
MAX_EVENTS = 200_000
_ARG_WITH_VALUE = {"-o", "-I", "-D", "-U", "-include", "-isystem", "-iquote", "-MF", "-MT", "-MQ", "-L", "-x",
                   "-Xlinker", "-arch", "-idirafter", "--sysroot", "-imacros", "-T"}


@dataclass
class Command:
    cwd: str
    output: str = ""
    compile_only: bool = False
    sources: list[str] = field(default_factory=list)
    objects: list[str] = field(default_factory=list)
    archives: list[str] = field(default_factory=list)


def parse_argv(argv: list[str], cwd: str) -> Command:
    """Inputs and output of one compiler command line (the compiler word itself skipped)."""
    cmd = Command(cwd=cwd)
    args = list(argv[1:])
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _ARG_WITH_VALUE:
            if arg == "-o" and i + 1 < len(args):
                cmd.output = _norm(cwd, args[i + 1])
            i += 2
            continue
        if arg == "-c":
            cmd.compile_only = True
        elif arg.startswith("-o") and len(arg) > 2:
            cmd.output = _norm(cwd, arg[2:])
        elif not arg.startswith("-"):
            suffix = Path(arg).suffix
            if suffix in SOURCE_EXTS or suffix.lower() in SOURCE_EXTS:
                cmd.sources.append(_norm(cwd, arg))
            elif suffix in OBJECT_EXTS:
                cmd.objects.append(_norm(cwd, arg))
            elif suffix in ARCHIVE_EXTS:
                cmd.archives.append(_norm(cwd, arg))
        i += 1
    if cmd.compile_only and not cmd.output and len(cmd.sources) == 1:
        cmd.output = _norm(cwd, Path(cmd.sources[0]).with_suffix(".o").name)
    return cmd


def _norm(cwd: str, path: str) -> str:
    return os.path.normpath(os.path.join(cwd, path))


def _from_event(data: dict[str, Any]) -> Command | None:
    argv, cwd = data.get("argv"), data.get("cwd")
    if not isinstance(argv, list) or not isinstance(cwd, str) or not argv:
        return None
    return parse_argv([str(a) for a in argv], cwd)


def load_commands(store: Path) -> list[Command]:
    """Every ccwrap-recorded command in the store: recent sessions and pending spool files."""
    store = Path(store)
    seen: set[tuple[str, tuple[str, ...]]] = set()
    out: list[Command] = []

    def add(data: dict[str, Any]) -> None:
        argv = data.get("argv")
        key = (str(data.get("cwd")), tuple(map(str, argv)) if isinstance(argv, list) else ())
        if key in seen:
            return
        cmd = _from_event(data)
        if cmd is not None:
            seen.add(key)
            out.append(cmd)

    sessions = store / "sessions"
    try:
        files = sorted(sessions.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)[:MAX_SESSIONS]
    except OSError:
        files = []
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                for n, line in enumerate(handle):
                    if n > MAX_EVENTS:
                        break
                    if '"argv"' not in line:
                        continue
                    try:
                        event = json.loads(line)
                    except ValueError:
                        continue
                    data = event.get("data") if isinstance(event, dict) else None
                    if isinstance(data, dict):
                        add(data)
        except OSError:
            continue
    try:
        spooled = sorted((store / "spool").glob("*.json"))
    except OSError:
        spooled = []
    for path in spooled:
        try:
            data = json.loads(path.read_text("utf-8", errors="replace"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            add(data)
    return out


def binary_sources(commands: list[Command], test_source: str) -> set[str] | None:
    """Absolute sources of the binary built from test_source, or None when not fully known."""
    test_source = os.path.normpath(test_source)
    obj_to_src: dict[str, str] = {}
    for cmd in commands:
        if cmd.compile_only and cmd.output and len(cmd.sources) == 1:
            obj_to_src[cmd.output] = cmd.sources[0]
    test_objects = {o for o, s in obj_to_src.items() if s == test_source}
    links = [
        c for c in commands
        if not c.compile_only and (test_source in c.sources or test_objects & set(c.objects))
    ]
    if not links:
        return None
    link = links[-1]  # the latest link of that binary
    out = set(link.sources)
    for obj in link.objects:
        src = obj_to_src.get(obj)
        if src is None:
            return None
        out.add(src)
    for archive in link.archives:
        members = _archive_members(archive, obj_to_src)
        if not members:
            if _is_project_archive(archive, link.cwd):
                return None  # a project library we cannot see into
            continue  # a system / prebuilt library (libgtest.a): not the user's code
        out.update(members)
    return out


def _archive_members(archive: str, obj_to_src: dict[str, str]) -> set[str]:
    name = Path(archive).name
    base = name[3:] if name.startswith("lib") else name
    base = base.rsplit(".", 1)[0]
    marker = f"{os.sep}CMakeFiles{os.sep}{base}.dir{os.sep}"
    return {src for obj, src in obj_to_src.items() if marker in obj}


def _is_project_archive(archive: str, cwd: str) -> bool:
    """An archive under the build directory (not /usr/lib): built by the project."""
    return archive.startswith(os.path.normpath(cwd) + os.sep) or not archive.startswith("/usr/")
