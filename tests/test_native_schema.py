"""Mutant schemata for C/C++: one compile serves every mutant of a file, each switched on at run time.

The schema must mean what each mutant means: for every mutant, the schema's program with that mutant
switched on prints exactly what the program with the mutant applied alone prints (real gcc, g++ and
clang++), and with none switched on it is the original program.  Lines whose rewrite does not
compile (a constant expression, a C static initializer) are named by the compiler and left out.
End to end, the search screens mutants through the schema and still compiles the fixing one alone.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_native_search import GEO_CC, _failure, _tree_hashes, build_make_geo
from test_native_tests_e2e import _env

from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_schema import ENV, REACHED_ENV, read_reached, schema_text
from pytest_whetstone.candidates.native_search import NativeSearchStats, native_search_candidates
from pytest_whetstone.edits import apply_edits_text
from pytest_whetstone.records import Suspect

CPP = """\
#include <cstdio>
#include <string>
#include <vector>

namespace geo {
int clamp(int v, int lo, int hi) {
  if (v < lo) return lo;
  if (!(v <= hi)) return hi;
  return v;
}

std::string label(int n) {
  std::vector<int> xs(3, n);
  int total = 0;
  for (int i = 0; i < static_cast<int>(xs.size()); ++i) total += xs[i] * 2;
  return total > 10 ? std::string("big") : std::string("small");
}

int span(int a, int b) { return clamp(b - a, 0, 100); }
}  // namespace geo

int main() {
  for (int v = -2; v < 8; v += 3) std::printf("%d %s %d\\n", geo::clamp(v, 0, 5), geo::label(v).c_str(), geo::span(v, 4));
  return 0;
}
"""

C89 = """\
#include <stdio.h>

static int table_sum(int n) {
  static const int weights[8] = {3, 5, 7};  /* room for the mutants that read past 3 */
  int i, total = 0;
  for (i = 0; i < n && i < 3; i++) {
    total += weights[i] * (i + 1);
  }
  return total;
}

