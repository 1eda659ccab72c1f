"""The one-shot breakpoint tracer (``candidates/bptrace.c``) on real programs built here.

It must say which functions ran -- in threads and forked children too -- and change nothing else: the
program's output bytes, exit status, its own SIGTRAP handler and a GoogleTest death test behave as
without it.  Then the spectrum it feeds: one process per test, failing tests first.
"""

from __future__ import annotations

import platform
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.candidates.native_spectra_bp import (
    function_entries,
    profile_tests,
    profile_with_best,
    tracer,
)

pytestmark = pytest.mark.skipif(
    platform.system() != "Linux" or platform.machine() != "x86_64" or not shutil.which("gcc") or not shutil.which("nm")
    or tracer() is None,
    reason="the tracer is x86-64 Linux only and needs gcc, nm and ptrace",
)

PROGRAM = r"""
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int never_called(int x) { return x * 3; }
int in_thread(int x) { return x + 1; }
int in_child(int x) { return x - 1; }
int hot(int x) { return x ^ 5; }
static volatile int trapped;
static void on_trap(int sig) { (void)sig; trapped = 1; }
static void *worker(void *arg) { long s = 0; for (int i = 0; i < 100000; i++) s += in_thread(i); return (void *)s; }
int main(int argc, char **argv) {
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
  pid_t p = fork();
  if (p == 0) { _exit(in_child(4)); }
  int st; waitpid(p, &st, 0);
  long s = 0; for (int i = 0; i < 1000000; i++) s += hot(i);
  signal(SIGTRAP, on_trap); raise(SIGTRAP);
  printf("child %d trapped %d sum %ld\n", WEXITSTATUS(st), trapped, s);
  fflush(stdout);
  if (argc > 1 && strcmp(argv[1], "abort") == 0) abort();
  return 7;
}
"""


def _build(tmp_path: Path, flags: list[str]) -> Path:
    src = tmp_path / "prog.c"
    src.write_text(PROGRAM)
    exe = tmp_path / "prog"
    subprocess.run(["gcc", *flags, "-o", str(exe), str(src), "-pthread"], check=True)
    return exe


def _traced(exe: Path, tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[bytes], set[str]]:
    tool = tracer()
    assert tool is not None
    entries = function_entries(str(exe))
    addresses, hits = tmp_path / "addresses", tmp_path / "hits"
    addresses.write_text("".join(f"{a:x}\n" for a in entries))
    hits.unlink(missing_ok=True)
    done = subprocess.run([str(tool), str(addresses), str(hits), "--", str(exe), *args], capture_output=True, timeout=20)
    return done, {entries[int(h, 16)] for h in hits.read_text().split() if not h.startswith("!")}


