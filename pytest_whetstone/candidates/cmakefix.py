"""CMake configure errors: a target naming a source file that does not exist, a required package absent.

* ``Cannot find source file: src/betaa.c`` (``add_library`` / ``add_executable`` / ``target_sources``):
  the name is found in the CMakeLists.txt (inside the failing command, else in the ``set()`` that
  feeds it) and replaced by an existing file of a near name (one or two edits, or the same name in
  another directory), or dropped from the list.  Each edit is checked by configuring a scratch copy
  of the project (``cmake -S <copy> -B <scratch build>``: build files copied, sources symlinked);
  the user's tree and build directory are never touched.  Validated: the error is gone and no
  CMake error is new.
* ``find_package(X REQUIRED)`` of an absent package: advice naming the package, the Debian package
  (or the pip package) that provides its config, and the ``X_DIR`` / ``CMAKE_PREFIX_PATH`` hint; making
  it optional is a low-confidence note only (the project then builds without it).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from ..records import BuildErrorRecord, FixCandidate, TextEdit
from . import tables
from .buildctx import _Ctx
from .cfile import edit, levenshtein
from .common import edit_for, manual_for

_MISSING_SOURCE = re.compile(r"Cannot find source file:\s+(\S+)")
_SOURCE_EXT = (".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".cu", ".m", ".mm", ".h", ".hh", ".hpp", ".hxx", ".ixx",
               ".cppm", ".f", ".f90", ".F90", ".s", ".S", ".asm")
_SKIP_DIRS = {".git", ".hg", ".svn", ".whetstone", "node_modules", "__pycache__", ".venv", "venv"}
MAX_FILES = 20000
CONFIGURE_TIMEOUT_S = 120.0
# find_package names whose config a pip package ships, and how to point CMake at it.
PIP_CONFIGS: dict[str, tuple[str, str]] = {
    "pybind11": ("pybind11", "-Dpybind11_DIR=$(python -m pybind11 --cmakedir)"),
    "nanobind": ("nanobind", "-Dnanobind_DIR=$(python -m nanobind --cmake_dir)"),
    "Torch": ("torch", "-DCMAKE_PREFIX_PATH=$(python -c 'import torch; print(torch.utils.cmake_prefix_path)')"),
    "scikit_build_core": ("scikit-build-core", ""),
    "Python": ("(a Python with its headers: python3-dev)", ""),
}


# --------------------------------------------------------------------------- a missing source


def missing_source(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    match = _MISSING_SOURCE.search(record.message)
    if record.tool != "cmake" or match is None or not record.file_path:
        return []
    name = match.group(1)
    lists = Path(record.file_path)
    lists = lists if lists.is_absolute() else ctx.workspace / lists
    lines = ctx.lines(str(lists))
    if not lines or "${" in name or "$<" in name:
        return []
    site = _find_token(lines, record.line, name)
    if site is None:
        return []
    line_no, col = site
    base = lists.parent
    rel_lists = ctx.rel(str(lists))
    out: list[FixCandidate] = []
    for replacement, how, prior in _near_files(base, name):
        e = edit(rel_lists, line_no, col + 1, line_no, col + 1 + len(name), replacement)
        out.append(edit_for(record, f"list {replacement} instead of the missing {name} in {rel_lists}:{line_no} ({how})",
                            [e], mutation_type="replaceNode", confidence=prior, source="cmake-source",
                            missing=name, replacement=replacement))
    drop = _drop_edit(lines, rel_lists, line_no, col, name)
    out.append(edit_for(record, f"drop the missing {name} from the source list in {rel_lists}:{line_no}",
                        [drop], mutation_type="deleteNode", confidence=0.3, source="cmake-source", missing=name))
    _validate(ctx, record, lists, out)
    return out


def _find_token(lines: list[str], line_no: int, name: str) -> tuple[int, int] | None:
    """(1-based line, 0-based column) of ``name`` as a whole argument: in the failing command first
    (from its line to the closing parenthesis), else anywhere in the file (a ``set()`` feeding it)."""
    token = re.compile(r"(?<![\w./${}-])" + re.escape(name) + r"(?![\w./-])")

    def scan(start: int, stop: int) -> tuple[int, int] | None:
        for i in range(start, stop):
            m = token.search(lines[i].split("#", 1)[0])
            if m:
                return i + 1, m.start()
        return None

    if 0 < line_no <= len(lines):
        depth, end = 0, line_no - 1
        for end in range(line_no - 1, len(lines)):
            depth += lines[end].count("(") - lines[end].count(")")
            if depth <= 0 and "(" in "".join(lines[line_no - 1 : end + 1]):
                break
        hit = scan(line_no - 1, end + 1)
        if hit:
            return hit
    return scan(0, len(lines))


def _near_files(base: Path, name: str) -> list[tuple[str, str, float]]:
    """Existing files a missing ``name`` (relative to the CMakeLists.txt's directory) likely meant."""
    wanted = Path(name)
    folder = base / wanted.parent
    out: list[tuple[str, str, float]] = []
    if folder.is_dir():
        for entry in sorted(folder.iterdir()):
            if not entry.is_file() or entry.name == wanted.name or not entry.name.endswith(_SOURCE_EXT):
                continue
            distance = levenshtein(entry.name, wanted.name, 3)
            if distance <= 2:
                rel = (wanted.parent / entry.name).as_posix()
                out.append((rel, f"{distance} edit(s) from the name listed", 0.7 - 0.1 * distance))
    if not out:  # the same name elsewhere under this directory: the file moved
        seen = 0
        for root, dirs, files in os.walk(base):
            dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not (Path(root, d) / "CMakeCache.txt").exists()]
            seen += len(files)
            if seen > MAX_FILES:
                break
            if wanted.name in files:
                rel = Path(root, wanted.name).relative_to(base).as_posix()
                out.append((rel, "the same file name in another directory", 0.55))
    out.sort(key=lambda t: -t[2])
    return out[:3]