int main(void) {
  int n;
  for (n = 0; n < 5; n++) printf("%d\\n", table_sum(n));
  return 0;
}
"""


class CompilingTrial:
    """A schema trial whose every compile succeeds; each test says what its runs return (``run_schema``)."""

    error_lines: set[int] = set()
    error_points: set[tuple[int, int]] = set()

    def prepare_schema(self, rel: str, text: str) -> str:
        return ""


def _compile_run(compiler: list[str], src: Path, text: str, out: Path, env: dict[str, str] | None = None) -> str:
    src.write_text(text)
    build = subprocess.run([*compiler, str(src), "-o", str(out)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    run = subprocess.run([str(out)], capture_output=True, text=True, env=dict(os.environ, **(env or {})), timeout=10)
    return f"{run.returncode}:{run.stdout}"


@pytest.mark.parametrize("compiler,name,source,first,last", [
    (["g++", "-std=c++17", "-O1"], "geo.cc", CPP, 6, 20),
    (["clang++", "-std=c++17"], "geo.cc", CPP, 6, 20),
    (["gcc", "-std=c89", "-pedantic-errors", "-Wall", "-Werror", "-w"], "sum.c", C89, 3, 10),
])
def test_every_switched_on_mutant_behaves_as_the_mutant_applied_alone(
    tmp_path: Path, compiler: list[str], name: str, source: str, first: int, last: int
) -> None:
    if not shutil.which(compiler[0]):
        pytest.skip(f"{compiler[0]} not installed")
    mutants = mutants_in(name, source.encode(), first, last)
    skip: set[int] = set()
    for _ in range(3):  # the search's retry: leave out the lines the compiler named
        schema = schema_text(name, source.encode(), mutants, skip_lines=frozenset(skip))
        assert schema is not None
        (tmp_path / name).write_text(schema.text)
        build = subprocess.run([*compiler, "-c", name, "-o", "schema.o"], cwd=tmp_path, capture_output=True, text=True)
        named = {int(m) for m in re.findall(rf"^{re.escape(name)}:(\d+):\d+: error", build.stderr, re.M)}
        if build.returncode == 0 or not named:
            break
        skip |= named
    assert len(schema.ids) >= 0.6 * len(mutants)
    schema_bin = tmp_path / "schema"
    original = _compile_run(compiler, tmp_path / name, source, tmp_path / "orig")
    assert _compile_run(compiler, tmp_path / name, schema.text, schema_bin) == original
    by_key = {m.key: m for m in mutants}
    differs = 0
    ids = sorted(schema.ids.items(), key=lambda kv: kv[1])
    for key, mid in ids[:: max(1, len(ids) // 20)]:  # a spread of 20: each is a compile of its own
        alone = _compile_run(compiler, tmp_path / name, apply_edits_text(source, [by_key[key].edit], name),
                             tmp_path / "alone")
        again = subprocess.run([str(tmp_path / "alone")], capture_output=True, text=True, timeout=10)
        if f"{again.returncode}:{again.stdout}" != alone:
            continue  # C takes `return weights` for an int: an address, which differs from run to run
        run = subprocess.run([str(schema_bin)], capture_output=True, text=True, env=dict(os.environ, **{ENV: str(mid)}),
                             timeout=10)
        assert f"{run.returncode}:{run.stdout}" == alone, by_key[key].description
        differs += alone != original
    assert differs >= 5  # the mutants do change the program


def test_lines_that_cannot_hold_a_choice_are_named_by_the_compiler_and_left_out(tmp_path: Path) -> None:
    # `s + 1` -> `s * 1` multiplies a pointer (a typedef hides it from the declarations, so the mutant is
    # made): that choice does not compile, the other mutants do
    source = CPP.replace("namespace geo {", "namespace geo {\ntypedef const char *Str; Str skip(Str s) { return s + 1; }")
    mutants = mutants_in("geo.cc", source.encode(), 6, 22)
    schema = schema_text("geo.cc", source.encode(), mutants)
    assert schema is not None and 6 in schema.lines
    (tmp_path / "geo.cc").write_text(schema.text)
    build = subprocess.run(["g++", "-std=c++17", "-c", "geo.cc", "-o", "geo.o"], cwd=tmp_path, capture_output=True,
                           text=True)
    assert build.returncode != 0 and "geo.cc:6:" in build.stderr  # the user's own line numbers
    again = schema_text("geo.cc", source.encode(), mutants, skip_lines=frozenset({6}))
    assert again is not None and 6 not in again.lines and len(again.ids) < len(schema.ids)
    (tmp_path / "geo.cc").write_text(again.text)
    assert subprocess.run(["g++", "-std=c++17", "-c", "geo.cc", "-o", "geo.o"], cwd=tmp_path).returncode == 0


# --------------------------------------------------------------------------- the search screens through it

GEO_CC_CONSTEXPR = GEO_CC.replace('#include "geo.h"\n', '#include "geo.h"\n\nconstexpr int kOrigin = 0 * 1;\n')


@pytest.fixture()
def geo_constexpr(tmp_path: Path) -> Path:
    return build_make_geo(tmp_path / "geo", GEO_CC_CONSTEXPR)


def test_the_search_screens_mutants_through_one_schema_and_compiles_the_fix_alone(geo_constexpr: Path) -> None:
    before = _tree_hashes(geo_constexpr)
    failure = _failure(geo_constexpr, "InsideExcludesFarEdge", Suspect("src/geo.cc", "inside", 11, 13, 1.0))
    failure.suspects += [Suspect("src/geo.cc", "manhattan", 7, 9, 0.5), Suspect("src/geo.cc", "kOrigin", 3, 3, 0.4)]
    stats = NativeSearchStats()
    found = native_search_candidates([failure], geo_constexpr, 60, store=geo_constexpr / ".whetstone", stats=stats)
    assert _tree_hashes(geo_constexpr) == before
    assert stats.schema["files"] == 1 and stats.schema["dropped"] >= 1, stats.to_dict()  # kOrigin's line
    assert stats.screened >= 1 and stats.screened < stats.tried, stats.to_dict()  # the fix was compiled alone
    top = found[0]
    assert top.validated and (top.edits[0].file_path, top.edits[0].new_text) == ("src/geo.cc", "<")


def test_an_error_inside_one_choice_names_that_mutant_alone(tmp_path: Path) -> None:
    # a typedef hides the pointer from the declarations, so the mutants that multiply it are made
    source = CPP.replace("namespace geo {", "namespace geo {\ntypedef const char *Str; Str skip(Str s) { return s + 1; }")
    mutants = mutants_in("geo.cc", source.encode(), 6, 22)
    schema = schema_text("geo.cc", source.encode(), mutants)
    assert schema is not None
    (tmp_path / "geo.cc").write_text(schema.text)
    build = subprocess.run(["g++", "-std=c++17", "-fdiagnostics-column-unit=byte", "-c", "geo.cc", "-o", "geo.o"],
                           cwd=tmp_path, capture_output=True, text=True)
    points = {(int(a), int(b)) for a, b in re.findall(r"^geo\.cc:(\d+):(\d+): error", build.stderr, re.M)}
    named = {schema.at(line, col) for line, col in points}
    assert named and None not in named
    by_key = {m.key: m for m in mutants}
    # a pointer times, over or modulo 1 (`s - 1` compiles)
    assert "*" in {by_key[k].edit.new_text for k in named if k} <= {"*", "/", "%"}
    again = schema_text("geo.cc", source.encode(), mutants, skip=frozenset(k for k in named if k))
    assert again is not None and 6 in again.lines
    (tmp_path / "geo.cc").write_text(again.text)
    assert subprocess.run(["g++", "-std=c++17", "-c", "geo.cc", "-o", "geo.o"], cwd=tmp_path).returncode == 0


FORWARDING = """\
#include <string>
#include <utility>
enum Op { ADD, SUB };
struct Unary { explicit Unary(Op op) : op(op) {} Op op; };
struct Node { Node(Op op, int lhs, std::string name) : op(op), lhs(lhs), name(std::move(name)) {} Op op; int lhs; std::string name; };
template <class T, class... Args> T *make(Args &&...args) { return new T(std::forward<Args>(args)...); }
Unary *negate(Op op, int n) {
  Unary *a = make<Unary>(op);
  Unary *b = make<Unary>(op == ADD ? SUB : ADD);
  return n > 0 ? a : b;
}
Node *build(Op op, int lhs, std::string name) {
  Node *a = make<Node>(op, lhs, name);
  Node *b = make<Node>(op == ADD ? SUB : ADD, lhs - 1, name);
  return lhs > 0 ? a : b;
}
"""


def _required_from_here(tmp_path: Path, schema_body: str) -> tuple[int, list[tuple[int, int]]]:
    (tmp_path / "fwd.cc").write_text(schema_body)
    build = subprocess.run(["g++", "-std=c++17", "-c", "fwd.cc", "-o", "fwd.o"], cwd=tmp_path, capture_output=True,
                           text=True)
    found = re.findall(r"^fwd\.cc:(\d+):(\d+):\s+required from here", build.stderr, re.M)
    return build.returncode, [(int(line), int(col)) for line, col in found]


def test_a_schema_of_an_enum_forwarded_through_a_template_compiles_the_first_time(tmp_path: Path) -> None:
    # `op` -> `op + 1` would be an int: g++ reports the forwarded argument inside the template, "required
    # from here" at the call's start, outside the one-argument choice, and the whole line is lost, one
    # more compile per such call (a C++ name is made one off only when declared an integer or a pointer)
    mutants = mutants_in("fwd.cc", FORWARDING.encode(), 7, 11)
    schema = schema_text("fwd.cc", FORWARDING.encode(), mutants)
    assert schema is not None and len(schema.ids) >= 6
    code, points = _required_from_here(tmp_path, schema.text)
    assert (code, points) == (0, [])


def test_a_type_error_two_swapped_arguments_cause_in_a_template_is_their_choice_s_own(tmp_path: Path) -> None:
    # the choice of a swap is the whole call, so "required from here" falls inside it: that mutant alone
    # is rejected and the rest of the line stays in the schema
    mutants = mutants_in("fwd.cc", FORWARDING.encode(), 12, 16)
    schema = schema_text("fwd.cc", FORWARDING.encode(), mutants)
    assert schema is not None
    code, points = _required_from_here(tmp_path, schema.text)
    assert code != 0 and points
    assert all(schema.at(line, col) is not None for line, col in points)


# --------------------------------------------------------------------------- a schema whose failure reads otherwise

PICK_CC = GEO_CC.replace("y <= h", "y < h") + """
const int* pick_max(const int* a, int n) {
  const int* best = a;
  for (int i = 1; i < n; ++i) {
    if (a[i] < *best) best = a + i;  // seeded fault: <
  }
  return best;
}
"""
PICK_TEST = """
const int* pick_max(const int* a, int n);
static const int kData[] = {3, 9, 4};
TEST(Geo, PickMax) { EXPECT_EQ(&kData[1], pick_max(kData, 3)); }
"""


def test_a_failure_that_prints_addresses_is_still_screened_through_the_schema(tmp_path: Path) -> None:
    """gtest prints the two pointers it compared, and a position-independent binary is loaded at another
    address each run: the unmutated schema fails the same test in other words.  It is the same failure,
    so the schema screens (before, it was refused and every mutant compiled alone)."""
    proj = build_make_geo(tmp_path / "geo", PICK_CC)
    with (proj / "tests/geo_test.cc").open("a") as test:
        test.write(PICK_TEST)
    build = subprocess.run(["make", "CXX=ccwrap++"], cwd=proj, env=_env(proj / ".whetstone"), capture_output=True,
                           text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    start = PICK_CC.splitlines().index("const int* pick_max(const int* a, int n) {") + 1
    before = _tree_hashes(proj)
    failure = _failure(proj, "PickMax", Suspect("src/geo.cc", "pick_max", start, start + 6, 1.0))
    stats = NativeSearchStats()
    found = native_search_candidates([failure], proj, 60, store=proj / ".whetstone", stats=stats)
    assert _tree_hashes(proj) == before
    assert stats.schema["files"] == 1 and stats.screened >= 1, stats.to_dict()
    assert not [n for n in stats.notes if "not used" in n], stats.notes
    top = found[0]
    assert top.validated and top.edits[0].new_text == ">", top


def test_a_schema_failing_the_same_tests_in_other_words_is_used_and_speaks_the_builds_words() -> None:
    """Compiled fast (-O0), a crash or an uninitialized read may fail with other words than the real build.
    Same failing tests, nothing passing: the schema is used, and a mutant's test failing as it did in the
    unmutated schema reads as the real build's failure (so it is not counted as a change)."""
    from pytest_whetstone.candidates.native_screen import Screen
    from pytest_whetstone.candidates.native_trial import TrialOutcome

    source = "int f(int a, int b) {\n  if (a < b) return a + b;\n  return a - b;\n}\n"
    mutants = mutants_in("f.cc", source.encode(), 1, 4)

    class Trial(CompilingTrial):
        def run_schema(self, rel: str, text: str, mutant_id: int, timeout_s: float, reached: str = "",
                       only: set[str] | None = None, spins: int = 0) -> TrialOutcome:
            if mutant_id == 2:
                return TrialOutcome(failing={"F1": "expected 3, got 5"})
            return TrialOutcome(failing={"F1": "crashed (exit -11)"})

    base = TrialOutcome(failing={"F1": "expected 3, got 4"}, seconds=0.01)
    screen = Screen(base, lambda rel: source, deadline=1e12, timeout_s=5.0)
    screen.add(mutants)
    screen.prepare(Trial())  # type: ignore[arg-type]
    assert screen.covers(mutants[0]) and not screen.notes, screen.notes
    outcomes = {screen.outcome(m, Trial()).failing["F1"] for m in mutants}  # type: ignore[arg-type, union-attr]
    assert outcomes == {"expected 3, got 4", "expected 3, got 5"}  # unchanged reads as the real build's


