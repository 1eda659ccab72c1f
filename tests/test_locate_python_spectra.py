"""Value faults located by the spectrum of the failing module's tests (locate/pyspectra.py).

The failing test asserts a value the code returned, so its traceback names only the test; the passing
tests of the same module, traced in a fork at the end of the run, tell the functions it ran apart.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_whetstone.locate import pyspectra
from pytest_whetstone.locate.budget import SPECTRA_FLOOR_S, spectra_budget
from pytest_whetstone.locate.python import (
    Evidence,
    asserted_functions,
    evidence_dict,
    evidence_from,
    rank_suspects,
)
from pytest_whetstone.locate.sbfl import count_spectrum, dstar, ochiai, suspiciousness
from pytest_whetstone.records import TestFailureRecord
from pytest_whetstone.store.sessions import load_session

# --------------------------------------------------------------------------- scoring


def test_formulas() -> None:
    assert ochiai(1, 0, 1) == 1.0
    assert ochiai(1, 3, 1) == pytest.approx(0.5)
    assert dstar(2, 0, 2) == 1.0  # every failing test, no passing one
    assert dstar(0, 4, 2) == 0.0
    # DStar's order: failing coverage counts squared, so ran-by-both-failing beats ran-by-one
    assert dstar(2, 2, 2) > dstar(1, 0, 2) > dstar(1, 3, 2)
    assert 0.0 < dstar(1, 3, 2) < 1.0
    assert suspiciousness("dstar", 1, 1, 1) == dstar(1, 1, 1)
    assert suspiciousness("ochiai", 1, 1, 1) == ochiai(1, 1, 1)


def test_count_spectrum() -> None:
    per_test = {"f1": {("a.py", "x"), ("a.py", "y")}, "p1": {("a.py", "y")}, "p2": {("a.py", "y"), ("a.py", "z")}}
    assert count_spectrum(per_test, {"f1"}) == {("a.py", "x"): (1, 0), ("a.py", "y"): (1, 2), ("a.py", "z"): (0, 1)}


def _pkg(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    impl = tmp_path / "pkg" / "report.py"
    impl.write_text("def parse(s):\n    return s\n\n\ndef render(d):\n    return d\n")
    return impl


def test_a_module_spectrum_reorders_the_callees_and_says_why(tmp_path: Path) -> None:
    impl = str(_pkg(tmp_path))
    test_file = tmp_path / "tests" / "test_report.py"
    test_file.parent.mkdir()
    test_file.write_text("def test_report():\n    assert render(parse('a')) == 'b'\n")
    base = Evidence(test_file=str(test_file), test_line=1, test_name="test_report",
                    called=[(impl, "parse"), (impl, "render")], covered_lines={impl: {2, 6}})
    before = rank_suspects(base, str(tmp_path))
    assert before[0].qualname == "parse"  # called first
    spectrum = count_spectrum({"f": {(impl, "parse"), (impl, "render")}, "p1": {(impl, "parse")},
                               "p2": {(impl, "parse")}}, {"f"})
    ev = Evidence(**{**base.__dict__, "spectrum": spectrum, "spectrum_scope": "module", "total_failed": 1,
                     "total_passed": 2, "spectrum_remark": ""})
    after = rank_suspects(ev, str(tmp_path))
    assert [s.qualname for s in after] == ["render", "parse"]
    assert after[0].evidence == "dstar 1.00 over 1 failing / 2 passing tests (run by 1 / 0)"
    assert after[1].evidence.startswith("dstar 0.33 ")
    # the evidence survives its JSON form (what $WHETSTONE_LOCATE_LOG records)
    again = evidence_from(json.loads(json.dumps(evidence_dict(ev))))
    assert [s.to_dict() for s in rank_suspects(again, str(tmp_path))] == [s.to_dict() for s in after]


def test_asserted_functions_follow_the_failing_statement_one_step_back(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "lib.py").write_text("def parse(s):\n    return s\n\n\ndef render(d):\n    return d\n\n\n"
                                     "def total(d):\n    return d\n")
    test_file = tmp_path / "test_lib.py"
    test_file.write_text(textwrap.dedent("""\
        from lib import parse, render, total

        def test_text():
            data = parse("a")
            text = render(data)
            n = total(data)
            assert text == "b"

        def test_direct():
            assert (total(parse("a")), render("x")) == (3, "y")
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    ws = str(tmp_path)
    lib = str(tmp_path / "lib.py")
    assert asserted_functions(str(test_file), 3, 7, None, ws) == [(lib, "render")]  # text <- render(data)
    assert asserted_functions(str(test_file), 9, 10, None, ws) == [(lib, "total"), (lib, "render"), (lib, "parse")]
    assert asserted_functions(str(test_file), 3, 0, None, ws) == []