def _drop_edit(lines: list[str], rel: str, line_no: int, col: int, name: str) -> TextEdit:
    text = lines[line_no - 1]
    if text.strip() == name:  # alone on its line: the whole line goes
        return edit(rel, line_no, 1, line_no + 1, 1, "") if line_no < len(lines) else edit(rel, line_no, 1, line_no, len(text) + 1, "")
    start, end = col, col + len(name)
    while end < len(text) and text[end] in " \t":
        end += 1
    if end == len(text) or text[end] == ")":  # the last argument: take the blanks before it instead
        end = col + len(name)
        while start > 0 and text[start - 1] in " \t":
            start -= 1
    return edit(rel, line_no, start + 1, line_no, end + 1, "")


# --------------------------------------------------------------------------- validation by configure


def _project_root(ctx: _Ctx, lists: Path) -> Path:
    """The top-most directory with a CMakeLists.txt between the failing one and the workspace."""
    top = lists.parent
    workspace = ctx.workspace.resolve()
    here = lists.parent.resolve()
    while here != workspace and workspace in here.parents:
        here = here.parent
        if (here / "CMakeLists.txt").is_file():
            top = here
    return top


def _scratch_copy(root: Path, dest: Path) -> bool:
    """Build files copied (they are what an edit changes), every other file symlinked."""
    count = 0
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not (Path(dirpath, d) / "CMakeCache.txt").exists()]
        rel = Path(dirpath).relative_to(root)
        (dest / rel).mkdir(parents=True, exist_ok=True)
        for f in files:
            count += 1
            if count > MAX_FILES:
                return False
            src = Path(dirpath, f)
            if f == "CMakeLists.txt" or f.endswith((".cmake", ".in")):
                shutil.copy2(src, dest / rel / f)
            else:
                os.symlink(src.resolve(), dest / rel / f)
    return True