def test_a_schema_that_fails_other_tests_is_not_used() -> None:
    from pytest_whetstone.candidates.native_screen import Screen
    from pytest_whetstone.candidates.native_trial import TrialOutcome

    source = "int f(int a, int b) {\n  return a < b ? a : b;\n}\n"
    mutants = mutants_in("f.cc", source.encode(), 1, 3)

    class Trial(CompilingTrial):
        def run_schema(self, rel: str, text: str, mutant_id: int, timeout_s: float, reached: str = "",
                       only: set[str] | None = None, spins: int = 0) -> TrialOutcome:
            return TrialOutcome(failing={"F1": "x", "F2": "y"})

    screen = Screen(TrialOutcome(failing={"F1": "x"}), lambda rel: source, deadline=1e12, timeout_s=5.0)
    screen.add(mutants)
    screen.prepare(Trial())  # type: ignore[arg-type]
    assert not screen.covers(mutants[0])
    assert screen.notes == ["schema of f.cc: not used, it changes the unmutated tests (other failures)"]


def test_the_search_s_two_trials_share_one_build_of_each_schema(tmp_path: Path) -> None:
    """A schema's binary serves every mutant: the search's second trial runs the one the first built,
    rather than compiling and linking it again."""
    from pytest_whetstone.candidates.native_trial_cxx import cxx_trial

    proj = build_make_geo(tmp_path / "geo")
    failure = _failure(proj, "InsideExcludesFarEdge", Suspect("src/geo.cc", "inside", 9, 11, 1.0))
    first, why = cxx_trial([failure], proj, proj / ".whetstone", timeout_s=10.0)
    second, _ = cxx_trial([failure], proj, proj / ".whetstone", timeout_s=10.0)
    assert first is not None and second is not None, why
    try:
        second.share_with(first)
        mutants = mutants_in("src/geo.cc", GEO_CC.encode(), 9, 11)
        schema = schema_text("src/geo.cc", GEO_CC.encode(), mutants)
        assert schema is not None
        assert first.prepare_schema("src/geo.cc", schema.text) == ""

        def compile_again(*args: object, **kwargs: object) -> None:
            raise AssertionError("the second trial compiled the schema again")

        second._compile = compile_again  # type: ignore[method-assign, assignment]
        fix = next(m for m in mutants if m.edit.new_text == "<" and "y <= h" in m.description)
        outcome = second.run_schema("src/geo.cc", schema.text, schema.ids[fix.key], 5.0)
        assert outcome.passed == {failure.failure_id} and not outcome.error, outcome
    finally:
        first.close()
        second.close()


