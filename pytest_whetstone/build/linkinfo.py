"""Link commands the build system knows, for when ccwrap saw only the compiles.

``CMAKE_<LANG>_COMPILER_LAUNCHER=ccwrap`` puts ccwrap in front of every compile but not of the link
(that takes ``CMAKE_<LANG>_LINKER_LAUNCHER``, CMake 3.21 and newer), so the store holds no link
command for a test binary.  CMake's generators write it down anyway: the Ninja generator answers
``ninja -t query <object>`` (which outputs use the object) and ``ninja -t commands <output>`` (the
link is the last command), the Makefiles generator keeps ``CMakeFiles/<target>.dir/link.txt``.  This
module reads them into the same :class:`~.compdb.Command` the recorded ones are.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

from .compdb import Command

TIMEOUT_S = 20.0
_LAUNCHERS = {"ccwrap", "ccwrap++", "ccache", "sccache", "distcc"}


def link_for_object(obj: str, directory: str) -> Command | None:
    """The command that links an executable from this object (an absolute path), if the build says."""
    return _from_link_txt(obj) or next((c for c in _from_ninja(obj, directory) if not is_shared(c)), None)


def link_for_output(binary: str, directory: str) -> Command | None:
    """The command that linked this executable (an absolute path), if the build says: Ninja's last
    command for it, or the Makefiles generator's ``CMakeFiles/<name>.dir/link.txt`` beside it."""
    root = Path(directory)
    ninja = shutil.which("ninja")
    if ninja is not None and (root / "build.ninja").is_file():
        command = _ninja_link(ninja, root, os.path.relpath(binary, root))
        if command is not None:
            return command
    where = Path(binary).parent
    return _read_link_txt(where / "CMakeFiles" / f"{Path(binary).name}.dir" / "link.txt", str(where))


def shared_links_for_object(obj: str, directory: str) -> list[Command]:
    """The commands that link project shared libraries from this object, if the build says."""
    found = [c for c in (_from_link_txt(obj),) if c is not None and is_shared(c)]
    return found or [c for c in _from_ninja(obj, directory) if is_shared(c)]


def is_shared(command: Command) -> bool:
    return any(a in ("-shared", "-dynamiclib") for a in command.arguments)


def _command(segment: str, directory: str) -> Command | None:
    try:
        args = shlex.split(segment)
    except ValueError:
        return None
    while args and (args[0] == ":" or Path(args[0]).name in _LAUNCHERS):
        args = args[1:]  # ninja's ': &&' prefix, and a launcher in front of the real driver
    if "-o" not in args or args.index("-o") + 1 >= len(args) or "-c" in args:
        return None
    output = args[args.index("-o") + 1]
    name = Path(args[0]).name
    family = "clang" if "clang" in name else "gcc"
    return Command(directory=directory, arguments=args, compiler=args[0], family=family, output=output, is_link=True)


def _from_link_txt(obj: str) -> Command | None:
    """Makefiles generator: ``<dir>/CMakeFiles/<target>.dir/.../x.o`` -> ``<dir>/CMakeFiles/<target>.dir/link.txt``."""
    parts = Path(obj).parts
    for i in range(len(parts) - 2, 0, -1):
        if parts[i].endswith(".dir") and parts[i - 1] == "CMakeFiles":
            return _read_link_txt(Path(*parts[: i + 1]) / "link.txt", str(Path(*parts[: i - 1])))
    return None


def _read_link_txt(link_txt: Path, binary_dir: str) -> Command | None:
    """The link CMake's Makefiles generator wrote down for a target (run in the target's binary dir)."""
    try:
        first = link_txt.read_text(encoding="utf-8").splitlines()[0]
    except (OSError, IndexError):
        return None
    return _command(first, binary_dir)


def _from_ninja(obj: str, directory: str) -> list[Command]:
    """The link commands of every executable or shared library the object goes into."""
    ninja = shutil.which("ninja")
    root = Path(directory)
    if ninja is None or not (root / "build.ninja").is_file():
        return []
    rel = os.path.relpath(obj, root)
    query = _run([ninja, "-C", str(root), "-t", "query", rel], root)
    outputs: list[str] = []
    in_outputs = False
    for line in query.splitlines():
        if line.strip() == "outputs:":
            in_outputs = True
        elif in_outputs and line.startswith("    "):
            outputs.append(line.strip())
        elif in_outputs:
            break
    found: list[Command] = []
    for output in outputs:
        path = root / output
        if output.endswith(".cmake") or not path.is_file() or not os.access(path, os.X_OK):
            continue
        command = _ninja_link(ninja, root, output)
        if command is not None:
            found.append(command)
    return found


def _ninja_link(ninja: str, root: Path, output: str) -> Command | None:
    """The link in Ninja's last command for ``output`` (relative to ``root``, as Ninja names it)."""
    commands = [c for c in _run([ninja, "-C", str(root), "-t", "commands", output], root).splitlines() if c]
    for segment in commands[-1].split(" && ") if commands else []:
        command = _command(segment, str(root))
        if command is not None and command.output == output:
            return command
    return None


def _run(args: list[str], cwd: Path) -> str:
    try:
        proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout if proc.returncode == 0 else ""
