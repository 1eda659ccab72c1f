"""Re-running failing C/C++ tests through the recorded build, outside the user's tree.

ccwrap recorded every compile and link command (:mod:`..build.compdb`).  For a mutated file the
trial recompiles the translation units it touches with their recorded commands into scratch objects
(:class:`..build.gate.Gate`, whose mirror makes ``#include`` see the edited text), relinks each test
binary with its recorded link command into a scratch path (an object inside a project archive is
swapped in a scratch copy of that archive), and runs only the failing tests (``--gtest_filter``,
results read from ``--gtest_output=xml``); the wider check runs the whole scratch binary.  A test
binary without GoogleTest is judged by its exit status.  The user's files and build outputs are never written.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..build.compdb import Command, CompileDatabase
from ..build.gate import Gate, _relink_args
from ..process import dir_stamp, run_bounded
from ..records import TestFailureRecord
from .gtest_report import gtest_results, last_line, passed_so_far
from .native_cxx_binaries import Binary, test_binaries
from .native_cxx_whole import RESUMES, run_whole
from .native_link_objects import SCHEMA_FLAGS, LinkObjects, quiet
from .native_schema import ENV as SCHEMA_ENV
from .native_schema import REACHED_ENV, SPINS_ENV, read_reached
from .native_schema_errors import error_lines_in
from .native_shared_libs import SharedLibraries, link_inputs
from .native_spectra_bp import gtest_tests, profile_with_best
from .native_spectra_cxx import binary_env
from .native_trial import SuiteOutcome, TrialOutcome

if TYPE_CHECKING:
    from ..locate.native_spectrum import TestRun

OPTIMIZED_SCHEMA_FLAGS = ("-w", "-O1", "-g0")  # a schema whose unmutated tests run slowly at -O0 (see native_screen)
# every error (the gate stops at a few; a schema's are one per broken mutant), columns in bytes
FAMILY_SCHEMA_FLAGS = {"gcc": ("-fdiagnostics-column-unit=byte", "-fmax-errors=0"), "clang": ("-ferror-limit=0",)}
MAX_UNITS_PER_HEADER = 8  # a header included everywhere is not a one-unit mutant: recompile a few
HEADER_UNITS_SEEN = 64  # units including a header looked at to choose those few


class _Unbuildable(str):
    """Why no mutant of a file can be tried at all (no recorded command compiles it, no test binary holds
    its code): :attr:`.native_trial.TrialOutcome.unbuildable`."""


@dataclass
class _Build:
    """One mutated text compiled: its scratch objects, and what was linked with them so far."""

    objdir: Path
    replaced: dict[str, str]  # real object -> scratch object
    libs: set[str]  # real shared libraries relinked under objdir/lib
    archives: dict[str, str] = field(default_factory=dict)  # real archive -> scratch copy ("" = untouched)
    linked: dict[str, str | None] = field(default_factory=dict)  # binary -> scratch binary (None: not linked)
    source: str = ""  # the real path of the mutated file


class CxxTrial:
    """The :class:`.native_trial.Trial` of C/C++ test binaries built through ccwrap."""

    FAILING_TIMEOUT_MIN_S = 1.5  # a test binary's start and a gtest filter's run on a loaded machine

    def __init__(self, workspace: Path, db: CompileDatabase, binaries: list[Binary], timeout_s: float) -> None:
        self.workspace = workspace
        self.db = db
        self.binaries = binaries
        self.timeout_s = timeout_s
        self.failing_timeout_s = timeout_s  # the failing tests' runs: the search lowers it after the baseline
        self.gate = Gate(workspace, db, timeout_s=max(30.0, timeout_s))
        self.scratch = Path(tempfile.mkdtemp(prefix="whetstone-cxx-trial-"))
        self.spectrum_tool = ""  # which profiler the last spectrum used
        self._count = 0
        self._members: dict[str, set[str]] = {}
        self._last: tuple[tuple[str, str], _Build | str] | None = None
        self._env_for: dict[str, str] = {}  # scratch binary -> the directory of its relinked shared libraries
        self.shared = SharedLibraries(db, workspace, timeout_s)
        self._schemata: dict[tuple[str, str], _Build | str] = {}  # (rel, schema text) -> its one build
        self._schema_locks: dict[tuple[str, str], threading.Lock] = {}  # one build of each, whichever trial asks
        self._schema_lock = threading.Lock()  # guards _schema_locks
        self._optimized: set[str] = set()  # files whose schema is compiled with OPTIMIZED_SCHEMA_FLAGS
        self._units: dict[str, int] = {}  # header -> how many units recompile with it (units_including)
        self._included_by: dict[Path, list[Command]] = {}  # a file -> the other units that include it
        self._order: dict[str, int] | None = None  # object -> where the binaries meet it (see _place)
        self._failing_places = 0  # the objects the failing tests' binaries link are placed below this
        self._schema_focus: dict[str, list[Binary]] = {}  # rel -> the binaries its schemata are built for
        self._ran_before: dict[str, tuple[set[str], int | None]] = {}  # binary -> its whole run, unchanged
        self.link_objects = LinkObjects(self.scratch, workspace, db, self.gate, timeout_s)
        self._written_dirs: set[str] = set()  # a test run wrote files there: runs there take turns (all trials)
        self._turns = threading.Lock()
        self.error_lines: set[int] = set()  # lines of the mutated file the last failed compile named
        # (line, byte column) of its errors there, each followed by the places that required its instantiation
        self.error_points: set[tuple[int, ...]] = set()
        # the last failed compile of several files' schemata (prepare_schemata): rel -> its lines and points
        self.errors_by_file: dict[str, tuple[set[int], set[tuple[int, ...]]]] = {}

    # ----------------------------------------------------------------- protocol

    def focus(self, failure_ids: set[str]) -> None:
        """Run only these failing tests from now on (run_wider still says in ``others`` if each passes)."""
        for binary in self.binaries:
            binary.tests = {fid: name for fid, name in binary.failing.items() if fid in failure_ids}

    def processes(self) -> list[set[str]]:
        """The failing tests (ids) each test binary a screened run starts covers (:mod:`.native_screen`)."""
        return [set(binary.tests) for binary in self.binaries if binary.tests]

    def baseline(self) -> TrialOutcome:
        started = time.monotonic()
        out = TrialOutcome()
        for binary in self.binaries:
            if binary.tests:  # the others are there for the wider check: unfiltered, they would run whole
                self._run_tests(binary, binary.path, out)
        out.seconds = time.monotonic() - started
        return out

    def run_failing(self, rel: str, text: str, timeout_s: float | None = None) -> TrialOutcome:
        started = time.monotonic()
        out = TrialOutcome()
        built = self._build(rel, text, [b for b in self.binaries if b.tests])
        if isinstance(built, str):
            out.error = built
            out.unbuildable = isinstance(built, _Unbuildable)
        else:
            for binary, path in built:
                self._run_tests(binary, path, out, timeout_s=timeout_s or self.failing_timeout_s)
        out.seconds = time.monotonic() - started
        return out

    def run_wider(self, rel: str, text: str) -> SuiteOutcome:
        built = self._build(rel, text, self.binaries)
        if isinstance(built, str):
            return SuiteOutcome(False, error=built)
        return self._wider(built, None, None)

    def run_schema_wider(self, rel: str, text: str, mutant_id: int, timeout_s: float) -> SuiteOutcome:
        """The failing tests' binaries, whole, on the schema's build with one of its mutants switched on
        (0: none): a screened fix that breaks another test there is known before it is compiled alone
        (the other binaries, each a relink, are left to :meth:`run_wider`)."""
        built = self._build(rel, text, self._schema_binaries(rel), schema=True)
        if isinstance(built, str):
            return SuiteOutcome(False, error=built)
        return self._wider(built, {SCHEMA_ENV: str(mutant_id)}, timeout_s, resumes=0)

    def _wider(self, built: list[tuple[Binary, str]], extra_env: dict[str, str] | None,
               timeout_s: float | None, resumes: int = RESUMES) -> SuiteOutcome:
        covered: list[str] = []
        failed: list[str] = []
        unreported: list[str] = []
        others: dict[str, bool] = {}
        for binary, path in built:
            covered.append(os.path.relpath(binary.path, self.workspace))
            known = set(binary.failing.values())  # failing before the change: not a breakage
            code, results = run_whole(self._execute, binary, path, extra_env, timeout_s, resumes, known)
            if code is None:
                return SuiteOutcome(False, covered, error=f"{Path(binary.path).name} timed out")
            new = [name for name, sig in results.items() if sig is not None and name not in known]
            whole = code != 0 and not new and not (known and (results or not binary.per_test))
            if new or whole:  # failing so in the user's own binary too (a failure the run could not place)?
                before, before_code = self._before(binary)
                unreported += [name for name in new if name in before]
                new, whole = [name for name in new if name not in before], whole and before_code == 0
            failed += new[:5] + ([f"{Path(binary.path).name} (exit {code})"] if whole else [])
            for fid, name in binary.failing.items():
                if fid not in binary.tests:
                    others[fid] = results.get(name, "") is None if binary.per_test else code == 0
        return SuiteOutcome(not failed, covered, failed, others=others, unreported=unreported)

    def _before(self, binary: Binary) -> tuple[set[str], int | None]:
        """The user's own ``binary`` run whole once: its failing tests and exit code, unchanged (see _wider)."""
        if binary.path not in self._ran_before:
            code, results = run_whole(self._execute, binary, binary.path)
            self._ran_before[binary.path] = ({name for name, sig in results.items() if sig is not None}, code)
        return self._ran_before[binary.path]

    # ----------------------------------------------------------------- schemata (:mod:`.native_schema`)

    def prepare_schema(self, rel: str, text: str) -> str:
        """Compile and link a schema of ``rel`` once ("" when it is ready, else why not; the lines the
        compiler named are in :attr:`error_lines` and :attr:`error_points`)."""
        built = self._build(rel, text, self._schema_binaries(rel), schema=True)
        return built if isinstance(built, str) else ""

    def prepare_schemata(self, texts: dict[str, str]) -> str:
        """Compile the schemata of several headers in one pass over the units that include any of them
        (:mod:`.native_screen_group`), each then ready as :meth:`prepare_schema` would have made it ("" when
        they are, else why not; the lines the compiler named in each are in :attr:`errors_by_file`)."""
        built = self._compile(texts, schema=True)
        if isinstance(built, str):
            return built
        with self._schema_lock:
            for key in texts.items():
                self._schemata[key] = built
        binaries = list({b.path: b for rel in texts for b in self._schema_binaries(rel)}.values())
        linked = self._linked(next(iter(texts)), built, binaries)
        return linked if isinstance(linked, str) else ""

    def schema_units(self, rel: str) -> set[str]:
        """The objects a schema of ``rel`` compiles (:mod:`.native_screen_group` groups headers by them)."""
        return set(self._units_for(rel, True))

    def _units_for(self, rel: str, schema: bool) -> dict[str, Command]:
        """Object -> command of each unit a build of ``rel`` recompiles: its own, and those that include it;
        for a schema, which screens the failing tests only, those their binaries link (the focus's, when set)."""
        real = Path(os.path.realpath(self.workspace / rel))
        others = self._including_units(real)
        if schema:
            linked = {r for b in self._schema_focus.get(rel, []) for r in link_inputs(b.link)}
            others = [c for c in others if os.path.realpath(os.path.join(c.directory, c.output or "")) in linked] \
                or [c for c in others if self._place(c) < self._failing_places] or others
        return {os.path.realpath(os.path.join(c.directory, c.output or "")): c
                for c in self.db.for_source(real)[:1] + others}

    def focus_schema(self, rel: str, tests: set[str]) -> None:
        """Build ``rel``'s schemata for the test binaries holding ``tests`` only (the failing tests a screened
        run covers, :data:`.native_screen.PROBE_PROCESSES`): units that include ``rel`` (cJSON's tests
        ``#include "cJSON.c"``) are compiled for those binaries alone, not for every failing one."""
        self._schema_focus[rel] = [b for b in self.binaries if b.tests and tests & set(b.tests)]

    def _schema_binaries(self, rel: str, every: bool = False) -> list[Binary]:
        return (not every and self._schema_focus.get(rel)) or [b for b in self.binaries if b.tests]

    def units_including(self, rel: str) -> int:
        """How many recorded units a mutant of header ``rel`` recompiles (at most MAX_UNITS_PER_HEADER)."""
        if rel not in self._units:
            self._units[rel] = len(self._including_units(Path(os.path.realpath(self.workspace / rel))))
        return self._units[rel]

    def _including_units(self, path: Path) -> list[Command]:
        """The other units a mutant of ``path`` recompiles: those that ``#include`` it (a header; a ``.c`` a
        test includes to reach its static functions, cJSON's tests), the failing tests' binaries' first
        (in their link order: of a header's inline function each unit holds a copy, and the linker keeps
        the first it meets, so a recompiled unit it never meets changes nothing), at most
        MAX_UNITS_PER_HEADER in all."""
        if path not in self._included_by:
            own = {os.path.realpath(c.sources[0]) for c in self.db.for_source(path)}
            units = [c for c in self.db.including(path, limit=HEADER_UNITS_SEEN) if os.path.realpath(c.sources[0]) not in own]
            self._included_by[path] = sorted(units, key=self._place)[:MAX_UNITS_PER_HEADER] if units else []
        return self._included_by[path]

    def _place(self, command: Command) -> int:
        """Where the binaries meet ``command``'s object (below _failing_places: a failing test's binary does)."""
        if self._order is None:
            order: dict[str, int] = {}
            for binary in [b for b in self.binaries if b.tests] + [b for b in self.binaries if not b.tests]:
                for real in link_inputs(binary.link):
                    names = [real] if not real.endswith(".a") else \
                        [os.path.join(os.path.dirname(real), m) for m in sorted(self._archive_members(real))]
                    for name in names:
                        order.setdefault(Path(name).name if real.endswith(".a") else name, len(order))
                if binary.tests:
                    self._failing_places = len(order)
            self._order = order
        real = os.path.realpath(os.path.join(command.directory, command.output or ""))
        return min(self._order.get(real, len(self._order)), self._order.get(Path(real).name, len(self._order)))

    def optimize_schema(self, rel: str, on: bool) -> None:
        """Compile ``rel``'s schema with the optimizer from now on (or no longer): its builds so far are
        dropped, the next :meth:`prepare_schema` makes it again."""
        with self._schema_lock:
            (self._optimized.add if on else self._optimized.discard)(rel)
            for key in [k for k in self._schemata if k[0] == rel]:
                del self._schemata[key]

    def run_schema(self, rel: str, text: str, mutant_id: int, timeout_s: float, reached: str = "",
                   only: set[str] | None = None, spins: int = 0) -> TrialOutcome:
        """The failing tests on the schema's binaries with one of its mutants switched on (0: none);
        ``reached``: a file the schema appends the ids of the mutants those tests reached to; ``only``:
        these failing tests alone (the file's cheap ones, :mod:`.native_screen`); ``spins``: the times the
        mutant's expression may run before the run counts as timed out (0: no such bound)."""
        started = time.monotonic()
        out = TrialOutcome()
        built = self._build(rel, text, self._schema_binaries(rel), schema=True)
        if isinstance(built, str):
            out.error = built
        else:
            extra = {SCHEMA_ENV: str(mutant_id), **({REACHED_ENV: reached} if reached else {}),
                     **({SPINS_ENV: str(spins)} if spins > 0 else {})}
            for binary, path in built:
                if only is None or only & set(binary.tests):
                    self._run_tests(binary, path, out, extra, timeout_s, only)
        out.seconds = time.monotonic() - started
        return out

    def reach_each(self, rel: str, text: str, tests: dict[str, bool], timeout_s: float, deadline: float,
                   limit: int, part: tuple[int, int] = (0, 1)) -> dict[str, set[int]]:
        """The ids of the schema's mutants each test reaches unmutated, a process each (:mod:`.native_search_spectrum`):
        ``tests`` (name -> fails) first, then every failing binary's others (not when other units include the file),
        ``limit`` in all, this trial every ``part[1]``-th from ``part[0]``; one cut short or not as expected is left out."""
        wide = Path(rel).suffix in (".c", ".cc", ".cpp", ".cxx", ".c++") and not self.units_including(rel)
        built = self._build(rel, text, [b for b in self._schema_binaries(rel, every=wide) if b.gtest], schema=True)
        if isinstance(built, str):
            return {}
        env = binary_env(self.scratch)
        where = {name: (binary, path) for binary, path in built
                 for name in gtest_tests(binary.path, Path(binary.path).parent, env)}
        order = sorted(where, key=lambda name: name not in tests)[:limit]  # stable: each binary's own order
        out: dict[str, set[int]] = {}
        for name in order[part[0]::part[1]]:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            record = self.scratch / f"reach{self._count}"
            binary, path = where[name]
            code, _output, results = self._execute(binary, path, [name], {SCHEMA_ENV: "0", REACHED_ENV: str(record)},
                                                   min(timeout_s, left))
            ids = read_reached(record)
            record.unlink(missing_ok=True)
            if code is not None and ids is not None and name in results \
                    and (results[name] is not None) == tests.get(name, False):
                out[name] = ids
        return out

    def profile(self, budget_s: float) -> tuple[list[TestRun], dict[str, str], str]:
        """What the failing tests and their neighbours ran (the user's binaries), for the spectrum."""
        wanted = os.environ.get("WHETSTONE_SPECTRUM_TOOL", "")
        with self._turns if self._written_dirs else contextlib.nullcontext():
            runs, names, why, self.spectrum_tool = profile_with_best(self.binaries, self.scratch, budget_s, wanted)
        return runs, names, why

    def share_with(self, first: CxxTrial) -> None:
        """Use the unchanged objects (:mod:`.native_link_objects`) and schemata ``first`` built (a schema's
        binaries serve every mutant, whichever trial runs it); the search closes its trials together."""
        self.link_objects = first.link_objects
        self._schemata, self._schema_locks, self._schema_lock = first._schemata, first._schema_locks, first._schema_lock
        self._optimized, self._schema_focus = first._optimized, first._schema_focus
        self._written_dirs, self._turns = first._written_dirs, first._turns

    def warm(self, stop: threading.Event) -> None:
        """Compile the one-step links' test files before a mutant asks for them (:meth:`.LinkObjects.warm`)."""
        self.link_objects.warm(self.binaries, stop)

    def close(self) -> None:
        self.gate.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

    # ----------------------------------------------------------------- building

    def _build(self, rel: str, text: str, binaries: list[Binary], *, schema: bool = False
               ) -> list[tuple[Binary, str]] | str:
        """Scratch binaries with ``rel`` holding ``text`` (or why they could not be built).  The objects
        of the last text are kept, so the wider check after run_failing links only what is left; a
        schema's are kept for the whole search."""
        key = (rel, text)
        if schema:
            with self._schema_lock:
                lock = self._schema_locks.setdefault(key, threading.Lock())
            with lock:  # the search's trials share their schemata: one compile and one link each
                if key not in self._schemata:
                    self._schemata[key] = self._compile({rel: text}, schema=True)
                return self._linked(rel, self._schemata[key], binaries)
        if self._last is None or self._last[0] != key:
            self._last = (key, self._compile({rel: text}))
        return self._linked(rel, self._last[1], binaries)

    def _linked(self, rel: str, build: _Build | str, binaries: list[Binary]) -> list[tuple[Binary, str]] | str:
        if isinstance(build, str):
            return build
        out: list[tuple[Binary, str]] = []
        for binary in binaries:
            if binary.path not in build.linked:
                linked = self._link(binary, build)
                if linked is not None and linked.startswith("does not link"):
                    return linked
                build.linked[binary.path] = linked
            target = build.linked[binary.path]
            if target is not None:
                out.append((binary, target))
        if not out and not any(build.linked.values()):
            return _Unbuildable(f"no test binary links the code of {rel}")
        # set on every build, right before its binaries run: a binary whose shared library alone changed
        # is the user's own path, told apart only by where its libraries are
        self._env_for = {path: str(build.objdir / "lib") for _b, path in out} if build.libs else {}
        return out

    def _compile(self, texts: dict[str, str], *, schema: bool = False) -> _Build | str:
        """The units of each file of ``texts`` (rel -> text) and of those that include it, compiled once with
        every one of them replaced (several only for headers' schemata compiled together)."""
        rel = next(iter(texts))
        paths = {r: Path(os.path.realpath(self.workspace / r)) for r in texts}
        path = paths[rel]
        commands: dict[str, Command] = {}  # by object: a unit that includes two of the files is compiled once
        for each in texts:
            commands.update(self._units_for(each, schema))
        if not commands:
            return _Unbuildable(f"no recorded command compiles {rel}")
        self._count += 1
        objdir = self.scratch / f"m{self._count}"
        objdir.mkdir()
        replaced: dict[str, str] = {}
        self.error_lines, self.error_points = set(), set()  # a link that fails names no line of rel
        self.errors_by_file = {}
        edited = {paths[r]: text for r, text in texts.items()}
        for command in commands.values():
            if not command.output:
                return f"the recorded command for {rel} names no object"
            real_obj = os.path.realpath(os.path.join(command.directory, command.output))
            obj = objdir / str(len(replaced)) / Path(real_obj).name
            obj.parent.mkdir()
            # a schema only screens: compiled fast (no optimizer, no debug info, no warnings; a mutant that
            # fixes a test is compiled alone with the recorded flags), gcc counting columns in bytes as it does
            flags = OPTIMIZED_SCHEMA_FLAGS if rel in self._optimized else SCHEMA_FLAGS
            extra = (*flags, *FAMILY_SCHEMA_FLAGS.get(command.family, ())) if schema else ()
            unit = self.gate.compile_object(command.sources[0], command, edited, obj, extra)
            if unit.exit_code != 0:
                self.errors_by_file = {r: error_lines_in(unit.diagnostics, real) for r, real in paths.items()}
                self.error_lines, self.error_points = self.errors_by_file[rel]
                first = next((e for e in unit.errors), None)
                why = f"{first.file_path}:{first.line}: {first.message}" if first else unit.output.strip()[:200]
                return f"does not compile: {why}"
            replaced[real_obj] = str(obj)
            self.shared.obj_dirs.setdefault(real_obj, command.directory)
        libs = self.shared.relink(replaced, objdir)
        if isinstance(libs, str):
            return libs
        return _Build(objdir, replaced, libs, source=str(path))

    def _link(self, binary: Binary, build: _Build) -> str | None:
        """The scratch path of this binary with the build's objects (None: the code is not in it)."""
        inputs = link_inputs(binary.link)
        swapped = self._swap_archives(binary.link, build)
        if not swapped and not any(r in build.replaced for r in inputs):
            # only its shared library changed (LD_LIBRARY_PATH), or the mutated code is not in it at all
            return binary.path if any(r in build.libs for r in inputs) else None
        target = build.objdir / ("bin-" + Path(binary.path).name)
        compiled = self.link_objects.for_link(binary, build.source, build.replaced)
        args = _relink_args(binary.link, {**build.replaced, **swapped, **compiled}, [], target)
        code, output = quiet(args, binary.link.directory, max(60.0, self.timeout_s))
        if code != 0:
            return f"does not link: {output.strip().splitlines()[-1][:200] if output.strip() else f'exit {code}'}"
        return str(target)

    def _swap_archives(self, link: Command, build: _Build) -> dict[str, str]:
        """Project archives on the link line holding a replaced object: scratch copies with it swapped
        (one copy per archive and build, shared by every binary that links it)."""
        out: dict[str, str] = {}
        for arg in link.arguments[1:]:
            if arg.startswith("-") or not arg.endswith(".a"):
                continue
            real = os.path.realpath(os.path.join(link.directory, arg))
            if real in build.archives:
                if build.archives[real]:
                    out[real] = build.archives[real]
                continue
            build.archives[real] = ""
            if not real.startswith(str(self.workspace)) or not os.path.exists(real):
                continue
            members = self._archive_members(real)
            mine = [obj for real_obj, obj in build.replaced.items() if Path(real_obj).name in members]
            if not mine:
                continue
            copy = build.objdir / f"{len(build.archives)}-{Path(real).name}"
            shutil.copyfile(real, copy)
            code, _output = quiet(["ar", "r", str(copy), *mine], str(build.objdir), 60.0)
            if code == 0:
                build.archives[real] = out[real] = str(copy)
        return out

    def _archive_members(self, archive: str) -> set[str]:
        if archive not in self._members:
            code, output = quiet(["ar", "t", archive], str(self.scratch), 30.0)
            self._members[archive] = set(output.split()) if code == 0 else set()
        return self._members[archive]

    # ----------------------------------------------------------------- running

    def _run_tests(self, binary: Binary, path: str, out: TrialOutcome, extra_env: dict[str, str] | None = None,
                   timeout_s: float | None = None, only: set[str] | None = None) -> None:
        wanted = binary.tests if only is None else {fid: name for fid, name in binary.tests.items() if fid in only}
        timeout_s = timeout_s or self.timeout_s
        times: dict[str, float] = {}
        code, output, results = self._execute(binary, path, sorted(set(wanted.values())) if binary.per_test else None,
                                              extra_env, timeout_s, times)
        out.test_s.update((fid, times[name]) for fid, name in wanted.items() if name in times)
        if code is None:
            out.error = out.error or f"{Path(binary.path).name} timed out after {timeout_s:g} s"
            out.timed_out = True
            if binary.gtest:  # what gtest said of each test as it ended, before the time ran out
                done = passed_so_far(output)
                out.passed.update(fid for fid, name in wanted.items() if name in done)
            return
        # a gtest binary that died in one test: those that ended before it say so in its output
        ended = passed_so_far(output) if binary.gtest and not results else set()
        for failure_id, name in wanted.items():
            if binary.per_test and name in results:
                sig = results[name]
                if sig is None:
                    out.passed.add(failure_id)
                else:
                    out.failing[failure_id] = sig
            elif name in ended:
                out.passed.add(failure_id)
            elif binary.per_test and not results:
                out.failing[failure_id] = f"crashed (exit {code}): {last_line(output)}"
            elif not binary.per_test:
                if code == 0:
                    out.passed.add(failure_id)
                else:
                    out.failing[failure_id] = f"exit {code}: {last_line(output)}"

    def _execute(self, binary: Binary, path: str, tests: list[str] | None, extra_env: dict[str, str] | None = None,
                 timeout_s: float | None = None, times: dict[str, float] | None = None
                 ) -> tuple[int | None, str, dict[str, str | None]]:
        """(exit code or None on timeout, output, {Suite.Name: None when it passed, else how it failed});
        ``times`` gets each test's seconds.  A binary that ctest runs once per test runs as ctest runs
        ``tests`` (all of its tests when None), each judged by its exit status."""
        if binary.ctest and not binary.gtest:
            return self._execute_ctest(binary, path, tests, extra_env, timeout_s, times)
        self._count += 1
        report = self.scratch / f"r{self._count}.xml"
        args = [path]
        if binary.gtest:
            args.append(f"--gtest_output=xml:{report}")
            if tests:
                args.append("--gtest_filter=" + ":".join(tests))
        code, output = self._spawn(args, Path(binary.path).parent, extra_env, timeout_s)
        return code, output, gtest_results(report, times)

    def _execute_ctest(self, binary: Binary, path: str, tests: list[str] | None, extra_env: dict[str, str] | None,
                       timeout_s: float | None, times: dict[str, float] | None = None
                       ) -> tuple[int | None, str, dict[str, str | None]]:
        """ctest's own command for each of ``tests`` with ``path`` in its executable's place: the first
        failing exit code (else 0; None when the run's time limit ran out, shared by its commands), their
        output, and each one's verdict (and its seconds in ``times``: the screen runs the cheap ones of
        several failing tests)."""
        code: int | None = 0
        outputs: list[str] = []
        results: dict[str, str | None] = {}
        ends = time.monotonic() + (timeout_s or self.timeout_s)  # the limit is the run's, not each command's
        for name in [t for t in tests if t in binary.ctest] if tests else sorted(binary.ctest):
            command = binary.ctest[name]
            started = time.monotonic()
            if ends - started <= 0:
                return None, "\n".join(outputs), results
            one, output = self._spawn([path, *command.args], Path(command.cwd), extra_env, ends - started)
            if times is not None:
                times[name] = time.monotonic() - started
            outputs.append(output)
            if one is None:
                return None, "\n".join(outputs), results
            results[name] = None if one == 0 else f"exit {one}: {last_line(output)}"
            code = code or one
        return code, "\n".join(outputs), results

    def _spawn(self, args: list[str], cwd: Path, extra_env: dict[str, str] | None, timeout_s: float | None
               ) -> tuple[int | None, str]:
        """One test process: (exit code or None on timeout, output).  A schema's bound on its mutant's runs
        kills the process group with SIGKILL (:data:`.native_schema.PRELUDE`): that death is a time-out too."""
        env = binary_env(self.scratch)
        if args[0] in self._env_for:
            env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [self._env_for[args[0]], env.get("LD_LIBRARY_PATH")]))
        env.pop(SCHEMA_ENV, None)
        env.pop(REACHED_ENV, None)
        env.pop(SPINS_ENV, None)  # only a screened run asks for the bound (run_schema)
        env.update(extra_env or {})
        with self._turns if str(cwd) in self._written_dirs else contextlib.nullcontext():
            before = dir_stamp(cwd)
            try:
                code, raw = run_bounded(args, cwd, timeout_s or self.timeout_s, env, limit_memory=True)
            except OSError as exc:
                return 127, f"cannot run {Path(args[0]).name}: {exc.strerror}"
            if dir_stamp(cwd) != before:
                # the tests write fixed names beside the binary (a data file, a database): another
                # trial's run there at the same time would read or remove them, so runs there take turns
                self._written_dirs.add(str(cwd))
        if code == -signal.SIGKILL and SPINS_ENV in env:
            code = None
        return code, raw.decode("utf-8", "replace")


# --------------------------------------------------------------------------- building the trial


def cxx_trial(
    failures: list[TestFailureRecord], workspace: Path, store: Path | None, *, timeout_s: float = 20.0
) -> tuple[CxxTrial | None, str]:
    """The trial for these failures' test binaries, or None and one line saying why not."""
    workspace = Path(workspace).resolve()
    if store is None:
        from ..store.sessions import find_store

        store = find_store(workspace)
    db = CompileDatabase.from_store(store)
    if not db:
        return None, "no compile commands recorded (build once through ccwrap to search C/C++ fixes)"
    binaries, missing = test_binaries(db, workspace, failures)
    if not binaries:
        return None, f"no recorded link command builds the test binary of {', '.join(missing[:3]) or 'the failures'}"
    return CxxTrial(workspace, db, binaries, timeout_s), ""