UNCALLED_C = C89.replace("int main(void) {", """static int never(int a) {
  if (a > 2) return a - 1;
  return a + 1;
}

int main(void) {""")


@pytest.mark.parametrize("compiler,name,source", [
    (["g++", "-std=c++17", "-O2"], "geo.cc", CPP.replace("int span(", "int unused(int a) { return a * 3 + 1; }\nint span(")),
    (["clang++", "-std=c++17"], "geo.cc", CPP.replace("int span(", "int unused(int a) { return a * 3 + 1; }\nint span(")),
    (["gcc", "-std=c89", "-pedantic-errors", "-Wall", "-Werror", "-w"], "sum.c", UNCALLED_C),
])
def test_a_schema_records_which_mutants_the_run_reached_and_no_more(
    tmp_path: Path, compiler: list[str], name: str, source: str
) -> None:
    """With $WHETSTONE_REACHED set, the schema writes the ids of the mutants whose expressions ran; a
    function the program never calls has none of its ids there.  Without it, nothing is written."""
    if not shutil.which(compiler[0]):
        pytest.skip(f"{compiler[0]} not installed")
    from pytest_whetstone.locate import cfamily

    lang = "c" if name.endswith(".c") else "cpp"
    funcs = {f.qualname: f for f in cfamily.functions_in(cfamily.parse_source(source.encode(), lang), name)}
    uncalled = funcs["never"] if "never" in funcs else funcs["geo::unused"]
    mutants = [m for f in funcs.values() if f.qualname not in ("main",)
               for m in mutants_in(name, source.encode(), f.line_start, f.line_end)]
    skip: set[int] = set()
    for _ in range(3):
        schema = schema_text(name, source.encode(), mutants, skip_lines=frozenset(skip))
        assert schema is not None
        (tmp_path / name).write_text(schema.text)
        build = subprocess.run([*compiler, name, "-o", "schema"], cwd=tmp_path, capture_output=True, text=True)
        named = {int(m) for m in re.findall(rf"^{re.escape(name)}:(\d+):\d+: error", build.stderr, re.M)}
        if build.returncode == 0 or not named:
            break
        skip |= named
    assert build.returncode == 0, build.stderr[-2000:]
    reach = tmp_path / "reached"
    run = subprocess.run([str(tmp_path / "schema")], env=dict(os.environ, **{REACHED_ENV: str(reach)}), timeout=10)
    assert run.returncode == 0
    reached = read_reached(reach)
    assert reached is not None
    in_uncalled = {mid for key, mid in schema.ids.items()
                   if uncalled.line_start <= key[1] <= uncalled.line_end}
    assert in_uncalled and not (in_uncalled & reached)
    assert len(reached) >= len(schema.ids) // 3 and reached <= set(schema.ids.values())
    files = sorted(tmp_path.iterdir())
    env = {k: v for k, v in os.environ.items() if k != REACHED_ENV}
    subprocess.run([str(tmp_path / "schema")], env=dict(env, **{ENV: "3"}), timeout=10)
    assert sorted(tmp_path.iterdir()) == files  # nothing recorded unless asked


