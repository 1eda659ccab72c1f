"""The unchanged objects a scratch relink needs besides the mutated ones, made once per search.

Two kinds, both compiled into the trial's scratch and never from the user's tree:
- the sources a one-step compile-and-link command compiles (``g++ test.cc libx.a -lgtest -o test``,
  common in Makefiles): every relink would compile a test file again (seconds with gtest);
- objects the recorded link names that are gone from the build tree: GNU make deletes the
  intermediate objects of chained pattern rules (``%_test: %_test.o``) once the binary is made, so the
  link the build recorded no longer links.  Each is compiled from its own recorded compile.

Never mutated, they are compiled fast (the schema's flags); a candidate's final check is the user's own
build.  The search's trials share one :class:`LinkObjects` (:meth:`.native_trial_cxx.CxxTrial.share_with`).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ..build.compdb import Command, CompileDatabase
from ..build.gate import HEADER_EXT, Gate, syntax_only_args
from ..process import run_bounded
from .native_cxx_binaries import Binary

SCHEMA_FLAGS = ("-w", "-O0", "-g0")
_OBJECT_EXTS = (".o", ".obj", ".lo")


class LinkObjects:
    """Scratch objects by (binary, real source or lost object); one compile of each, whichever trial asks."""

    def __init__(self, scratch: Path, workspace: Path, db: CompileDatabase, gate: Gate, timeout_s: float) -> None:
        self.scratch = scratch
        self.workspace = workspace
        self.db = db
        self.gate = gate
        self.timeout_s = timeout_s
        self.made: dict[tuple[str, str], str | None] = {}  # (binary, real source or object) -> its object
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._lock = threading.Lock()  # guards both: the objects are shared with the search's other trials

    def warm(self, binaries: list[Binary], stop: threading.Event) -> None:
        """Compile the test files of one-step links before a mutant asks for them, the failing tests'
        binaries first (their schema and every mutant link them), then the others (a fix's wider check),
        until ``stop``: a gtest file takes seconds, which otherwise fall on the first schema and on the
        first fix found."""
        for binary in sorted(binaries, key=lambda b: not b.tests):
            for source in binary.link.sources:
                if stop.is_set():
                    return
                self.one(binary, os.path.realpath(os.path.join(binary.link.directory, source)))

    def for_link(self, binary: Binary, mutated: str, replaced: dict[str, str]) -> dict[str, str]:
        """Real input -> scratch object, for what this link compiles itself (not the mutated file, and
        not at all for a mutated header, which those sources may include) and for the objects it names
        that are gone and the build does not replace."""
        link = binary.link
        out: dict[str, str] = {}
        if Path(mutated).suffix not in HEADER_EXT:
            for source in link.sources:
                real = os.path.realpath(os.path.join(link.directory, source))
                if real != mutated and (compiled := self.one(binary, real)):
                    out[real] = compiled
        for arg in link.arguments[1:]:
            real = os.path.realpath(os.path.join(link.directory, arg))
            if (arg.startswith("-") or not arg.endswith(_OBJECT_EXTS) or real in replaced
                    or os.path.exists(real)):
                continue
            command = self.db.compile_making(real)
            if command is not None and (compiled := self.one(binary, real, command)):
                out[real] = compiled
        return out

    def one(self, binary: Binary, real: str, command: Command | None = None) -> str | None:
        """The scratch object of one source the link compiles, or of a lost object from its recorded
        ``command`` (None: it does not compile)."""
        key = (binary.path, real)
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
            number = list(self._locks).index(key)  # the object's own file name
        with lock:  # another trial, or the warm-up, may be compiling it: wait for its object
            if key not in self.made:
                obj = self.scratch / "link-objects" / f"{number}-{Path(real).stem}.o"
                obj.parent.mkdir(exist_ok=True)
                if command is None:
                    link = binary.link
                    args = [*syntax_only_args(link, real, None, self.workspace, object_out=obj), *SCHEMA_FLAGS]
                    code, _output = quiet(args, link.directory, max(60.0, self.timeout_s))
                else:
                    code = self.gate.compile_object(command.sources[0], command, {}, obj, SCHEMA_FLAGS).exit_code
                self.made[key] = str(obj) if code == 0 else None
            return self.made[key]


def quiet(args: list[str], cwd: str, timeout: float) -> tuple[int | None, str]:
    """A recorded compile, link or ``ar`` run quietly (a process group, killed whole at the timeout)."""
    env = dict(os.environ, LC_ALL="C.UTF-8")
    env.pop("WHETSTONE_CCWRAP_DEPTH", None)
    try:
        code, out = run_bounded(args, cwd, timeout, env)
    except OSError as exc:
        return 127, f"{args[0]}: {exc.strerror}"
    if code is None:
        return None, f"{Path(args[0]).name} took over {timeout:.0f} s"
    return code, out.decode("utf-8", "replace")
