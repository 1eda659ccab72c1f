"""Environment probe and requirements gap: what the toolchain is, what the project needs that is missing.

The probe only *looks*: versions via ``--version`` (short timeout), Python
distributions via ``importlib.metadata``, executables via ``shutil.which``.
It never installs anything; a gap becomes a setup script for a human
(``escalate.write_setup_script``).

Gap entries are dicts ``{kind, name, detail, install: {pip|apt: name}}`` with
kind one of ``python`` (a distribution), ``python-module`` (an import that
failed at test time), ``executable``, ``header`` (a system header the last
build could not find) and ``cmake-package``.
"""

from __future__ import annotations

import importlib.metadata as metadata
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .. import paths
from ..records import BuildErrorRecord, TestFailureRecord

_VERSION_TIMEOUT = 5.0
_SKIP_DIRS = paths.SKIP_DIRS | {"build"}  # the project's own requirement files, not vendored ones
# Executables that are shell syntax, not programs to look up.
_BUILTINS = {"cd", "export", "env", "true", "false", ":", "test", "[", "exec", "set", "source", ".", "echo",
             "if", "then", "for", "while", "do", "!", "time", "command", "eval", "exit", "nice", "timeout"}
# Debian packages for common executables (the gap names them; a human installs them).
_EXEC_APT = {
    "make": "make", "cmake": "cmake", "ctest": "cmake", "ninja": "ninja-build", "gcc": "gcc", "cc": "gcc",
    "g++": "g++", "c++": "g++", "clang": "clang", "clang++": "clang", "ccache": "ccache",
    "pkg-config": "pkg-config", "node": "nodejs", "npm": "npm", "npx": "npm", "git": "git",
    "python3": "python3", "meson": "meson", "autoconf": "autoconf", "automake": "automake",
}
_EXEC_PIP = {"pytest": "pytest", "tox": "tox", "nox": "nox", "ccwrap": "whetstone", "ccwrap++": "whetstone",
             "whetstone": "whetstone", "ruff": "ruff", "mypy": "mypy"}
# Debian packages for system headers (beyond the CMake package table of the candidates).
_HEADER_APT = {
    "zlib.h": "zlib1g-dev", "openssl/ssl.h": "libssl-dev", "openssl/evp.h": "libssl-dev",
    "curl/curl.h": "libcurl4-openssl-dev", "png.h": "libpng-dev", "sqlite3.h": "libsqlite3-dev",
    "gtest/gtest.h": "libgtest-dev", "gmock/gmock.h": "libgmock-dev", "jpeglib.h": "libjpeg-dev",
    "yaml.h": "libyaml-dev", "ffi.h": "libffi-dev", "bzlib.h": "libbz2-dev", "lzma.h": "liblzma-dev",
    "expat.h": "libexpat1-dev", "readline/readline.h": "libreadline-dev", "ncurses.h": "libncurses-dev",
    "curses.h": "libncurses-dev", "uuid/uuid.h": "uuid-dev", "pcre.h": "libpcre3-dev", "pcre2.h": "libpcre2-dev",
    "libxml/parser.h": "libxml2-dev", "event2/event.h": "libevent-dev", "uv.h": "libuv1-dev",
    "gmp.h": "libgmp-dev", "mpfr.h": "libmpfr-dev", "fftw3.h": "libfftw3-dev", "hdf5.h": "libhdf5-dev",
    "boost/version.hpp": "libboost-dev", "Eigen/Dense": "libeigen3-dev", "eigen3/Eigen/Dense": "libeigen3-dev",
    "archive.h": "libarchive-dev", "zstd.h": "libzstd-dev", "lz4.h": "liblz4-dev", "systemd/sd-daemon.h": "libsystemd-dev",
}
_MISSING_HEADER = (
    re.compile(r"fatal error: ([^:\s]+): No such file or directory"),
    re.compile(r"fatal error: '([^']+)' file not found"),
    re.compile(r"^([^:\s]+): No such file or directory"),
    re.compile(r"'([^']+)' file not found"),
)
_CMAKE_MISSING = (
    re.compile(r"Could NOT find (\w[\w.+-]*)"),
    re.compile(r"By not providing \"Find(\w[\w.+-]*)\.cmake\""),
    re.compile(r"Could not find a package configuration file provided by\s+\"(\w[\w.+-]*)\""),
)
_FIND_PACKAGE = re.compile(r"^\s*find_package\s*\(\s*([A-Za-z0-9_.+-]+)([^)]*)\)", re.IGNORECASE | re.MULTILINE)
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")