def test_the_search_knows_without_a_run_that_a_mutant_the_failing_test_never_reaches_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`scale` and `manhattan` share the failing test's file but never run in it: their screened mutants
    cost no run, count as evidence that they are not the fault, and the fix in `inside` is found."""
    # the order by prior alone (no naturalness): the fix comes after the mutants this test watches
    monkeypatch.setattr("pytest_whetstone.candidates.native_plan.W_NATURAL", 0.0)
    proj = build_make_geo(tmp_path / "geo")
    failure = _failure(proj, "InsideExcludesFarEdge", Suspect("src/geo.cc", "scale", 13, 15, 1.0))
    failure.suspects += [Suspect("src/geo.cc", "manhattan", 5, 7, 0.9), Suspect("src/geo.cc", "inside", 9, 11, 0.5)]
    stats = NativeSearchStats()
    found = native_search_candidates([failure], proj, 60, store=proj / ".whetstone", stats=stats)
    assert stats.unreached >= 4 and stats.schema["reached"] >= 1, stats.to_dict()
    assert found and found[0].validated and found[0].edits[0].new_text == "<"
    assert [s.qualname for s in failure.suspects][0] == "inside"
    evidence = {e["qualname"]: e for e in stats.evidence}
    assert evidence["scale"]["tried"] >= 1 and evidence["scale"]["score"] == 0.0


def test_schemata_are_built_on_the_second_trial_while_the_spectrum_runs(tmp_path: Path, monkeypatch) -> None:
    """The spectrum (valgrind) takes one core for seconds: the files the static ranking points at get their
    schemata built on the other trial meanwhile, and the search then screens through them."""
    import threading

    from pytest_whetstone.candidates import native_trial_cxx

    proj = build_make_geo(tmp_path / "geo")
    built = threading.Event()
    seen: dict[str, bool] = {}
    prepare = native_trial_cxx.CxxTrial.prepare_schema

    def prepare_and_tell(self, rel: str, text: str) -> str:  # type: ignore[no-untyped-def]
        why = prepare(self, rel, text)
        built.set()
        return why

    def slow_profile(self, budget_s: float):  # type: ignore[no-untyped-def]
        seen["during"] = built.wait(timeout=30)
        return [], {}, "profile stubbed"

    monkeypatch.setattr(native_trial_cxx.CxxTrial, "prepare_schema", prepare_and_tell)
    monkeypatch.setattr(native_trial_cxx.CxxTrial, "profile", slow_profile)
    failure = _failure(proj, "InsideExcludesFarEdge", Suspect("src/geo.cc", "inside", 9, 11, 1.0))
    stats = NativeSearchStats()
    found = native_search_candidates([failure], proj, 60, store=proj / ".whetstone", stats=stats)
    assert seen == {"during": True}
    assert stats.schema["files"] == 1 and stats.screened >= 1, stats.to_dict()
    assert found and found[0].validated


THREADED = """\
#include <thread>