def test_a_decorated_test_resolves_its_calls_through_its_own_module(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(lib="def parse(s):\n    return s\n")
    pytester.mkdir("tests")
    # a decorator from another module (freezegun's, mock.patch): the wrapper's globals are that module's
    (pytester.path / "tests" / "deco.py").write_text(textwrap.dedent("""\
        import functools

        def frozen(fn):
            @functools.wraps(fn)
            def wrapper(*a, **k):
                return fn(*a, **k)
            return wrapper
        """))
    (pytester.path / "tests" / "test_lib.py").write_text(textwrap.dedent("""\
        from deco import frozen
        from lib import parse

        @frozen
        def test_parse():
            assert parse("a") == "b"
        """))
    pytester.makeini("[pytest]\npythonpath = . tests\n")
    log = pytester.path / "locate.jsonl"
    proc = _pytest(pytester, WHETSTONE_LOCATE_LOG=str(log))
    assert "1 failed" in proc.stdout
    evidence = json.loads(log.read_text().splitlines()[0])["evidence"]
    assert [q for _f, q in evidence["called"]] == ["parse"]
    assert [q for _f, q in evidence["asserted"]] == ["parse"]


def test_the_suite_spectrum_of_sbfl_mode_keeps_its_weight(tmp_path: Path) -> None:
    impl = str(_pkg(tmp_path))
    ev = Evidence(test_file="", test_line=0, test_name="t", spectrum={(impl, "parse"): (1, 0)})
    (top,) = rank_suspects(ev, str(tmp_path))
    assert top.score == pytest.approx(0.3) and top.evidence == ""


# --------------------------------------------------------------------------- which tests, what budget


def _cap(**record: object) -> SimpleNamespace:
    return SimpleNamespace(record=TestFailureRecord(**record), subtest=False, missing_name="")  # type: ignore[arg-type]


def test_is_value_fault() -> None:
    assert pyspectra.is_value_fault(_cap(outcome="failed", failure_type="assertion"))
    assert not pyspectra.is_value_fault(_cap(outcome="failed", impl_file="pkg/a.py", impl_line=3))
    assert not pyspectra.is_value_fault(_cap(outcome="error"))  # setup / teardown
    assert not pyspectra.is_value_fault(_cap(outcome="failed", flaky=True))
    named = _cap(outcome="failed")
    named.missing_name = "helper"
    assert not pyspectra.is_value_fault(named)


def test_passing_tests_that_name_the_failing_functions_come_first(tmp_path: Path) -> None:
    test_file = tmp_path / "test_m.py"
    test_file.write_text(textwrap.dedent("""\
        def test_other():
            assert unrelated() == 1

        def test_render_a():
            assert render(1) == 1

        def test_slow_render():
            assert render(2) == 2

        class TestParse:
            def test_one(self):
                assert parse_it() == 1

            def test_two(self):
                assert 1
        """))

    def item(nodeid: str, line: int) -> SimpleNamespace:
        return SimpleNamespace(nodeid=nodeid, path=test_file, location=("test_m.py", line - 1, nodeid))

    items = [item("test_m.py::test_other", 1), item("test_m.py::test_render_a", 4),
             item("test_m.py::test_slow_render", 7), item("test_m.py::TestParse::test_two", 14)]
    durations = {"test_m.py::test_render_a": 0.01, "test_m.py::test_slow_render": 0.001,
                 "test_m.py::test_other": 0.0, "test_m.py::TestParse::test_two": 0.0}
    names = pyspectra.suspect_names([("pkg.py", "render"), ("pkg.py", "Parser.__init__"), ("pkg.py", "f.<locals>.<lambda>")])
    assert names == {"render", "__init__", "Parser"}
    ordered = pyspectra.order_passing(items, ["test_m.py::TestParse::test_one"], names, durations)
    # naming a function the failing test ran, or sharing its class, counts; then the cheapest first
    assert [i.nodeid for i in ordered] == ["test_m.py::TestParse::test_two", "test_m.py::test_slow_render",
                                           "test_m.py::test_render_a", "test_m.py::test_other"]


def test_spectra_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WHETSTONE_SPECTRA_S", raising=False)
    assert spectra_budget(10.0, 0.0) == pytest.approx(1.2)  # 12% of the run
    assert spectra_budget(10.0, 1.8) == pytest.approx(0.08)  # what the allowance has left
    assert spectra_budget(0.5, 0.0) == SPECTRA_FLOOR_S  # a short run still traces a few tests
    assert spectra_budget(100.0, 40.0) == 0.0
    assert spectra_budget(100.0, 40.0, explicit=True) == 3.0
    monkeypatch.setenv("WHETSTONE_SPECTRA_S", "0")
    assert spectra_budget(100.0, 0.0) == 0.0


# --------------------------------------------------------------------------- end to end

REPORT = '''
def _split(text):
    return [part for part in text.split(";") if part]


def parse(text):
    pairs = [part.split("=") for part in _split(text)]
    return {key.strip(): int(value) for key, value in pairs}


def total(data):
    return sum(data.values())


def render(data):
    return ",".join(f"{key}:{value}" for key, value in sorted(data.items(), reverse=True))  # fault: reversed
'''

TEST_REPORT = '''
from pkg.report import parse, render, total


def test_report_line():
    data = parse("a=1;b=2")
    assert (total(data), render(data)) == (3, "a:1,b:2")


def test_parse_pairs():
    assert parse("x=1; y=2") == {"x": 1, "y": 2}


def test_parse_empty():
    assert parse("") == {}


def test_total():
    assert total(parse("a=1;b=2")) == 3
'''


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("WHETSTONE_DIR", "WHETSTONE_SESSION", "WHETSTONE_NESTED", "WHETSTONE_PYTEST", "PYTEST_ADDOPTS")}
    env["WHETSTONE_MUTANT_PASS_S"] = "0"  # the spectrum alone decides here, not mutants
    env.update(extra)
    return env