# --------------------------------------------------------------------------- the snapshot


def _version_of(path: str) -> str:
    try:
        proc = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=_VERSION_TIMEOUT,
            stdin=subprocess.DEVNULL, errors="replace",
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    text = (proc.stdout or proc.stderr).strip()
    return text.splitlines()[0][:200] if text else ""


def _is_ccwrap(path: str) -> bool:
    real = os.path.basename(os.path.realpath(path))
    return real.startswith("ccwrap") or os.path.basename(path).startswith("ccwrap")


def resolve_compiler(names: Iterable[str], env_var: str) -> str | None:
    """The real compiler a build would use: $CC/$CXX (minus a ccwrap launcher), else PATH, skipping ccwrap."""
    wanted = os.environ.get(env_var, "")
    words = [w for w in shlex.split(wanted) if not _is_ccwrap(w) and w != "ccache"] if wanted else []
    candidates = words[:1] + list(names)
    for name in candidates:
        for directory in os.environ.get("PATH", "").split(os.pathsep):
            path = os.path.join(directory or ".", name)
            if os.path.isfile(path) and os.access(path, os.X_OK) and not _is_ccwrap(path):
                return path
    return None


def probe_environment() -> dict[str, Any]:
    """A snapshot of the toolchain: python, pytest, the resolved cc/c++, cmake, make, ninja."""
    tools: dict[str, Any] = {}
    for key, path in (
        ("cc", resolve_compiler(("cc", "gcc", "clang"), "CC")),
        ("cxx", resolve_compiler(("c++", "g++", "clang++"), "CXX")),
        ("cmake", shutil.which("cmake")),
        ("make", shutil.which("make")),
        ("ninja", shutil.which("ninja")),
    ):
        tools[key] = {"path": path, "version": _version_of(path) if path else None}
    try:
        pytest_version: str | None = metadata.version("pytest")
    except metadata.PackageNotFoundError:
        pytest_version = None
    return {
        "python": {"version": sys.version.split()[0], "executable": sys.executable},
        "pytest": {"version": pytest_version},
        "ccwrap": {"path": shutil.which("ccwrap")},
        **tools,
        "platform": sys.platform,
    }


# --------------------------------------------------------------------------- requirements


def _gap(kind: str, name: str, detail: str, **install: str) -> dict[str, Any]:
    return {"kind": kind, "name": name, "detail": detail, "install": {k: v for k, v in install.items() if v}}


def _requirements_lines(workspace: Path) -> list[tuple[str, str]]:
    """(requirement text, source file) from pyproject [project].dependencies and requirements*.txt."""
    out: list[tuple[str, str]] = []
    pyproject = workspace / "pyproject.toml"
    if pyproject.is_file():
        try:
            import tomllib  # type: ignore[import-not-found]
        except ImportError:  # Python 3.10: tomli when present
            try:
                import tomli as tomllib  # type: ignore[no-redef]
            except ImportError:
                tomllib = None  # type: ignore[assignment]
        if tomllib is not None:
            try:
                data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
            except (OSError, ValueError, UnicodeDecodeError):
                data = {}
            project = data.get("project") if isinstance(data, dict) else None
            deps = project.get("dependencies", []) if isinstance(project, dict) else []
            own = str(project.get("name", "")) if isinstance(project, dict) else ""
            out.extend((d, "pyproject.toml") for d in deps if isinstance(d, str) and not _same_name(d, own))
    for path in sorted(workspace.glob("requirements*.txt")):
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for raw in lines:
            line = raw.split(" #", 1)[0].strip()
            if not line or line.startswith(("#", "-", "git+", "http:", "https:", "file:", ".")):
                continue
            out.append((line, path.name))
    return out


