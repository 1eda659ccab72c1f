"""Check a C/C++ candidate by recompiling its one translation unit (``-fsyntax-only``, scratch copy).

The command is the one ccwrap recorded for that source (its ``build_errors``
events carry ``argv``/``cwd``/``compiler``); without a recorded command there is
nothing trustworthy to compile with and the check does not run.  The user's
files are never touched: the edited source is written to a temporary directory
and compiled from there, with ``-iquote`` on the original directory so its
``"local.h"`` includes still resolve; outputs (``-o``, dependency files) are
dropped (an unused function, which gcc reports only when it generates code, is
compiled to a scratch object instead).  A candidate passes when its target diagnostic is gone and the
compiler reports no error the build did not already have.

:func:`check_in_translation_unit` is the one entry point, so a general per-file
gate can replace it without touching the generators.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..edits import EditError, apply_edits_text
from ..records import BuildErrorRecord, FixCandidate

CHECK_TIMEOUT_S = 30.0
MAX_SESSIONS = 4  # the most recent session files searched for the recorded command
_DROP_WITH_VALUE = {"-o", "-MF", "-MT", "-MQ"}
_DROP = {"-c", "-S", "-E", "-M", "-MM", "-MD", "-MMD", "-MP", "-fsyntax-only"}
_SOURCE_EXTS = {".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".m", ".mm"}


@dataclass
class TuCheck:
    ran: bool = False
    passed: bool = False
    detail: str = ""


@dataclass
class CompileCommand:
    argv: list[str]  # the real compiler first
    cwd: str
    source: str  # absolute


def check_in_translation_unit(
    candidate: FixCandidate, record: BuildErrorRecord, build_errors: list[BuildErrorRecord], workspace: Path
) -> TuCheck:
    """Recompile the edited translation unit on a scratch copy; TuCheck(ran=False) when that is not possible."""
    files = {e.file_path for e in candidate.edits}
    if len(files) != 1:
        return TuCheck()
    rel = files.pop()
    source = (Path(workspace) / rel).resolve()
    command = recorded_command(Path(workspace), source)
    if command is None:
        return TuCheck()
    try:
        text = source.read_text(encoding="utf-8")
        edited = apply_edits_text(text, candidate.edits, rel)
    except (OSError, UnicodeDecodeError, EditError):
        return TuCheck()
    # gcc reports some diagnostics (an unused static function) only when it generates code
    syntax_only = "unused-function" not in record.error_code
    stderr, code = _compile(command, edited, syntax_only)
    if code is None:
        return TuCheck()
    from ..parse import parse_text

    tool = "clang" if "clang" in os.path.basename(command.argv[0]) else "gcc"
    found = [e for e in parse_text(stderr, tool=tool).build_errors if e.is_failure]
    before = {_key(e) for e in build_errors if e.is_failure}
    still = [e for e in found if _key(e) == _key(record)]
    new = [e for e in found if _key(e) not in before]
    if still or new:
        what = f"'{(still or new)[0].message[:80]}' remains" if still else f"new error '{new[0].message[:80]}'"
        return TuCheck(ran=True, passed=False, detail=what)
    how = "-fsyntax-only" if syntax_only else "-c to a scratch object"
    return TuCheck(ran=True, passed=True, detail=f"{rel} recompiled with its build command ({how})")


def _key(record: BuildErrorRecord) -> tuple[str, str]:
    """A diagnostic's identity across locales (gcc quotes with ‘…’ or '…') and moved lines."""
    return record.message.replace("\u2018", "'").replace("\u2019", "'"), record.error_code


def recorded_command(workspace: Path, source: Path) -> CompileCommand | None:
    """The latest command ccwrap recorded for compiling ``source`` (bounded: a few recent sessions)."""
    from ..store.sessions import find_store

    try:
        store = find_store(workspace, create=False)
        files = sorted((store / "sessions").glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return None
    target = os.path.normpath(str(source))
    for path in files[:MAX_SESSIONS]:
        found: CompileCommand | None = None
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    if '"argv"' not in line or os.path.basename(target) not in line:
                        continue
                    command = _command_of(line, target)
                    if command is not None:
                        found = command  # keep the latest in the file
        except OSError:
            continue
        if found is not None:
            return found
    return None


def _command_of(line: str, target: str) -> CompileCommand | None:
    try:
        event = json.loads(line)
    except ValueError:
        return None
    data = event.get("data") if isinstance(event, dict) else None
    if not isinstance(data, dict) or event.get("event") != "build_errors":
        return None
    argv, cwd, compiler = data.get("argv"), data.get("cwd"), data.get("compiler")
    if not isinstance(argv, list) or not isinstance(cwd, str) or not isinstance(compiler, str) or not compiler:
        return None
    args = [str(a) for a in argv]
    while args and os.path.basename(args[0]).startswith("ccwrap"):
        args = args[1:]
    if args and not args[0].startswith("-") and Path(args[0]).suffix not in _SOURCE_EXTS:
        args = args[1:]  # the compiler word ccwrap was given
    sources = [a for a in args if not a.startswith("-") and Path(a).suffix in _SOURCE_EXTS]
    if len(sources) != 1 or os.path.normpath(os.path.join(cwd, sources[0])) != target:
        return None
    return CompileCommand([compiler, *args], cwd, target)


def _compile(command: CompileCommand, text: str, syntax_only: bool = True) -> tuple[str, int | None]:
    original_dir = os.path.dirname(command.source)
    with tempfile.TemporaryDirectory(prefix="whetstone-tu-") as scratch:
        copy = os.path.join(scratch, os.path.basename(command.source))
        with open(copy, "w", encoding="utf-8") as handle:
            handle.write(text)
        mode = ["-fsyntax-only"] if syntax_only else ["-c", "-o", os.path.join(scratch, "check.o")]
        argv = [command.argv[0], *mode, "-iquote", original_dir]
        args = command.argv[1:]
        i = 0
        while i < len(args):
            arg = args[i]
            if arg in _DROP_WITH_VALUE:
                i += 2
                continue
            if arg in _DROP or (arg.startswith("-o") and len(arg) > 2) or arg.startswith(("-MF", "-MT", "-MQ")):
                i += 1
                continue
            if not arg.startswith("-") and os.path.normpath(os.path.join(command.cwd, arg)) == command.source:
                arg = copy
            argv.append(arg)
            i += 1
        try:
            proc = subprocess.run(
                argv, cwd=command.cwd, capture_output=True, text=True, errors="replace",
                timeout=CHECK_TIMEOUT_S, stdin=subprocess.DEVNULL,
                env={**os.environ, "LC_ALL": "C"},
            )
        except (OSError, subprocess.SubprocessError):
            return "", None
    return proc.stderr, proc.returncode