def _configure(src: Path, build: Path) -> tuple[int, str] | None:
    try:
        proc = subprocess.run(["cmake", "-S", str(src), "-B", str(build)], capture_output=True, text=True,
                              timeout=CONFIGURE_TIMEOUT_S, env={**os.environ, "LC_ALL": "C.UTF-8"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.returncode, proc.stdout + proc.stderr


def _errors(output: str, src: Path) -> list[tuple[str, int, str]]:
    from ..parse import parse_text

    out = []
    for r in parse_text(output, "cmake", cwd=str(src)).build_errors:
        if r.severity == "error":
            where = os.path.relpath(r.file_path, src) if r.file_path.startswith(str(src)) else r.file_path
            out.append((where, r.line, re.sub(r"\s+", " ", r.message)[:300]))
    return out


def _validate(ctx: _Ctx, record: BuildErrorRecord, lists: Path, cands: list[FixCandidate]) -> None:
    """Configure a scratch copy as it is, then with each edit; mark what removes the error."""
    if shutil.which("cmake") is None or not cands:
        return
    from ..edits import plan

    root = _project_root(ctx, lists)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="whetstone-cmake-") as tmp:
        src, build = Path(tmp, "src"), Path(tmp, "build")
        if not _scratch_copy(root, src):
            return
        before_run = _configure(src, build)
        if before_run is None:
            return
        before = _errors(before_run[1], src)
        target = (os.path.relpath(lists, root), record.line, re.sub(r"\s+", " ", record.message)[:300])
        if target not in before:
            return  # the error does not reproduce in the copy: leave the priors
        for cand in cands:
            if time.monotonic() - started > 60:
                break
            try:
                planned = plan(cand.edits, ctx.workspace)
            except Exception:  # noqa: BLE001 - an edit that does not apply is not validated
                continue
            originals: dict[Path, bytes] = {}
            for p in planned:
                copy = src / Path(p.path).resolve().relative_to(root.resolve())
                originals[copy] = copy.read_bytes()
                copy.write_bytes(p.after)
            after_run = _configure(src, build)
            for copy, data in originals.items():
                copy.write_bytes(data)
            if after_run is None:
                continue
            after = _errors(after_run[1], src)
            new = [e for e in after if e not in before]
            # the error is gone, nothing new, and nothing else is left at the failing command
            # (cmake's "No SOURCES given to target" follows a missing source there)
            if not new and not any(e[:2] == target[:2] for e in after):
                cand.validated = True
                cand.mutation["validation"] = {"by": "cmake-configure", "covered": "configured a scratch copy: the error is gone, no new CMake error",
                                               "errors_before": len(before), "errors_after": len(after)}
            else:
                cand.mutation["validation"] = {"by": "cmake-configure", "result": "rejected",
                                               "errors_before": len(before), "errors_after": len(after)}
                cand.confidence = round(cand.confidence * 0.5, 3)


# --------------------------------------------------------------------------- a required package


def required_package(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """find_package(X REQUIRED) found nothing: how to provide X, then (low) making it optional."""
    if record.tool != "cmake" or record.function != "find_package" or not record.symbol:
        return []
    name = record.symbol
    out: list[FixCandidate] = []
    hint = f"-D{name}_DIR=<dir with {name}Config.cmake> or -DCMAKE_PREFIX_PATH=<its install prefix>"
    apt = tables.apt_package_for(name)
    pip = PIP_CONFIGS.get(name)
    if pip is not None and not pip[0].startswith("("):
        how = f"pip install {pip[0]}" + (f", then configure with {pip[1]}" if pip[1] else "")
        out.append(manual_for(record, f"find_package({name}) needs {name}'s CMake config: {how}", confidence=0.55,
                              package=name, pip=pip[0], hint=pip[1] or hint, source_line=record.line))
    if apt:
        out.append(manual_for(record, f"find_package({name}) needs {name}'s CMake config: apt-get install {apt} "
                              f"(or, if it is installed elsewhere, {hint})", confidence=0.6, package=name, apt=apt,
                              command=f"apt-get install -y {apt}", hint=hint))
    elif pip is None:
        out.append(manual_for(record, f"find_package({name}) found no {name}: install the package that provides "
                              f"{name}Config.cmake (or Find{name}.cmake), or point CMake at it: {hint}",
                              confidence=0.35, package=name, hint=hint))
    lines = ctx.lines(record.file_path)
    call = lines[record.line - 1].strip() if lines and 0 < record.line <= len(lines) else f"find_package({name} REQUIRED)"
    if "REQUIRED" in call:
        out.append(manual_for(record, f"only if the project can build without {name}: drop REQUIRED from `{call}` "
                              f"and guard what uses it with if({name}_FOUND)", confidence=0.05, package=name,
                              optional=True))
    return out