def _same_name(requirement: str, project_name: str) -> bool:
    name = re.split(r"[\s<>=!~;\[(@]", requirement.strip(), maxsplit=1)[0]
    return bool(project_name) and _canon(name) == _canon(project_name)


def _canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def python_requirements_gap(workspace: Path) -> list[dict[str, Any]]:
    try:
        from packaging.requirements import InvalidRequirement, Requirement
    except ImportError:  # packaging comes with pytest; without it we cannot judge versions
        return []
    gaps: list[dict[str, Any]] = []
    seen: set[str] = set()
    for text, source in _requirements_lines(workspace):
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.marker is not None and not req.marker.evaluate():
            continue
        key = _canon(req.name)
        if key in seen:
            continue
        seen.add(key)
        try:
            have = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            gaps.append(_gap("python", req.name, f"{text} ({source}) is not installed", pip=str(req)))
            continue
        if req.specifier and not req.specifier.contains(have, prereleases=True):
            gaps.append(_gap("python", req.name, f"{text} ({source}) wanted, {have} installed", pip=str(req)))
    return gaps


def _first_programs(command: str) -> list[str]:
    """The programs a shell command line starts: the first word of each pipeline part, plus CC/CXX values."""
    programs: list[str] = []
    for part in re.split(r"&&|\|\||;|\|", command):
        try:
            words = shlex.split(part)
        except ValueError:
            words = part.split()
        for word in words:
            if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
                name, _, value = word.partition("=")
                if name in ("CC", "CXX") and value:
                    first = value.split()[0] if value.split() else ""
                    if first:
                        programs.append(first)
                continue
            if word not in _BUILTINS:
                programs.append(word)
            break
    return programs


def executables_gap(commands: Iterable[str], cwd: Path, workspace: Path | None = None) -> list[dict[str, Any]]:
    """Programs the commands start that are not there.

    A path inside ``workspace`` (``./t``, ``build/app``) is something the build is
    expected to produce, never a requirement a setup script could install: it is
    not a gap, before the build or after it (a build that did not produce it fails
    as a phase, not as an environment).
    """
    gaps: list[dict[str, Any]] = []
    seen: set[str] = set()
    for command in commands:
        for program in _first_programs(command):
            if program in seen:
                continue
            seen.add(program)
            if "/" in program:
                target = (cwd / program) if not os.path.isabs(program) else Path(program)
                if target.is_file() or (workspace is not None and _inside(target, workspace)):
                    continue
            elif shutil.which(program):
                continue
            base = os.path.basename(program)
            gaps.append(_gap("executable", base, f"{program!r} (from {command!r}) is not on PATH",
                             apt=_EXEC_APT.get(base, ""), pip=_EXEC_PIP.get(base, "")))
    return gaps


def _inside(path: Path, workspace: Path) -> bool:
    try:
        Path(os.path.abspath(path)).relative_to(Path(os.path.abspath(workspace)))
    except ValueError:
        return False
    return True


def _apt_for_cmake(package: str) -> str:
    try:
        from ..candidates.tables import apt_package_for
    except ImportError:
        return ""
    try:
        return apt_package_for(package) or ""
    except Exception:  # noqa: BLE001 - a table lookup must not stop the probe
        return ""


def find_packages(workspace: Path, limit: int = 200) -> list[str]:
    """The ``find_package`` names of the project's CMake files (for the snapshot)."""
    names: list[str] = []
    for path in _cmake_files(workspace, limit):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in _FIND_PACKAGE.finditer(text):
            if match.group(1) not in names:
                names.append(match.group(1))
    return names