int twice(int v) {
  if (v < 0) return 0;
  return v * 2;
}

int main() {
  int a = 0, b = 0;
  std::thread t1([&] { for (int i = 0; i < 2000; ++i) a += twice(i); });
  std::thread t2([&] { for (int i = 0; i < 2000; ++i) b += twice(i); });
  t1.join();
  t2.join();
  return a == b ? 0 : 1;
}
"""


def test_a_threaded_schema_under_thread_sanitizer_reports_no_race_of_its_own(tmp_path: Path) -> None:
    """Two threads reach the same choices at once: the chooser and the reach record use atomics, so a
    -fsanitize=thread build of the user's stays quiet and the unmutated schema passes as the code does."""
    probe = subprocess.run(["g++", "-fsanitize=thread", "-x", "c++", "-", "-o", str(tmp_path / "p")],
                           input="int main() { return 0; }\n", capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("g++ cannot build with -fsanitize=thread here")
    mutants = mutants_in("twice.cc", THREADED.encode(), 3, 6)
    schema = schema_text("twice.cc", THREADED.encode(), mutants)
    assert schema is not None
    (tmp_path / "twice.cc").write_text(schema.text)
    build = subprocess.run(["g++", "-std=c++17", "-fsanitize=thread", "-g", "twice.cc", "-o", "schema", "-pthread"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    env = dict(os.environ, **{REACHED_ENV: str(tmp_path / "reached")}, TSAN_OPTIONS="halt_on_error=1")
    run = subprocess.run([str(tmp_path / "schema")], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 0 and "data race" not in run.stderr, run.stderr[-3000:]
    assert read_reached(tmp_path / "reached")


def test_an_early_build_stops_at_the_spectrum_s_end_and_forgets_the_files_it_did_not_start() -> None:
    """The plan made before the spectrum names files the plan made after it may not: a file whose schema
    was started keeps it; the others are forgotten, so only the second plan's files are built."""
    import threading

    from pytest_whetstone.candidates.native_screen import Screen
    from pytest_whetstone.candidates.native_trial import TrialOutcome

    sources = {"a.cc": "int f(int a, int b) {\n  return a < b ? a : b;\n}\n",
               "b.cc": "int g(int a) {\n  return a + 1;\n}\n"}
    stop = threading.Event()

    class Trial(CompilingTrial):
        built: list[str] = []

        def prepare_schema(self, rel: str, text: str) -> str:
            self.built.append(rel)
            stop.set()  # the spectrum ends while the first file is built
            return ""

        def run_schema(self, rel: str, text: str, mutant_id: int, timeout_s: float, reached: str = "",
                       only: set[str] | None = None, spins: int = 0) -> TrialOutcome:
            return TrialOutcome(failing={"F1": "x"})

    screen = Screen(TrialOutcome(failing={"F1": "x"}), sources.get, deadline=1e12, timeout_s=5.0)
    for rel, text in sources.items():
        screen.add(mutants_in(rel, text.encode(), 1, 3))
    trial = Trial()
    screen.prepare([trial], stop)  # type: ignore[list-item]
    screen.forget_pending()
    assert trial.built == ["a.cc"] and list(screen.files) == ["a.cc"]


def test_a_file_with_more_mutants_than_a_schema_holds_keeps_the_least_likely_kinds_last() -> None:
    """A plan made before the spectrum holds every function's mutants: past what one schema holds, the
    least likely kinds (listed first here) go to the one-at-a-time path, not the likely ones after them."""
    from pytest_whetstone.candidates.mutant import Mutant
    from pytest_whetstone.candidates.native_schema import MAX_SCHEMA_MUTANTS
    from pytest_whetstone.records import Position, TextEdit

    count = MAX_SCHEMA_MUTANTS + 100
    text = "".join(f"int f{i}(int x) {{ return x + {i}; }}\n" for i in range(count))
    cols = [line.index("+") + 1 for line in text.splitlines()]
    mutants = [Mutant("arith", f"line {i + 1}", TextEdit("many.c", Position(i + 1, col), Position(i + 1, col + 1), "-"),
                      i + 1, 0.3 if i < 200 else 0.9) for i, col in enumerate(cols)]
    schema = schema_text("many.c", text.encode(), mutants)
    assert schema is not None and len(schema.ids) == MAX_SCHEMA_MUTANTS
    assert all(m.key in schema.ids for m in mutants if m.prior == 0.9)
    assert sum(m.key in schema.ids for m in mutants if m.prior == 0.3) == MAX_SCHEMA_MUTANTS - (count - 200)


def test_a_full_schema_keeps_a_mutant_of_every_line_before_more_of_the_same_lines() -> None:
    """Past what one schema holds, each line's first mutant in the plan's order is in: the schema's record
    of what each test ran scores only the lines it holds, and the plan made from it can lift only those."""
    from pytest_whetstone.candidates.mutant import Mutant
    from pytest_whetstone.candidates.native_schema import MAX_SCHEMA_MUTANTS
    from pytest_whetstone.records import Position, TextEdit

    per_line, busy = 50, MAX_SCHEMA_MUTANTS // 50
    text = "".join(f"int f{i}(int x) {{ return x + {i}; }}\n" for i in range(busy + 3))
    cols = [line.index("+") + 1 for line in text.splitlines()]

    def edit(i: int, new: str) -> TextEdit:
        return TextEdit("many.c", Position(i + 1, cols[i]), Position(i + 1, cols[i] + 1), new)

    mutants = [Mutant("arith", f"line {i + 1} #{k}", edit(i, f"+ {k} +"), i + 1, 0.9)
               for i in range(busy) for k in range(per_line)]
    late = [Mutant("negate", f"line {i + 1}", edit(i, "-"), i + 1, 0.5) for i in range(busy, busy + 3)]
    schema = schema_text("many.c", text.encode(), mutants + late)
    assert schema is not None and len(schema.ids) == MAX_SCHEMA_MUTANTS
    assert all(m.key in schema.ids for m in late)
    assert all(m.key in schema.ids for m in mutants[:MAX_SCHEMA_MUTANTS - len(late)])


def test_a_schema_of_thousands_of_mutants_compiles_once_and_records_the_reach_of_its_last_ones(tmp_path: Path) -> None:
    """A big file's mutants all fit one schema (MAX_SCHEMA_MUTANTS, not the 600 it used to hold), and the
    ids past the old 1,024 reach slots are recorded too: real gcc, a program that calls only its last
    functions."""
    if not shutil.which("gcc"):
        pytest.skip("gcc not installed")
    from pytest_whetstone.candidates.native_schema import REACH_SLOTS
    from pytest_whetstone.locate import cfamily

    count = 60  # some 34 mutants each: near 2,000
    lines = [f"int f{i}(int x) {{ if (x > {i % 7}) return x - {i % 5}; return x * 2 + 1; }}" for i in range(count)]
    calls = " + ".join(f"f{i}(argc)" for i in range(count - 3, count))
    source = "\n".join([*lines, f"int main(int argc, char **argv) {{ (void)argv; return ({calls}) < 0; }}", ""])
    funcs = [f for f in cfamily.functions_in(cfamily.parse_source(source.encode(), "c"), "big.c") if f.qualname != "main"]
    mutants = [m for f in funcs for m in mutants_in("big.c", source.encode(), f.line_start, f.line_end)]
    schema = schema_text("big.c", source.encode(), mutants)
    assert schema is not None and 1500 < len(schema.ids) < REACH_SLOTS
    (tmp_path / "big.c").write_text(schema.text)
    build = subprocess.run(["gcc", "-std=c99", "-w", "-O0", "big.c", "-o", "schema"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    reach = tmp_path / "reached"
    run = subprocess.run([str(tmp_path / "schema")], env=dict(os.environ, **{REACHED_ENV: str(reach)}), timeout=10)
    assert run.returncode == 0
    reached = read_reached(reach)
    last = {mid for key, mid in schema.ids.items() if key[1] > count - 3}
    assert reached and reached <= last  # only the functions main calls ran
    assert max(reached) > 1024


NEGATED_VALUES_CC = """\
#include <cassert>
#include <string>
struct Entry { bool in_cache; int refs; bool Ready() const { return refs > 0; } };
static void use(int, const std::string&, bool, const Entry*) {}
bool ready(int n) { return n > 1; }
int release(Entry* e, int n, std::string name) {
  assert(e->in_cache);
  bool ok = ready(n);
  e->in_cache = ok && n;
  use(n, name, e->Ready(), e);
  return ok;
}
"""


def test_negations_of_arguments_and_stored_values_compile_in_one_schema(tmp_path: Path) -> None:
    """The negations of values a place does not say are truth values are made only where the type allows:
    a schema of all of them compiles at the first attempt, no line left out (other families' misfits, a
    swapped pair of arguments of two types, are the compiler's to name)."""
    mutants = [m for m in mutants_in("rel.cc", NEGATED_VALUES_CC.encode(), 6, 12) if m.kind == "negate"]
    assert len(mutants) >= 5
    schema = schema_text("rel.cc", NEGATED_VALUES_CC.encode(), mutants)
    assert schema is not None
    (tmp_path / "rel.cc").write_text(schema.text)
    build = subprocess.run(["g++", "-std=c++17", "-c", "rel.cc", "-o", "rel.o"], cwd=tmp_path, capture_output=True,
                           text=True)
    assert build.returncode == 0, build.stderr[-2000:]


MACRO_C = """\
#include <stddef.h>
typedef struct { const char *content; size_t offset, length; } buffer;
#define can_read(b, size) (((b) != NULL) && (((b)->offset + (size)) <= (b)->length))
int is_null(buffer *input) {
  if (can_read(input, 4) && input->content[input->offset] == 'n') return 1;
  return 0;
}
"""


def test_an_error_in_a_macros_body_names_the_choice_whose_invocation_it_came_from(tmp_path: Path) -> None:
    """`can_read(input, 4)` with its arguments swapped fails inside the macro's body (`(4)->offset`); gcc
    names the line of the macro's definition and, in a note, the invocation, which lies inside that one
    choice's text.  The swap alone is rejected; the line's other mutants (the `4` one off) keep their
    choices in the schema instead of the whole line being left out."""
    from pytest_whetstone.candidates.native_schema_errors import error_lines_in
    from pytest_whetstone.parse import parse_text

    mutants = mutants_in("m.c", MACRO_C.encode(), 4, 7)
    schema = schema_text("m.c", MACRO_C.encode(), mutants)
    assert schema is not None
    (tmp_path / "m.c").write_text(schema.text)
    build = subprocess.run(["gcc", "-fdiagnostics-column-unit=byte", "-c", "m.c", "-o", "m.o"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert build.returncode != 0 and "in expansion of macro" in build.stderr
    records = parse_text(build.stderr, cwd=str(tmp_path)).build_errors
    _lines, points = error_lines_in(records, tmp_path / "m.c")
    named = {schema.at(line, col) for line, col in points} - {None}
    by_key = {m.key: m for m in mutants}
    assert named and {by_key[k].kind for k in named} == {"swap-args"}, [by_key[k].description for k in named]
    again = schema_text("m.c", MACRO_C.encode(), mutants, skip=frozenset(named))
    assert again is not None and 5 in again.lines
    (tmp_path / "m.c").write_text(again.text)
    assert subprocess.run(["gcc", "-c", "m.c", "-o", "m.o"], cwd=tmp_path).returncode == 0
