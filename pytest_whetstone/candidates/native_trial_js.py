"""The JavaScript trial: the failing test files of one scratch copy of the project, re-run with one file
replaced (the protocol is :mod:`.native_trial`; the runners' argv and outputs are :mod:`.native_js_runs`).

The copy is made once: every file but ``.git``, the store and generated output is copied, and each
``node_modules`` becomes a real directory of symlinks to the user's packages, so module resolution
works, Jest's haste map does not crawl the packages, and a runner's cache written under
``node_modules/.cache`` or ``.vite`` lands in the copy.  A mutant is written into the copy, run, and the
copy's original text put back; the user's tree is never written.  Every run is bounded: the process
group is killed at ``timeout_s`` (a mutant that loops), and reported in the outcome's ``error``.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..records import TestFailureRecord
from . import native_js_runs as runs
from . import native_js_screen, native_schema_js
from .native_js_targets import SKIP_COPY, declaring_file, test_file_of
from .native_trial import SuiteOutcome, TrialOutcome

if TYPE_CHECKING:
    from ..locate.native_spectrum import TestRun

# Written by tools at run time: left out of the symlinked node_modules so writes land in the copy.
NODE_MODULES_WRITABLE = {".cache", ".vite", ".vitest", ".vite-temp"}
MAX_COPY_FILES = 20000
MAX_COPY_BYTES = 200 << 20
JS_RUNNERS = {"jest", "vitest", "mocha", "node", "tap"}


class _Target:
    """One failing record as the runner selects it: a test file and the title parts."""

    def __init__(self, fid: str, file: str, parts: list[str]) -> None:
        self.fid, self.file, self.parts = fid, file, parts

    @property
    def key(self) -> tuple[str, str]:
        return (self.file, runs.title_key(self.parts))


class JsTrial:
    """A scratch copy of one JS project and the runner that re-runs its failing tests."""

    FAILING_TIMEOUT_MIN_S = 3.0  # node and the runner's own start

    def __init__(self, workspace: Path, kind: str, command: runs.Command, targets: list[_Target],
                 timeout_s: float) -> None:
        self.workspace = workspace
        self.kind = kind
        self.command = command
        self.targets = targets
        self.timeout_s = timeout_s
        self.failing_timeout_s = timeout_s  # the failing tests' runs: the search lowers it after the baseline
        self.tmp = Path(tempfile.mkdtemp(prefix="whetstone-jstrial-"))
        self.root = self.tmp / "tree"
        self.work = self.tmp / "work"
        self.work.mkdir()
        self.filter = True  # select the failing tests by title (baseline turns it off if that hides them)
        self.env = _env()
        self.runs = 0
        self.last_result = runs.RunResult()  # the last tape run, per test (the spectrum asks what ran)
        self.spectrum_tool = ""  # "v8, per test" when tape's spectrum was cut test by test (native_spectra_tape)
        self.base_sites: dict[tuple[str, str], set[int]] = {}  # tape: where the failing assertions failed
        self.screen: native_js_screen.TapeScreen | None = None  # the schema harness, once a schema runs
        # tape: the paths of the tests that failed in the unmutated schema (a screened run runs only the tests
        # on them), and how the failing tests failed there with every test run
        self.screen_only: set[str] | None = None
        self.only_tried = False
        self.whole_failing: dict[str, str] = {}
        self.error_lines: set[int] = set()  # the last schema check's error, by line and (line, column)
        self.error_points: set[tuple[int, int]] = set()

    # ----------------------------------------------------------------- protocol

    def baseline(self) -> TrialOutcome:
        outcome = self.run_failing("", "")
        self.base_sites = dict(self.last_result.sites)
        if self.filter and "did not run" in outcome.error:
            self.filter = False  # the title filter missed a test: run the whole files from now on
            unfiltered = self.run_failing("", "")
            if len(unfiltered.failing) + len(unfiltered.passed) > len(outcome.failing) + len(outcome.passed):
                return unfiltered
            self.filter = True
        return outcome

    def run_failing(self, rel: str, text: str, timeout_s: float | None = None) -> TrialOutcome:
        files = sorted({t.file for t in self.targets})
        with self._mutated(rel, text) as problem:
            if problem:
                return TrialOutcome(error=problem)
            t0 = time.monotonic()
            timeout, self.timeout_s = self.timeout_s, min(self.timeout_s, timeout_s or self.failing_timeout_s)
            try:
                result, error = self._run(files, self.targets if self.filter else [])
            finally:
                self.timeout_s = timeout
            seconds = time.monotonic() - t0
        return self._outcome(result, error, seconds)

    def _outcome(self, result: runs.RunResult, error: str, seconds: float) -> TrialOutcome:
        """What one run of the failing test files said about each failing test."""
        outcome = TrialOutcome(seconds=round(seconds, 3))
        if error:
            outcome.error = error
            return outcome
        for t in self.targets:
            if t.key in result.failed:
                outcome.failing[t.fid] = result.failed[t.key]
            elif t.key in result.passed:
                outcome.passed.add(t.fid)
        missing = [t for t in self.targets if t.fid not in outcome.passed and t.fid not in outcome.failing]
        if missing:
            loaded = next((result.file_errors[t.file] for t in missing if t.file in result.file_errors), "")
            outcome.error = (f"test file did not load: {loaded}" if loaded else
                             f"{len(missing)} failing test(s) did not run: {missing[0].file} {' › '.join(missing[0].parts)}"
                             + (f" ({result.note})" if result.note else ""))
        return outcome

    def run_wider(self, rel: str, text: str) -> SuiteOutcome:
        with self._mutated(rel, text) as problem:
            if problem:
                return SuiteOutcome(ok=False, error=problem)
            result, error = self._run(None, [])
        if error:
            return SuiteOutcome(ok=False, covered=result.files, error=error)
        failed = self._new_failures(result) + [f"{file} (did not load)" for file in result.file_errors]
        only_known = not result.ok and not failed and bool(result.failed)
        ok = (result.ok or only_known) and not failed and bool(result.files or self.kind == "tape")
        return SuiteOutcome(ok=ok, covered=result.files or self.command.paths, failed=failed[:5],
                            error="" if ok or failed else (result.note or "the suite did not pass"))

    def _new_failures(self, result: runs.RunResult) -> list[str]:
        """The failures of a whole-suite run that are not the failing tests' (run_failing judges those), as
        "file a › b"."""
        known = {t.key for t in self.targets}
        titles = {title for _file, title in known}
        # a runner fed a glob (tape 'test/**/*.js') keys its failures by that glob, not by the file
        new = [key for key in result.failed if key not in known and not ("*" in key[0] and key[1] in titles)]
        # tape's descriptions repeat ("should be equal"): a known one failing at another line is another test
        new += [key for key in result.failed if key in self.base_sites and result.sites.get(key, set()) - self.base_sites[key]]
        return [f"{file} {_shown(title)}" for file, title in new]

    def run_schema_wider(self, rel: str, text: str, mutant_id: int, timeout_s: float) -> SuiteOutcome:
        """The whole suite in the harness, one mutant on (0: none): a fix that breaks a test costs no tape run."""
        from .native_spectra_js import suite_files  # the spectrum's reading of the paths

        if not (files := suite_files(self.root, self.command.paths)):
            return SuiteOutcome(False, error="no test files to screen the suite with")
        run = self._harness().run(rel, text, mutant_id, timeout_s, files=files)
        if run.error in ("crashed", "timed out") and mutant_id:  # a test threw out of the suite (a tape
            # process ends so too), or it ran past 3x its unmutated run while the failing tests ended
            return SuiteOutcome(False, files, [f"{_shown(top)} ({run.error})" for top in run.tops] or [f"({run.error})"])
        result, error = self._read_tape(run.tap, run.rc, files)
        if run.error or error:
            return SuiteOutcome(False, files, error=run.error or error)
        failed = self._new_failures(result)
        return SuiteOutcome(not failed, files, failed)

    def close(self) -> None:
        if self.screen is not None:
            self.screen.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def profile(self, budget_s: float) -> tuple[list[TestRun], dict[str, str], str]:
        """The failing tests alone, then their whole files, under V8's coverage: what the failing tests
        ran and what the passing ones did, for the execution spectrum."""
        from .native_spectra_js import profile_js

        return profile_js(self, budget_s)

    def run_covered(self, files: list[str], targets: list[_Target], coverage_dir: Path,
                    timeout_s: float, extra_env: dict[str, str] | None = None) -> str:
        """One run of ``files`` (``targets`` selected by title, or all) writing V8 coverage to
        ``coverage_dir``; "" or why it failed."""
        env, timeout = self.env, self.timeout_s
        self.env = {**env, **(extra_env or {}), "NODE_V8_COVERAGE": str(coverage_dir)}
        self.timeout_s = max(0.5, min(timeout, timeout_s))
        try:
            return self._run(files, targets)[1]
        finally:
            self.env, self.timeout_s = env, timeout

    # ----------------------------------------------------------------- the copy

    def copy(self) -> str:
        """Make the scratch copy; "" or why it could not be made."""
        count = size = 0
        for dirpath, dirnames, filenames in os.walk(self.workspace):
            here = Path(dirpath)
            dest = self.root / here.relative_to(self.workspace)
            dest.mkdir(parents=True, exist_ok=True)
            if "node_modules" in dirnames:
                _link_packages(here / "node_modules", dest / "node_modules")
            dirnames[:] = [d for d in dirnames if d not in SKIP_COPY and not d.startswith(".whetstone")
                           and not (here / d).is_symlink()]
            for d in os.listdir(here):
                if (here / d).is_symlink() and (here / d).is_dir() and d not in SKIP_COPY:
                    os.symlink(self._link_target(here / d), dest / d)
            for name in filenames:
                src = here / name
                if src.is_symlink():
                    os.symlink(self._link_target(src), dest / name)
                    continue
                count += 1
                size += src.stat().st_size
                if count > MAX_COPY_FILES or size > MAX_COPY_BYTES:
                    return f"project too large for a scratch copy (> {MAX_COPY_FILES} files or {MAX_COPY_BYTES >> 20} MB)"
                shutil.copy2(src, dest / name)
        return ""

    def _link_target(self, link: Path) -> str:
        """A link inside the project stays relative (it points into the copy); one outside, absolute."""
        target = os.readlink(link)
        resolved = (link.parent / target).resolve()
        inside = resolved == self.workspace or self.workspace in resolved.parents
        return target if inside and not os.path.isabs(target) else str(resolved)

    def _mutated(self, rel: str, text: str) -> _Swap:
        return _Swap(self.root, rel, text)

    # ----------------------------------------------------------------- one run

    def _run(self, files: list[str] | None, targets: list[_Target]) -> tuple[runs.RunResult, str]:
        """Run ``files`` (None: the whole suite) selecting ``targets`` by title; (result, error)."""
        self.runs += 1
        if self.kind == "tape":
            result, error = self._run_tape(files)
            self.last_result = result
            return result, error
        out = self.work / f"out-{self.runs}"
        argv = self._argv(files, targets, out)
        rc, stdout, timed_out = _execute(argv, self.root, self.env, self.timeout_s, self.work)
        if timed_out:
            return runs.RunResult(), f"timed out after {self.timeout_s:g} s (killed)"
        root = str(self.root)
        if self.kind in ("jest", "vitest"):
            result = runs.read_jest_json(out, root)
        elif self.kind == "node-test":
            result = runs.read_node_events(out, root)
            result.ok = rc == 0 and not result.failed and not result.file_errors
        else:
            result = runs.read_mocha_json(stdout, root)
            result.ok = rc == 0 and not result.failed
        if result.note and not result.passed and not result.failed and not result.file_errors:
            return result, f"{self.kind} exited {rc}: {_last_line(stdout, root) or result.note}"
        return result, ""

    def _argv(self, files: list[str] | None, targets: list[_Target], out: Path) -> list[str]:
        cmd = self.command
        bin_dir = self.root / "node_modules" / ".bin"
        node = shutil.which("node") or "node"
        if self.kind == "jest":
            argv = [node, *cmd.node_flags, str(bin_dir / "jest"), "--ci", "--watchman=false", "--json",
                    f"--outputFile={out}", f"--cacheDirectory={self.work / 'jest-cache'}", *cmd.flags]
            argv += ["--runTestsByPath", *files] if files is not None else cmd.paths
            return argv + (["-t", _title_regex(targets, " ")] if targets else [])
        if self.kind == "vitest":
            argv = [node, *cmd.node_flags, str(bin_dir / "vitest"), "run", "--reporter=json",
                    f"--outputFile={out}", "--watch=false", *cmd.flags]
            argv += files if files is not None else cmd.paths
            return argv + (["-t", _title_regex(targets, " ", start="(?:^|\\s)")] if targets else [])  # a leading " "
        if self.kind == "mocha":
            argv = [node, *cmd.node_flags, str(bin_dir / "mocha"), "--reporter=json", "--no-color", *cmd.flags]
            argv += files if files is not None else cmd.paths
            return argv + (["--grep", _title_regex(targets, " ")] if targets else [])
        reporter = self.work / "reporter.mjs"
        if not reporter.exists():
            reporter.write_text(runs.NODE_REPORTER, encoding="utf-8")
        argv = [node, *cmd.node_flags, "--test", f"--test-reporter={reporter.as_uri()}",
                f"--test-reporter-destination={out}", *cmd.flags]
        if targets:  # a leaf title, alone or at the end of its path (node 22 matches the joined path)
            leaves = sorted({re.escape(t.parts[-1]) for t in targets})
            argv.append(f"--test-name-pattern=(?:^| )(?:{'|'.join(leaves)})$")
        return argv + (files if files is not None else cmd.paths)

    def _run_tape(self, files: list[str] | None) -> tuple[runs.RunResult, str]:
        """TAP from the failing test files (a failing run) or from the command's paths (the suite).

        With tape installed, the files run in one process, as ``tape a.js b.js`` would (a node process
        and tape's own loading cost more than most test files); failures are told apart by their ``at:``
        line.  When that process ended early (a mutant that throws outside an assertion stops tape),
        each file runs alone, so the files it did not reach still say how their tests did."""
        tape = self.root / "node_modules" / ".bin" / "tape"
        if files is None:
            files = self.command.paths or sorted({t.file for t in self.targets})
        if len(files) > 1 and tape.exists():
            total, error, rc = self._tape_process(files, tape)
            seen = total.passed | set(total.failed)
            if "timed out" in error or rc == 0 or all(t.key in seen for t in self.targets if t.file in files):
                return total, error
        return runs.each_file(files, lambda file: self._tape_process([file], tape)[:2])

    def _tape_process(self, files: list[str], tape: Path) -> tuple[runs.RunResult, str, int]:
        """One process running ``files`` (tape, else node on a script that prints TAP): (result, error, rc)."""
        node = shutil.which("node") or "node"
        argv = ([node, *self.command.node_flags, str(tape), *self.command.flags, *files] if tape.exists()
                else [node, *self.command.node_flags, *files])
        rc, stdout, timed_out = _execute(argv, self.root, self.env, self.timeout_s, self.work)
        if timed_out:
            return runs.RunResult(), f"timed out after {self.timeout_s:g} s (killed)", rc
        one, error = self._read_tape(stdout, rc, files)
        return one, error, rc

    def _read_tape(self, stdout: str, rc: int, files: list[str]) -> tuple[runs.RunResult, str]:
        """A tape process's output (or the screen harness's), per test: (result, error)."""
        one = runs.read_tap(stdout, files, str(self.root))
        one.ok = rc == 0 and not one.failed
        if rc != 0 and not one.failed:  # crashed, or did not load: no assertion says why
            why = _last_line(stdout, str(self.root)) or f"exited {rc}"
            one.file_errors.update({f: why for f in files})
        if one.file_errors and not one.failed and not one.passed:
            return one, f"test file did not load: {next(iter(one.file_errors.values()))}"
        return one, ""

    # ----------------------------------------------------------------- the schema screen (tape)

    screens_in_process = True  # the harness keeps one node process for many mutants (native_screen's limits)
    loads_text = True  # the harness reads the file's text on every run: a mutant runs as its own text

    @property
    def can_screen(self) -> bool:
        """Whether mutants can be screened through schemata: tape's test files, run by the harness."""
        return self.kind == "tape" and native_js_screen.tape_index(self.root) is not None

    def prepare_schema(self, rel: str, text: str) -> str:
        """Check the schema's syntax with node (``node --check``): "" or node's error, whose line and column
        land in ``error_lines`` / ``error_points``."""
        self.error_lines, self.error_points = set(), set()
        if Path(rel).suffix not in native_schema_js.SCHEMA_SUFFIXES:
            return f"{Path(rel).suffix} files are not screened"
        path = self.work / "check" / Path(rel).name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
        node = shutil.which("node") or "node"
        rc, out, timed_out = _execute([node, "--check", str(path)], self.work, self.env, 30.0, self.work)
        if rc == 0 and not timed_out:
            return ""
        point = runs.check_error_point(out, str(path))
        if point is not None:
            self.error_lines.add(point[0])
            self.error_points.add(point)
        return _last_line(out, str(path.parent)) or f"node --check exited {rc}"

    def run_schema(self, rel: str, text: str, mutant_id: int, timeout_s: float, reached: str = "",
                   only: set[str] | None = None, spins: int = 0) -> TrialOutcome:
        """The failing test files in the harness, ``rel`` read as ``text``: a schema with its mutant
        ``mutant_id`` switched on (0: none, the code as written), or (a negative id) a mutant's own text."""
        self._harness()
        if not self.only_tried:  # on the copy's own text (``text`` may be a mutant's); a process's limit
            self._choose_tests(rel, (self.root / rel).read_text(encoding="utf-8", errors="surrogateescape"),
                               max(timeout_s, self.failing_timeout_s))
        outcome, _tops = self._screened(rel, text, mutant_id, timeout_s, reached, self.screen_only, spins)
        if self.screen_only is not None and mutant_id == 0 and self._unlike_whole(outcome):
            self.screen_only = None  # this file's unmutated schema disagrees: every test from now on
            outcome, _tops = self._screened(rel, text, mutant_id, timeout_s, reached, None)
        return outcome

    def _harness(self) -> native_js_screen.TapeScreen:
        if self.screen is None:
            self.screen = native_js_screen.TapeScreen(self.root, self.work, sorted({t.file for t in self.targets}),
                                                      self.command.requires, self.command.node_flags, self.env)
        return self.screen

    def _choose_tests(self, rel: str, text: str, timeout_s: float) -> None:
        """Once per trial: the unmutated schema with every test, then with only the tests that failed there
        (and the tests they are subtests of); only those run from now on when they alone fail exactly as
        the whole files did (not when one needs another's setup)."""
        self.only_tried = True
        whole, tops = self._screened(rel, text, 0, timeout_s, "", None)
        if whole.error or not tops:
            return
        self.whole_failing, self.screen_only = dict(whole.failing), set(tops)
        part, _tops = self._screened(rel, text, 0, timeout_s, "", self.screen_only)
        if self._unlike_whole(part):
            self.screen_only = None

    def _unlike_whole(self, outcome: TrialOutcome) -> bool:
        return bool(outcome.error or outcome.passed or outcome.failing != self.whole_failing)

    def _screened(self, rel: str, text: str, mutant_id: int, timeout_s: float, reached: str,
                  only: set[str] | None, spins: int = 0) -> tuple[TrialOutcome, list[str]]:
        """One harness run, read as a tape process's output: the outcome and the paths of the tests that failed."""
        assert self.screen is not None
        files = sorted({t.file for t in self.targets})
        run = self.screen.run(rel, text, mutant_id, timeout_s, reached, only=only, spins=spins)
        if run.error and not run.tap and run.error not in ("crashed", "timed out"):
            return TrialOutcome(error=run.error, seconds=round(run.seconds, 3)), []
        result, error = self._read_tape(run.tap, run.rc, files)
        seen = result.passed | set(result.failed)
        if run.error == "crashed" and len(files) > 1 and not all(t.key in seen for t in self.targets):
            # as a tape process that ended early is followed by each file alone (_run_tape)
            def alone(file: str) -> tuple[runs.RunResult, str]:
                assert self.screen is not None
                one = self.screen.run(rel, text, mutant_id, timeout_s, files=[file], only=only)
                run.seconds += one.seconds
                return self._read_tape(one.tap, one.rc, [file])[0], "timed out" if one.timed_out else ""

            result, error = runs.each_file(files, alone)
            run.timed_out = run.timed_out or "timed out" in error
        if not run.timed_out:
            return self._outcome(result, error, run.seconds), run.tops
        outcome = self._outcome(result, "", run.seconds)
        outcome.failing.clear()
        outcome.error, outcome.timed_out = f"timed out after {timeout_s:g} s", True
        return outcome, run.tops