def _project(pytester: pytest.Pytester) -> None:
    pytester.mkpydir("pkg")
    (pytester.path / "pkg" / "report.py").write_text(REPORT)
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_report.py").write_text(TEST_REPORT)
    pytester.makeini("[pytest]\npythonpath = .\n")


def _pytest(pytester: pytest.Pytester, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "whetstone",
                           "--whetstone-search=0", *args], cwd=pytester.path, env=_env(**env),
                          capture_output=True, text=True, timeout=120)


def _events(path: Path, name: str) -> list[dict]:
    return [e["data"] for e in load_session(path / ".whetstone").events() if e["event"] == name]


def test_a_value_fault_ranks_its_callee_by_the_module_spectrum(pytester: pytest.Pytester) -> None:
    _project(pytester)
    off = _pytest(pytester, "tests", WHETSTONE_SPECTRA_S="0")
    assert "1 failed, 3 passed" in off.stdout
    before = load_session(pytester.path / ".whetstone").state().test_failures[0].suspects
    assert before[0].qualname == "total"  # checked first by the assertion: the static signals' pick

    proc = _pytest(pytester, "tests", WHETSTONE_SPECTRA_S="5")
    assert "1 failed, 3 passed" in proc.stdout
    assert "spectra: 1 failing / 3 passing tests traced" in proc.stdout
    assert "whetstone: warning" not in proc.stdout + proc.stderr
    failure = load_session(pytester.path / ".whetstone").state().test_failures[0]
    top = failure.suspects[0]
    assert top.qualname == "render", failure.suspects
    assert top.evidence == "dstar 1.00 over 1 failing / 3 passing tests (run by 1 / 0)"
    stats = _events(pytester.path, "plugin_stats")[-1]["spectra"]
    assert stats["passing_traced"] == 3 and not stats["cut_short"]
    report = subprocess.run([sys.executable, "-m", "pytest_whetstone", "report", "--format", "json"],
                            cwd=pytester.path, env=_env(), capture_output=True, text=True, timeout=60)
    suspects = json.loads(report.stdout)["test_failures"][0]["suspects"]
    assert suspects[0]["qualname"] == "render" and suspects[0]["evidence"].startswith("dstar 1.00 over 1 failing")
    text = subprocess.run([sys.executable, "-m", "pytest_whetstone", "report"], cwd=pytester.path, env=_env(),
                          capture_output=True, text=True, timeout=60).stdout
    assert "render (dstar 1.00 over 1 failing / 3 passing tests (run by 1 / 0))" in text