@pytest.mark.parametrize("flags", [["-O0"], ["-O2", "-fno-inline", "-no-pie"], ["-O1", "-fno-inline", "-pie", "-fPIE"]], ids=["pie", "no-pie", "pie-O1"])
def test_it_names_what_ran_in_threads_and_forks_and_changes_nothing_else(tmp_path: Path, flags: list[str]) -> None:
    exe = _build(tmp_path, flags)
    plain = subprocess.run([str(exe)], capture_output=True)
    done, ran = _traced(exe, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert plain.stdout.startswith(b"child 3 trapped 1")  # the program's own SIGTRAP reached its handler
    assert {"in_thread", "in_child", "hot"} <= ran
    assert "never_called" not in ran


def test_a_program_killed_by_a_signal_is_reported_as_the_shell_would(tmp_path: Path) -> None:
    exe = _build(tmp_path, ["-O0"])
    done, ran = _traced(exe, tmp_path, "abort")
    assert done.returncode == 128 + signal.SIGABRT
    assert b"trapped 1" in done.stdout and "hot" in ran


def test_a_program_that_cannot_start_is_the_tracers_own_status(tmp_path: Path) -> None:
    tool = tracer()
    assert tool is not None
    (tmp_path / "addresses").write_text("")
    done = subprocess.run([str(tool), str(tmp_path / "addresses"), str(tmp_path / "hits"), "--",
                           str(tmp_path / "missing")], capture_output=True)
    assert done.returncode == 127
    usage = subprocess.run([str(tool)], capture_output=True)
    assert usage.returncode == 125 and b"usage" in usage.stderr


GTEST = r"""
#include <gtest/gtest.h>
#include <chrono>
#include <cstdlib>
#include <thread>
int add(int a, int b) { return a + b; }
int sub(int a, int b) { return a - b + 1; }
int unused_fn(int a) { return a * 7; }
[[noreturn]] void die() { std::abort(); }
TEST(Math, Add) { EXPECT_EQ(add(2, 2), 4); }
TEST(Math, Sub) { EXPECT_EQ(sub(3, 1), 2); }
TEST(Other, Dies) { EXPECT_DEATH(die(), ""); }
TEST(Other, Slow) { std::this_thread::sleep_for(std::chrono::seconds(20)); }
"""


def _gtest_binary(tmp_path: Path, source: str) -> Path:
    """``source`` built at -O0 with GoogleTest's main (skips without libgtest-dev)."""
    src = tmp_path / "t.cc"
    src.write_text(source)
    exe = tmp_path / "t"
    built = subprocess.run(["g++", "-O0", "-o", str(exe), str(src), "-lgtest", "-lgtest_main", "-pthread"],
                           capture_output=True, text=True)
    if built.returncode != 0:
        pytest.skip("GoogleTest (libgtest-dev) not installed")
    return exe


class _Binary:
    def __init__(self, path: str, tests: dict[str, str]) -> None:
        self.path, self.tests, self.gtest, self.ctest = path, tests, True, {}

    @property
    def per_test(self) -> bool:  # as Binary.per_test: no ctest test stands for one of these
        return self.gtest


def test_the_spectrum_runs_each_test_alone_failing_first(tmp_path: Path) -> None:
    exe = _gtest_binary(tmp_path, GTEST)
    runs, names, why = profile_tests([_Binary(str(exe), {"f1": "Math.Sub"})], tmp_path / "scratch", 30)
    assert why == "" and names == {"f1": "Math.Sub"}
    # its suite first, then the rest; a neighbour far slower than the failing test is stopped and left out
    assert [r.name for r in runs] == ["Math.Sub", "Math.Add", "Other.Dies"]
    by_name = {r.name: r for r in runs}
    assert by_name["Math.Sub"].failed and not by_name["Math.Add"].failed
    assert not by_name["Other.Dies"].failed  # the death test's forked child traps nothing of ours
    assert not any(r.executed.frames for r in runs)  # its expected abort is no crash of the program's
    assert any(f.startswith("sub(") for f in by_name["Math.Sub"].executed.functions)
    assert not any(f.startswith("add(") for f in by_name["Math.Sub"].executed.functions)
    assert not any(f.startswith("unused_fn") for r in runs for f in r.executed.functions)


LOOPING_GTEST = r"""
#include <gtest/gtest.h>
unsigned steps(unsigned n) { unsigned c = 0; for (unsigned k = n; k != 0; k += 0) c++; return c; }  // never ends
int twice(int a) { return 2 * a; }
int unused_fn(int a) { return a * 7; }
TEST(Count, Steps) { EXPECT_EQ(steps(twice(2)), 4u); }
TEST(Count, Twice) { EXPECT_EQ(twice(3), 6); }
"""


def test_a_failing_test_that_never_ends_is_cut_by_the_tracer_and_keeps_what_it_ran(tmp_path: Path) -> None:
    """The fault made the failing test loop: the tracer stops it at half the time left (a second at least),
    writes the functions it ran until then, and the run counts as failing; its neighbour runs after it."""
    exe = _gtest_binary(tmp_path, LOOPING_GTEST)
    runs, _names, why = profile_tests([_Binary(str(exe), {"f1": "Count.Steps"})], tmp_path / "scratch", 3.0)
    by_name = {r.name: r for r in runs}
    assert set(by_name) == {"Count.Steps", "Count.Twice"}, why
    assert by_name["Count.Steps"].failed and not by_name["Count.Twice"].failed
    ran = by_name["Count.Steps"].executed.functions
    assert any(f.startswith("steps(") for f in ran) and any(f.startswith("twice(") for f in ran)
    assert not any(f.startswith("unused_fn") for f in ran)


def test_no_time_no_runs(tmp_path: Path) -> None:
    exe = _build(tmp_path, ["-O0"])
    binary = _Binary(str(exe), {"f1": "prog"})
    binary.gtest = False
    runs, _names, why = profile_tests([binary], tmp_path / "scratch", 0.0)
    assert runs == [] and "no time" in why


TWO_PROGRAMS = r"""
int common(int x) { return x + 1; }
int only_failing(int x) { return x * 2; }
int main(void) {
#ifdef FAILING
  return only_failing(common(1)) == 99 ? 0 : 1;
#else
  return common(1) == 2 ? 0 : 1;
#endif
}
"""


def test_test_binaries_with_no_failure_are_the_passing_side(tmp_path: Path) -> None:
    """Tests that are one program each (no GoogleTest): the failing program against the passing ones."""
    src = tmp_path / "t.c"
    src.write_text(TWO_PROGRAMS)
    subprocess.run(["gcc", "-O0", "-DFAILING", "-o", str(tmp_path / "fails"), str(src)], check=True)
    subprocess.run(["gcc", "-O0", "-o", str(tmp_path / "passes"), str(src)], check=True)
    failing, passing = _Binary(str(tmp_path / "fails"), {"f1": "fails"}), _Binary(str(tmp_path / "passes"), {})
    failing.gtest = passing.gtest = False
    runs, names, why = profile_tests([passing, failing], tmp_path / "scratch", 30)
    assert why == "" and names == {"f1": "fails"}
    assert [(r.name, r.failed) for r in runs] == [("fails", True), ("passes", False)]
    assert runs[0].executed.functions == {"common", "only_failing"}
    assert runs[1].executed.functions == {"common"}


@pytest.mark.parametrize("debug", [False, True], ids=["symbols", "lines"])
def test_the_projects_own_shared_library_is_armed_when_the_program_starts(tmp_path: Path, debug: bool) -> None:
    """A test binary that loads the project's code from its own .so (CMake's BUILD_SHARED_LIBS, libtool):
    the library's functions (and lines) are armed once the loader has mapped it."""
    flags = ["-g"] if debug else []
    lib = tmp_path / "lib" / "common.c"
    lib.parent.mkdir()
    lib.write_text("int common(int x) {\n  return x + 1;\n}\nint unrun(int x) {\n  return x * 5;\n}\n")
    (tmp_path / "main.c").write_text("int common(int);\nint main(void) { return common(1) == 2; }\n")  # exits 1
    subprocess.run(["gcc", *flags, "-shared", "-fPIC", "-o", str(tmp_path / "lib" / "libcommon.so.1"), str(lib)],
                   check=True)
    (tmp_path / "lib" / "libcommon.so").symlink_to("libcommon.so.1")  # ldd names the link, maps the file
    subprocess.run(["gcc", *flags, "-o", str(tmp_path / "fails"), str(tmp_path / "main.c"), f"-L{tmp_path / 'lib'}",
                    "-lcommon", f"-Wl,-rpath,{tmp_path / 'lib'}"], check=True)
    binary = _Binary(str(tmp_path / "fails"), {"f1": "fails"})
    binary.gtest = False
    runs, _names, why = profile_tests([binary], tmp_path / "scratch", 30)
    assert why == "" and [(r.name, r.failed) for r in runs] == [("fails", True)]
    assert "common" in runs[0].executed.functions and "unrun" not in runs[0].executed.functions
    if debug:
        assert runs[0].executed.lines.get(str(lib)) == {1, 2, 3}  # common's lines; unrun's none


def test_a_process_the_program_leaves_running_does_not_hold_the_tracer(tmp_path: Path) -> None:
    src = tmp_path / "daemon.c"
    src.write_text("#include <unistd.h>\nint lingers(void) { sleep(30); return 0; }\n"
                   "int main(void) { if (fork() == 0) return lingers(); usleep(300000); return 4; }\n")
    exe = tmp_path / "daemon"
    subprocess.run(["gcc", "-O0", "-o", str(exe), str(src)], check=True)
    done, ran = _traced(exe, tmp_path)
    assert done.returncode == 4 and "lingers" in ran


def test_the_tracer_goes_first_with_or_without_debug_info_and_callgrind_when_asked(tmp_path: Path) -> None:
    """The tracer sees what callgrind sees (lines with -g, function symbols without) at a few per cent
    of its cost; ``$WHETSTONE_SPECTRUM_TOOL`` picks one."""
    src = tmp_path / "t.c"
    src.write_text(TWO_PROGRAMS)
    for flags, name in ((["-g"], "debug"), ([], "plain")):
        subprocess.run(["gcc", "-O0", *flags, "-DFAILING", "-o", str(tmp_path / name), str(src)], check=True)
        binary = _Binary(str(tmp_path / name), {"f1": name})
        binary.gtest = False
        runs, _names, why, used = profile_with_best([binary], tmp_path / f"scratch-{name}", 60)
        assert used == "bptrace" and runs and runs[0].failed, why
        assert bool(runs[0].executed.lines) == (name == "debug")
    if not shutil.which("valgrind"):
        return
    forced = _Binary(str(tmp_path / "debug"), {"f1": "debug"})
    forced.gtest = False
    runs, _names, why, used = profile_with_best([forced], tmp_path / "scratch-forced", 60, "callgrind")
    assert used == "callgrind" and runs[0].executed.lines.get(str(src), set()) >= {3, 6}, why



def test_with_debug_info_the_tracer_says_which_lines_ran(tmp_path: Path) -> None:
    """Breakpoints at the line table's addresses too: lines at the tracer's cost, not callgrind's."""
    src = tmp_path / "t.c"
    src.write_text(TWO_PROGRAMS)
    subprocess.run(["gcc", "-g", "-O0", "-DFAILING", "-o", str(tmp_path / "fails"), str(src)], check=True)
    subprocess.run(["gcc", "-g", "-O0", "-o", str(tmp_path / "passes"), str(src)], check=True)
    failing, passing = _Binary(str(tmp_path / "fails"), {"f1": "fails"}), _Binary(str(tmp_path / "passes"), {})
    failing.gtest = passing.gtest = False
    runs, _names, why = profile_tests([passing, failing], tmp_path / "scratch", 30)
    assert why == "" and [(r.name, r.failed) for r in runs] == [("fails", True), ("passes", False)]
    failed_lines, passed_lines = (r.executed.lines.get(str(src), set()) for r in runs)
    assert {2, 3, 6} <= failed_lines and 8 not in failed_lines  # common, only_failing, its own branch
    assert {2, 8} <= passed_lines and not {3, 6} & passed_lines
    assert runs[0].executed.functions == {"common", "only_failing"}


def test_a_library_the_program_does_not_load_is_armed_nowhere(tmp_path: Path) -> None:
    """ADDRS naming a shared library the program never maps (another build's path): the program runs as
    without the tracer, and its own breakpoints still say what ran."""
    exe = _build(tmp_path, ["-O0"])
    tool = tracer()
    assert tool is not None
    entries = function_entries(str(exe))
    addresses, hits = tmp_path / "addresses", tmp_path / "hits"
    addresses.write_text("".join(f"{a:x}\n" for a in entries) + f"@{tmp_path / 'libgone.so'}\n1139\n")
    plain = subprocess.run([str(exe)], capture_output=True)
    done = subprocess.run([str(tool), str(addresses), str(hits), "--", str(exe)], capture_output=True, timeout=20)
    assert (done.returncode, done.stdout) == (plain.returncode, plain.stdout)
    text = hits.read_text()
    assert "@" not in text and {"hot", "in_child"} <= {entries[int(h, 16)] for h in text.split()}


CRASHING = r"""
#include <assert.h>
#include <stdio.h>
static int deref(const int *p) {
  return *p;
}
int middle(const int *p) {
  return deref(p) + 1;
}
int checked(int v) {
  assert(v > 0);
  return v;
}
int main(void) {
#ifdef ABORT
  return checked(-1);
#endif
  printf("%d\\n", middle((const int *)0));
  return 0;
}
"""


@pytest.mark.parametrize("flags", [["-O0", "-g"], ["-O0"]], ids=["lines", "symbols"])
@pytest.mark.parametrize("how", ["segv", "abort"])
def test_a_crash_names_the_frames_it_happened_in_innermost_first(tmp_path: Path, flags: list[str], how: str) -> None:
    """A fatal signal in the program: the faulting function, then its callers through the frame
    pointers; an abort() inside the C library, the callers found on the stack.  main is not the
    project's to suspect; with -g each frame is a source line."""
    src = tmp_path / "crash.c"
    src.write_text(CRASHING)
    exe = tmp_path / "crash"
    subprocess.run(["gcc", *flags, *(["-DABORT"] if how == "abort" else []), "-o", str(exe), str(src)], check=True)
    binary = _Binary(str(exe), {"f1": "crash"})
    binary.gtest = False
    runs, _names, why = profile_tests([binary], tmp_path / "scratch", 30)
    assert why == "" and len(runs) == 1 and runs[0].failed
    frames = runs[0].executed.frames
    if "-g" in flags:
        expected = [(str(src), 5), (str(src), 8)] if how == "segv" else [(str(src), 11)]
        assert frames[:len(expected)] == expected, frames
    else:
        expected_names = ["deref", "middle"] if how == "segv" else ["checked"]
        assert [name for name, _line in frames][:len(expected_names)] == expected_names, frames
    assert not any(name == "main" for name, _line in frames)