class _Swap:
    """Write ``text`` at ``rel`` in the copy for one run, then put the copy's original back."""

    def __init__(self, root: Path, rel: str, text: str) -> None:
        self.path = root / rel if rel else None
        self.original: bytes | None = None
        self.text = text

    def __enter__(self) -> str:
        if self.path is None:
            return ""
        if not self.path.is_file() or self.path.is_symlink():
            return f"{self.path.name} is not a file of the scratch copy"
        self.original = self.path.read_bytes()
        self.path.write_text(self.text, encoding="utf-8", errors="surrogateescape")
        return ""

    def __exit__(self, *exc: object) -> None:
        if self.path is not None and self.original is not None:
            self.path.write_bytes(self.original)


def _title_regex(targets: list[_Target], sep: str, start: str = "^") -> str:
    """The exact full titles, as one anchored alternation (Jest's -t joins the path with spaces;
    vitest 1 puts the file's nameless suite first, so its full names start with a space)."""
    titles = sorted({sep.join(t.parts) for t in targets})
    return start + "(?:" + "|".join(re.escape(t) for t in titles) + ")$"


def _shown(path: str) -> str:  # a test's path of names, joined by \x1f (runs.title_key), as a reader sees it
    return " › ".join(path.split(chr(31)))


def _link_packages(src: Path, dest: Path) -> None:
    """``node_modules`` as a real directory of symlinks to the user's packages."""
    dest.mkdir(exist_ok=True)
    try:
        names = os.listdir(src)
    except OSError:
        return
    for name in names:
        if name not in NODE_MODULES_WRITABLE and not (dest / name).exists():
            os.symlink(src / name, dest / name)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    for name in ("WHETSTONE_SESSION", "NODE_TEST_CONTEXT", "JEST_WORKER_ID"):
        env.pop(name, None)
    env.update({"CI": "1", "FORCE_COLOR": "0", "NO_COLOR": "1", "NODE_DISABLE_COLORS": "1"})
    return env