def test_a_pass_cut_short_says_so(pytester: pytest.Pytester) -> None:
    _project(pytester)
    (pytester.path / "tests" / "conftest.py").write_text(
        "import time\nimport pytest\n\n@pytest.hookimpl(wrapper=True)\ndef pytest_runtest_call(item):\n"
        "    if 'parse_empty' in item.name:\n        time.sleep(0.3)  # in the call: its measured duration\n"
        "    return (yield)\n")
    proc = _pytest(pytester, "tests", WHETSTONE_SPECTRA_S="0.25")
    assert "1 failed, 3 passed" in proc.stdout
    assert "(cut short by the budget: 1 not traced)" in proc.stdout
    top = load_session(pytester.path / ".whetstone").state().test_failures[0].suspects[0]
    assert top.evidence.endswith("; cut short: 2 of 3 passing tests traced"), top


THREADED = '''
import threading


def helper_format(text):
    return text.strip()


def handle(request, replies):
    if not request:
        raise ValueError("empty request")  # fault: an empty request is a valid ping
    replies.append(request.upper() + "!")


def serve(request):
    replies = []
    worker = threading.Thread(target=handle, args=(helper_format(request), replies))
    worker.start()
    worker.join(5)
    return replies
'''

TEST_THREADED = '''
from server import helper_format, serve


def test_serve_empty():
    assert serve("  ") == ["!"]


def test_serve_replies():
    assert serve(" ping ") == ["PING!"]


def test_format():
    assert helper_format(" a ") == "a"
'''


def test_a_thread_exception_stays_the_evidence_beside_the_spectrum(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(server=THREADED, test_server=TEST_THREADED)
    pytester.makeini("[pytest]\npythonpath = .\n")
    proc = _pytest(pytester, WHETSTONE_SPECTRA_S="5")
    assert "1 failed, 2 passed" in proc.stdout
    assert "spectra: 1 failing / 2 passing tests traced" in proc.stdout
    (failure,) = load_session(pytester.path / ".whetstone").state().test_failures
    # the test only sees a missing reply; the thread's traceback (PytestUnhandledThreadExceptionWarning)
    # names the handler, and the passing tests ran serve and helper_format too
    assert failure.suspects[0].qualname == "handle", failure.suspects


PATCHES_SETTRACE = '''
import sys

sys.settrace = lambda function: None  # a suite that keeps tracers out
'''


@pytest.mark.parametrize("setup", ["settrace", "pytest-cov"])
def test_a_suite_with_its_own_tracing_keeps_its_outcomes(pytester: pytest.Pytester, setup: str) -> None:
    _project(pytester)
    args = ["tests"]
    if setup == "settrace":
        (pytester.path / "tests" / "conftest.py").write_text(PATCHES_SETTRACE)
    else:
        args = ["--cov=pkg", "--cov-report=term-missing", "tests"]
    plain = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:whetstone", *args],
                           cwd=pytester.path, env=_env(), capture_output=True, text=True, timeout=120)
    ours = _pytest(pytester, *args, WHETSTONE_SPECTRA_S="5")
    summary = [ln for ln in plain.stdout.splitlines() if " failed" in ln and " passed" in ln][-1].split(" in ")[0]
    assert summary in ours.stdout
    assert [ln for ln in plain.stdout.splitlines() if ln.startswith("pkg/")] == [
        ln for ln in ours.stdout.splitlines() if ln.startswith("pkg/")]  # pytest-cov's table, unchanged
    assert (ours.stdout + ours.stderr).count("whetstone: warning") <= 1
    failure = load_session(pytester.path / ".whetstone").state().test_failures[0]
    assert failure.suspects and failure.suspects[0].qualname in ("render", "parse")
