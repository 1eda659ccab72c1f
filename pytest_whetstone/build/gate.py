"""The per-file gate: re-check edited C/C++ text with the recorded command, outside the user's tree.

``gate_check(changes, workspace, store)`` takes edits (``TextEdit`` lists, applied in memory),
a ``{path: new text}`` mapping, or plain paths (their current text), and for each translation
unit they touch runs its recorded command (``build.compdb``) in syntax-only mode: output and
dependency flags dropped, ``-fsyntax-only`` added, the compiler's fix-its asked for.  Edited
files live in a scratch mirror: the directories holding them are mirrored with symlinks to
every other file, the edited files written for real, and the mirror directories put in front
of the originals on the include path, so ``#include "x.h"`` resolves to the edited text and
everything else to the user's files, which are never written.  An edited header re-checks the
units that include it (dependency files, else ``#include`` lines; a sample when there are
many).  The diagnostics come back through the project's own gcc/clang parser with the
scratch paths mapped back to the real ones.

``relink`` does the same for link errors: edited units compiled into scratch objects, the
recorded link command re-run with them (and any added sources) into a scratch output.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..records import BuildErrorRecord, TextEdit
from .compdb import Command, CompileDatabase

HEADER_EXT = (".h", ".hh", ".hpp", ".hxx", ".H", ".inc", ".inl", ".tcc", ".ipp")
MAX_UNITS_PER_HEADER = 4
UNIT_TIMEOUT_S = 60.0
MAX_ERRORS = 50
# Flags that write files or shape them; the gate checks, it never produces.
_DROP_WITH_VALUE = frozenset(["-o", "-MF", "-MT", "-MQ", "-MJ", "-dumpdir", "-dumpbase"])
_DROP = frozenset(["-c", "-S", "-E", "-MD", "-MMD", "-M", "-MM", "-MG", "-MP", "-save-temps", "-fsyntax-only", "-pipe"])
_DROP_PREFIX = ("-Wp,-MD,", "-Wp,-MMD,", "-save-temps=", "-ftime-trace", "-fdiagnostics-color", "-fcolor-diagnostics",
                "-fdiagnostics-format=", "-fmax-errors=", "-ferror-limit=", "-fprofile-generate", "-fprofile-arcs",
                "-fdump-", "-o")
_INCLUDE_FLAGS = ("-I", "-iquote", "-isystem", "-idirafter")

Changes = Mapping[str, str] | Iterable[TextEdit] | Iterable[str | Path]


@dataclass
class UnitCheck:
    """One translation unit re-checked after the edit."""

    source: str
    command: list[str]
    directory: str
    exit_code: int
    errors: list[BuildErrorRecord] = field(default_factory=list)
    diagnostics: list[BuildErrorRecord] = field(default_factory=list)  # errors and warnings
    seconds: float = 0.0
    output: str = ""


@dataclass
class GateResult:
    """What the gate found: per unit, and one line when something kept it from checking."""

    units: list[UnitCheck] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)  # edited files no recorded command covers
    message: str = ""
    seconds: float = 0.0

    @property
    def checked(self) -> bool:
        return bool(self.units)

    @property
    def ok(self) -> bool:
        """Every checked unit compiles without an error (False when nothing could be checked)."""
        return bool(self.units) and all(u.exit_code == 0 and not u.errors for u in self.units)

    @property
    def errors(self) -> list[BuildErrorRecord]:
        return [e for u in self.units for e in u.errors]


class Gate:
    """A scratch area plus caches for many checks against one workspace and compile database."""

    def __init__(self, workspace: Path, db: CompileDatabase, *, timeout_s: float = UNIT_TIMEOUT_S) -> None:
        self.workspace = Path(workspace).resolve()
        self.db = db
        self.timeout_s = timeout_s
        self._scratch: Path | None = None
        self._counter = 0
        self.checks = 0
        self.seconds = 0.0

    def close(self) -> None:
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def __enter__(self) -> Gate:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------- inputs

    def texts(self, changes: Changes) -> dict[Path, str | None]:
        """{real path: edited text, or None for 'as on disk'}."""
        if isinstance(changes, Mapping):
            return {self._abs(p): t for p, t in changes.items()}
        items = list(changes)
        if items and all(isinstance(i, TextEdit) for i in items):
            from ..edits import plan

            return {p.path: p.after.decode("utf-8") for p in plan(items, self.workspace)}  # type: ignore[arg-type]
        return {self._abs(str(p)): None for p in items}

    def _abs(self, path: str | Path) -> Path:
        p = Path(path)
        return Path(os.path.realpath(p if p.is_absolute() else self.workspace / p))

    # ----------------------------------------------------------------- check

    def check(self, changes: Changes) -> GateResult:
        started = time.monotonic()
        result = GateResult()
        try:
            texts = self.texts(changes)
        except Exception as exc:  # noqa: BLE001 - an edit that cannot apply is one clear line
            result.message = f"the edits do not apply: {exc}"
            return result
        units: dict[str, Command] = {}
        notes: list[str] = []
        for path in texts:
            found = self.db.for_source(path)
            if found:
                units.setdefault(str(path), found[0])
                continue
            if path.suffix in HEADER_EXT or not found:
                including = self.db.including(path, limit=10_000)
                if including:
                    if len(including) > MAX_UNITS_PER_HEADER:
                        notes.append(f"{path.name} is included by {len(including)} units; checked {MAX_UNITS_PER_HEADER}")
                    for command in _spread(including, MAX_UNITS_PER_HEADER):
                        units.setdefault(command.sources[0], command)
                    continue
            result.unchecked.append(str(path))
        edited = {p: t for p, t in texts.items() if t is not None}
        for source, command in units.items():
            result.units.append(self._check_unit(source, command, edited))
        failed = [u for u in result.units if u.exit_code < 0]
        if failed:
            notes.append(failed[0].output)
        if result.unchecked and not units:
            notes.append("no recorded compile command covers " + ", ".join(Path(p).name for p in result.unchecked[:3])
                         + " (build once through ccwrap)")
        result.message = "; ".join(notes)
        result.seconds = time.monotonic() - started
        return result

    def _check_unit(self, source: str, command: Command, edited: Mapping[Path, str]) -> UnitCheck:
        started = time.monotonic()
        scratch = self._mirror(edited, Path(source))
        args = syntax_only_args(command, source, scratch, self.workspace)
        env = dict(os.environ, LC_ALL="C.UTF-8")
        env.pop("WHETSTONE_CCWRAP_DEPTH", None)
        if command.family != "clang" and "-fdiagnostics-parseable-fixits" not in args:
            env["GCC_EXTRA_DIAGNOSTIC_OUTPUT"] = "fixits-v1"
        unit = UnitCheck(source=source, command=args, directory=command.directory, exit_code=-1)
        try:
            proc = subprocess.run(args, cwd=command.directory, env=env, capture_output=True, timeout=self.timeout_s,
                                  stdin=subprocess.DEVNULL, check=False)
        except FileNotFoundError:
            unit.output = f"the recorded command no longer runs: {args[0]} not found"
        except OSError as exc:
            unit.output = f"the recorded command no longer runs: {args[0]}: {exc.strerror}"
        except subprocess.TimeoutExpired:
            unit.output = f"the check of {Path(source).name} took over {self.timeout_s:.0f} s"
        else:
            unit.exit_code = proc.returncode
            text = (proc.stderr + proc.stdout).decode("utf-8", "replace")
            if scratch is not None:
                text = text.replace(str(scratch), "")  # the mirror holds absolute paths under its root
            unit.output = text
            unit.diagnostics = parse_diagnostics(text, command.family, command.directory)
            unit.errors = [d for d in unit.diagnostics if d.is_failure]
            if proc.returncode != 0 and not unit.errors and ("No such file" in text or "unrecognized" in text):
                unit.output = "the recorded command no longer runs: " + text.strip().splitlines()[0][:200]
                unit.exit_code = -1
        unit.seconds = time.monotonic() - started
        self.checks += 1
        self.seconds += unit.seconds
        return unit

    # ----------------------------------------------------------------- scratch mirror

    def _mirror(self, edited: Mapping[Path, str], source: Path) -> Path | None:
        """A fresh scratch root holding mirrors of the edited files' directories (and the unit's)."""
        if not edited:
            return None
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="whetstone-gate-"))
        self._counter += 1
        root = self._scratch / str(self._counter)
        dirs = {Path(os.path.realpath(source)).parent, *(p.parent for p in edited)}
        # deepest first: a mirrored directory inside another is made a real directory before its parent's
        # entries are linked, or the parent's link to the user's directory would stand in for it (an edited
        # file written there would land in the user's tree, and `../x` from a file there would leave the mirror)
        for directory in sorted(dirs, key=lambda d: len(d.parts), reverse=True):
            target = root / directory.relative_to("/")
            target.mkdir(parents=True, exist_ok=True)
            try:
                names = os.listdir(directory)
            except OSError:
                names = []
            for name in names:
                link = target / name
                if not link.exists():
                    try:
                        link.symlink_to(directory / name)
                    except OSError:
                        pass
        real_root = os.path.realpath(root)
        for path, text in edited.items():
            target = root / path.relative_to("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            if not os.path.realpath(target.parent).startswith(real_root + os.sep):
                raise OSError(f"the scratch copy of {path.parent} is not the scratch's own: not written")
            if target.is_symlink() or target.exists():
                target.unlink()
            target.write_text(text, encoding="utf-8", errors="surrogateescape")  # non-UTF-8 bytes kept
        return root


    # ----------------------------------------------------------------- relink

    def relink(self, changes: Changes, *, link: Command | None = None, added_sources: Iterable[str | Path] = ()) -> GateResult:
        """Compile the changed units into scratch objects and re-run the recorded link with them
        (plus objects of ``added_sources``) into a scratch output; the link's diagnostics."""
        started = time.monotonic()
        result = GateResult()
        try:
            texts = self.texts(changes)
        except Exception as exc:  # noqa: BLE001
            result.message = f"the edits do not apply: {exc}"
            return result
        edited = {p: t for p, t in texts.items() if t is not None}
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="whetstone-gate-"))
        self._counter += 1
        objdir = self._scratch / f"obj{self._counter}"
        objdir.mkdir(parents=True)
        replaced: dict[str, str] = {}
        extra: list[str] = []
        units = [(str(p), self.db.for_source(p)) for p in texts]
        units += [(str(self._abs(s)), self.db.for_source(self._abs(s)) or self._sibling_command(self._abs(s)))
                  for s in added_sources]
        added = {str(self._abs(s)) for s in added_sources}
        for source, found in units:
            if not found:
                if source in added or Path(source).suffix not in HEADER_EXT:
                    result.unchecked.append(source)
                continue
            command = found[0]
            obj = objdir / f"{len(replaced) + len(extra)}-{Path(source).stem}.o"
            unit = self.compile_object(source, command, edited, obj)
            result.units.append(unit)
            if unit.exit_code != 0:
                result.message = unit.output.strip().splitlines()[0][:200] if unit.exit_code < 0 and unit.output else ""
                result.seconds = time.monotonic() - started
                return result
            if source in added or not command.output:
                extra.append(str(obj))
            else:
                replaced[os.path.realpath(command.output)] = str(obj)
        if link is None:
            for out in replaced:
                link = self.db.link_of(out)
                if link is not None:
                    break
        if link is None:
            links = self.db.links()
            link = links[0] if links else None
        if link is None:
            result.message = "no recorded link command to re-run"
            result.seconds = time.monotonic() - started
            return result
        args = _relink_args(link, replaced, extra, objdir / "linked")
        env = dict(os.environ, LC_ALL="C.UTF-8")
        env.pop("WHETSTONE_CCWRAP_DEPTH", None)
        unit = UnitCheck(source=link.output or "", command=args, directory=link.directory, exit_code=-1)
        t0 = time.monotonic()
        try:
            proc = subprocess.run(args, cwd=link.directory, env=env, capture_output=True, timeout=self.timeout_s,
                                  stdin=subprocess.DEVNULL, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            unit.output = f"the recorded link command no longer runs: {exc}"
            result.message = unit.output
        else:
            unit.exit_code = proc.returncode
            unit.output = (proc.stderr + proc.stdout).decode("utf-8", "replace")
            unit.diagnostics = parse_diagnostics(unit.output, link.family, link.directory)
            unit.errors = [d for d in unit.diagnostics if d.is_failure]
        unit.seconds = time.monotonic() - t0
        self.checks += 1
        self.seconds += unit.seconds
        result.units.append(unit)
        result.seconds = time.monotonic() - started
        return result

    def _sibling_command(self, source: Path) -> list[Command]:
        """A source with no command of its own compiles like its neighbours: a sibling's command,
        the source swapped in (the output goes to a scratch object anyway)."""
        for other in self.db.sources():
            if Path(other).parent == source.parent and Path(other).suffix == source.suffix:
                command = self.db.for_source(other)[0]
                swapped = [str(source) if os.path.realpath(os.path.join(command.directory, a)) == other else a
                           for a in command.arguments]
                return [Command(command.directory, swapped, command.compiler, command.family, [str(source)], None, False)]
        return []

    def compile_object(self, source: str, command: Command, edited: Mapping[Path, str], obj: Path,
                       extra_args: tuple[str, ...] = ()) -> UnitCheck:
        started = time.monotonic()
        scratch = self._mirror(edited, Path(source)) if edited else None
        args = syntax_only_args(command, source, scratch, self.workspace, object_out=obj) + list(extra_args)
        env = dict(os.environ, LC_ALL="C.UTF-8")
        env.pop("WHETSTONE_CCWRAP_DEPTH", None)
        unit = UnitCheck(source=source, command=args, directory=command.directory, exit_code=-1)
        try:
            proc = subprocess.run(args, cwd=command.directory, env=env, capture_output=True, timeout=self.timeout_s,
                                  stdin=subprocess.DEVNULL, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            unit.output = f"the recorded command no longer runs: {exc}"
        else:
            unit.exit_code = proc.returncode
            text = (proc.stderr + proc.stdout).decode("utf-8", "replace")
            unit.output = text.replace(str(scratch), "") if scratch is not None else text
            unit.diagnostics = parse_diagnostics(unit.output, command.family, command.directory)
            unit.errors = [d for d in unit.diagnostics if d.is_failure]
        unit.seconds = time.monotonic() - started
        self.checks += 1
        self.seconds += unit.seconds
        return unit


def _relink_args(link: Command, replaced: Mapping[str, str], extra: list[str], output: Path) -> list[str]:
    """The recorded link with replaced objects, extra objects after the last object, scratch output."""
    args = link.arguments
    out = [args[0]]
    last_obj = 0
    i = 1
    while i < len(args):
        arg = args[i]
        if arg == "-o" and i + 1 < len(args):
            out += ["-o", str(output)]
            i += 2
            continue
        if arg.startswith("-o") and len(arg) > 2:
            out += ["-o", str(output)]
            i += 1
            continue
        if not arg.startswith("-"):
            real = os.path.realpath(os.path.join(link.directory, arg))
            out.append(replaced.get(real, arg))
            last_obj = len(out)
        else:
            out.append(arg)
        i += 1
    if extra:
        at = last_obj or len(out)
        out[at:at] = extra
    return out


def _spread(items: list[Command], n: int) -> list[Command]:
    if len(items) <= n:
        return items
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def syntax_only_args(command: Command, source: str, scratch: Path | None, workspace: Path,
                     object_out: Path | None = None) -> list[str]:
    """The recorded compile command, checking instead of producing (or, with ``object_out``,
    compiling into that scratch object); sources and include directories redirected into the
    scratch mirror where it has them."""
    args = command.arguments
    out = [args[0]]
    real_source = os.path.realpath(source)
    i = 1
    while i < len(args):
        arg = args[i]
        if arg in _DROP_WITH_VALUE:
            i += 2
            continue
        if arg in _DROP or arg.startswith(_DROP_PREFIX):
            i += 1
            continue
        flag, value = _include_flag(arg, args[i + 1] if i + 1 < len(args) else None)
        if flag:
            mirrored = _mirrored(scratch, command.directory, value)
            if mirrored is not None:
                out += [flag, mirrored]
            out += [flag, value]
            i += 1 if arg != flag else 2
            continue
        if command.is_link and _other_input(arg, command.directory, real_source):
            i += 1  # a one-step compile and link: check this source alone, link nothing
            continue
        if not arg.startswith("-") and os.path.realpath(os.path.join(command.directory, arg)) == real_source:
            if scratch is not None:
                out += ["-iquote", str(Path(real_source).parent), str(scratch / real_source.lstrip("/"))]
            else:
                out.append(arg)
            i += 1
            continue
        out.append(arg)
        i += 1
    family = command.family
    if object_out is not None:
        out += ["-c", "-o", str(object_out)]
    else:
        out.append("-fsyntax-only")
    out.append("-fno-diagnostics-color" if family != "clang" else "-fno-color-diagnostics")
    if family == "clang":
        if "-fdiagnostics-parseable-fixits" not in out:
            out.append("-fdiagnostics-parseable-fixits")
        out.append(f"-ferror-limit={MAX_ERRORS}")
    else:
        out.append(f"-fmax-errors={MAX_ERRORS}")
    return out


_INPUT_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".m", ".mm", ".s", ".S", ".o", ".a", ".so", ".lo")


def _other_input(arg: str, directory: str, real_source: str) -> bool:
    """Another source, an object or a library of a one-step compile-and-link command."""
    if arg.startswith("-l"):
        return True
    if arg.startswith("-") or not arg.endswith(_INPUT_SUFFIXES):
        return False
    return os.path.realpath(os.path.join(directory, arg)) != real_source


def _include_flag(arg: str, nxt: str | None) -> tuple[str, str]:
    for flag in _INCLUDE_FLAGS:
        if arg == flag and nxt is not None:
            return flag, nxt
        if arg.startswith(flag) and len(arg) > len(flag) and not (flag == "-I" and arg.startswith("-I-")):
            if flag == "-I" and any(arg.startswith(f) for f in _INCLUDE_FLAGS[1:]):
                continue
            return flag, arg[len(flag):]
    return "", ""


def _mirrored(scratch: Path | None, directory: str, value: str) -> str | None:
    if scratch is None:
        return None
    real = os.path.realpath(os.path.join(directory, value))
    mirror = scratch / real.lstrip("/")
    return str(mirror) if mirror.is_dir() else None


def parse_diagnostics(text: str, family: str, cwd: str) -> list[BuildErrorRecord]:
    from ..parse import parse_text

    tool = "clang" if family == "clang" else "gcc"
    return list(parse_text(text, tool, cwd=cwd).build_errors)


def gate_check(
    changes: Changes,
    workspace: Path | str,
    store: Path | str | None = None,
    *,
    db: CompileDatabase | None = None,
) -> GateResult:
    """Re-check the translation units the changes touch; see the module docstring.

    ``changes``: a list of TextEdit (applied in memory), ``{path: new text}``, or paths whose
    current text is checked (after the loop wrote them).  ``store``: where ccwrap recorded the
    commands (default: the workspace's store)."""
    if db is None:
        if store is None:
            from ..store.sessions import find_store

            store = find_store(Path(workspace))
        db = CompileDatabase.from_store(store)
    with Gate(Path(workspace), db) as gate:
        if not db:
            return GateResult(message="no compile commands recorded in the store (build once through ccwrap)")
        return gate.check(changes)