def _execute(argv: list[str], cwd: Path, env: dict[str, str], timeout: float, work: Path) -> tuple[int, str, bool]:
    """(exit code, stdout, timed out).  Killed as a whole group at the deadline, with no grace: a mutant
    that loops has nothing to flush (process.Running's SIGTERM grace is for the user's own runs)."""
    out_path = work / "stdout.txt"
    with open(out_path, "wb") as out:
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError as exc:
            return 127, f"cannot run {argv[0]}: {exc}", False
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # also reaps workers a finished run left behind
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
    return proc.returncode, out_path.read_text(encoding="utf-8", errors="replace"), timed_out


def _last_line(text: str, root: str) -> str:
    """Why a run ended with no test outcome: its ``XxxError: ...`` line, else its last line."""
    lines = [ln.strip() for ln in re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines() if ln.strip()]
    err = next((ln for ln in lines if re.match(r"^[A-Z]\w*(?:Error|Exception)\b:", ln)), lines[-1] if lines else "")
    return err.replace(root.rstrip("/") + "/", "")[:200]


# --------------------------------------------------------------------------- making a trial


def _parts(record: TestFailureRecord, kind: str) -> list[str]:
    name = record.test_name
    if record.runner == "jest":
        return [p.strip() for p in name.split(" › ")]
    if record.runner in ("node", "vitest") or kind == "node-test":  # node's TAP nests subtests with " > " too
        return [p.strip() for p in name.split(" > ")]
    return [name.strip()]  # mocha (its full title), TAP (the assertion's description)