def _cmake_files(workspace: Path, limit: int) -> list[Path]:
    found: list[Path] = []
    for root, dirs, files in os.walk(workspace):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith(("build", "cmake-build")))
        for name in sorted(files):
            if name == "CMakeLists.txt" or name.endswith(".cmake"):
                found.append(Path(root) / name)
                if len(found) >= limit:
                    return found
    return found


def _in_workspace(header: str, workspace: Path, limit: int = 20000) -> bool:
    """Does the project itself hold a file named like the header (then it is a build-flag problem)?"""
    base = os.path.basename(header)
    seen = 0
    for _root, dirs, files in os.walk(workspace):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        if base in files:
            return True
        seen += len(files)
        if seen > limit:
            return False
    return False


def build_requirements_gap(errors: Iterable[BuildErrorRecord], workspace: Path) -> list[dict[str, Any]]:
    """System headers and CMake packages the last build could not find."""
    gaps: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for error in errors:
        if not error.is_failure:
            continue
        text = "\n".join([error.message, error.raw])
        for pattern in _MISSING_HEADER:
            match = pattern.search(text)
            if not match:
                continue
            header = match.group(1)
            if not _system_include(error, header) or _in_workspace(header, workspace):
                break
            if ("header", header) not in seen:
                seen.add(("header", header))
                gaps.append(_gap("header", header, f"{error.file_path}:{error.line}: <{header}> not found",
                                 apt=_HEADER_APT.get(header, "")))
            break
        for pattern in _CMAKE_MISSING:
            match = pattern.search(text)
            if match and ("cmake-package", match.group(1)) not in seen:
                seen.add(("cmake-package", match.group(1)))
                gaps.append(_gap("cmake-package", match.group(1), f"find_package({match.group(1)}) failed",
                                 apt=_apt_for_cmake(match.group(1))))
                break
    return gaps


def _system_include(error: BuildErrorRecord, header: str) -> bool:
    """Was the header included with angle brackets (a system header)?"""
    context = "\n".join([error.raw, *error.context_lines, *map(str, error.notes)])
    if f"<{header}>" in context:
        return True
    if f'"{header}"' in context:
        return False
    path = Path(error.file_path)
    if error.line and path.is_file():
        try:
            line = path.read_text(encoding="utf-8", errors="replace").splitlines()[error.line - 1]
        except (OSError, IndexError):
            return False
        return f"<{header}>" in line
    return False


def import_requirements_gap(failures: Iterable[TestFailureRecord], workspace: Path) -> list[dict[str, Any]]:
    """Modules a test run could not import that the project does not provide itself."""
    gaps: list[dict[str, Any]] = []
    seen: set[str] = set()
    for failure in failures:
        if failure.exception_type not in ("ModuleNotFoundError", "ImportError") and "No module named" not in (
            failure.message
        ):
            continue
        match = _NO_MODULE.search(failure.message) or _NO_MODULE.search(failure.raw)
        if not match:
            continue
        top = match.group(1).split(".")[0]
        if top in seen or _provided_by_workspace(top, workspace):
            continue
        seen.add(top)
        gaps.append(_gap("python-module", top, f"{failure.node_id or failure.test_name}: No module named {top!r}",
                         pip=top))
    return gaps



def _provided_by_workspace(module: str, workspace: Path) -> bool:
    for base in (workspace, workspace / "src"):
        if (base / module).is_dir() or (base / f"{module}.py").is_file():
            return True
    return False


def requirements_gap(workspace: Path, commands: Iterable[str], cwd: Path | None = None) -> list[dict[str, Any]]:
    """What the probe can tell before any build: Python dependencies and executables from outside the workspace."""
    return python_requirements_gap(workspace) + executables_gap(commands, cwd or workspace, workspace)