def js_trial(failures: list[TestFailureRecord], workspace: Path, *, command: str | None,
             timeout_s: float) -> tuple[JsTrial | None, str]:
    """A trial for the JS test failures, or None and a one-line reason."""
    records = [r for r in failures if r.runner in JS_RUNNERS and r.outcome != "error"]
    if not records:
        return None, "no JavaScript test failures"
    if not shutil.which("node"):
        return None, "node is not on PATH"
    workspace = workspace.resolve()
    cmd = runs.read_command(command or "", workspace)
    kind = runs.kind_for({r.runner for r in records}, cmd, workspace)
    if not kind:
        return None, f"no JS runner to re-run these failures with (runners: {', '.join(sorted({r.runner for r in records}))})"
    if kind in ("jest", "vitest", "mocha") and not (workspace / "node_modules" / ".bin" / kind).exists():
        return None, f"{kind} is not installed in node_modules"
    targets = []
    for r in records:
        file = test_file_of(r, workspace)
        if not file and kind == "tape" and len(cmd.paths) == 1:
            # a crash whose stack never reached the test file: the one file that declares the test's name,
            # else the run the command made (a glob: no spectrum, no screen, each mutant a whole tape run)
            file = declaring_file(workspace, cmd.paths, r.test_name) or cmd.paths[0]
        if not file:
            return None, f"cannot find the test file of {r.test_name!r}"
        parts = _parts(r, kind)
        if kind == "mocha":  # mocha's full title joins the path with spaces; the records with " > "
            parts = [" ".join(p.strip() for p in r.test_name.split(" > "))]
        targets.append(_Target(r.ensure_id().failure_id, file, parts))
    trial = JsTrial(workspace, kind, cmd, targets, timeout_s)
    problem = trial.copy()
    if problem:
        trial.close()
        return None, problem
    return trial, ""
