"""Hand-typed truth for the Python / JavaScript test-runner logs of held-out corpus 2 (this helper's
part: pytest/, unittest/, traceback/, jest/, vitest/, mocha/, node_spec/, tap/p_*, junit/p_*), written
from reading each log; never taken from the parsers.  Counts are the runner's own summary line:
``fail_count`` failed tests, ``error_count`` tests that errored (pytest ``N errors``, unittest
``errors=N``, Jest's suites that failed to run), ``skip_count`` skipped only, ``xfail_count`` /
``xpass_count`` where the summary states them.  Conventions: README_pyjs.md.
Run ``python bench/heldout2/tests/labels_pyjs.py`` to rewrite the ``<log>.labels.json`` files.
"""

import json
from pathlib import Path

HERE = Path(__file__).parent
FUNCY = "/tmp/ho2/pyjs/funcy/"
IDNA = "/tmp/ho2/pyjs/idna/"
JS = "/tmp/ho2/pyjs/js/"


def F(runner, suite, name, ftype, exp="", act="", file="", line=0):
    return {"runner": runner, "test_suite": suite, "test_name": name, "failure_type": ftype,
            "expected_value": exp, "actual_value": act, "file_path": file, "line": line}


# ----------------------------------------------------------------------------- pytest (funcy 2.0)
S, Q, C, X = "tests/test_strings.py", "tests/test_seqs.py", "tests/test_colls.py", "tests/test_extra_ho2.py"
PROJ = ("{'a': 1, 'c': 3}", "{'a': 1}")
CHUNK = ("[[0, 1, 2, 3], [5]]", "[[0, 1, 2, 3], [4]]")
SETS = ("{1, 2, 3, 4}", "{1, 2, 3}")


def P(suite, name, ftype, vals=("", ""), line=0, file=None):
    return F("pytest", suite, name, ftype, vals[0], vals[1], suite if file is None else file, line)


def cut():
    return P(S, "test_cut_suffix", "assertion", ("'name'", "'nam'"), 28)


NTH = P(Q, "test_nth", "exception", line=49)  # IndexError raised in funcy/seqs.py:73
PROJECT = P(C, "test_project", "assertion", PROJ, 210)
LCHUNKS = P(X, "test_lchunks[4-expected2]", "assertion", CHUNK, 12)
MERGE = P(X, "TestMerge::test_sets", "assertion", SETS, 20)
MAIN = [cut(), NTH, PROJECT, LCHUNKS, MERGE]


def absolute(rows):
    return [dict(r, file_path=FUNCY + r["file_path"]) if r["file_path"] else r for r in rows]


def tb_line(rows):
    """--tb=line: one absolute location per failure; test_nth's is funcy/seqs.py:73, not the test."""
    return [dict(r, file_path="", line=0) if r["test_name"] == "test_nth" else r for r in absolute(rows)]


def tb_no(rows):
    """--tb=no: only the summary lines, each cut with '...' (values unreadable), no locations."""
    return [dict(r, expected_value="", actual_value="", file_path="", line=0) for r in rows]


def pytest_counts(p, f, s=0, e=0, **more):
    return dict(fail_count=f, error_count=e, pass_count=p, skip_count=s, **more)


MAIN_COUNTS = pytest_counts(100, 5, 1)  # "5 failed, 100 passed, 1 skipped"
FIXTURE = [P("tests/test_fixture_ho2.py", "test_walk_settings", "infra", line=9),    # ERROR at setup
           P("tests/test_fixture_ho2.py", "test_walk_counters", "infra", line=16)]   # ERROR at teardown

PYTEST = {
    "pytest/funcy.log": (MAIN, MAIN_COUNTS),
    "pytest/funcy_verbose.log": (MAIN, MAIN_COUNTS),
    "pytest/funcy_tb_short.log": (MAIN, MAIN_COUNTS),
    "pytest/funcy_tb_line.log": (tb_line(MAIN), MAIN_COUNTS),
    # --tb=native: Python's frames with absolute paths; the test's own frame gives file:line
    "pytest/funcy_tb_native.log": (absolute([cut(), NTH, PROJECT]), pytest_counts(96, 3)),
    "pytest/funcy_tb_no.log": (tb_no(MAIN), MAIN_COUNTS),
    "pytest/funcy_tb_long.log": ([NTH, LCHUNKS, MERGE], pytest_counts(47, 3, 1)),
    "pytest/funcy_rA.log": ([cut(), LCHUNKS, MERGE], pytest_counts(8, 3, 1)),
    "pytest/funcy_exitfirst.log": ([NTH], pytest_counts(7, 1)),
    # -rxX: "3 failed, 5 passed, 1 xfailed, 1 xpassed"; the strict XPASS is a failure with no location
    "pytest/funcy_xfail.log": ([P("tests/test_marks_ho2.py", "test_cut_prefix_case", "assertion", file=""),
                                P("tests/test_marks_ho2.py", "test_re_find_groups", "assertion",
                                  ("('a', '2')", "('a', '1')"), 25),
                                cut()], pytest_counts(5, 3, xfail_count=1, xpass_count=1)),
    # "1 failed, 4 passed, 1 error": the ImportError while collecting tests/test_broken_ho2.py
    "pytest/funcy_collect.log": ([P("tests/test_broken_ho2.py", "tests/test_broken_ho2.py", "infra", line=1), cut()],
                                 pytest_counts(4, 1, e=1)),
    "pytest/funcy_fixture.log": (FIXTURE, pytest_counts(2, 0, e=2)),  # "2 passed, 2 errors"
    "pytest/funcy_xdist.log": (MAIN, MAIN_COUNTS),
}


def py_junit(rows):
    """pytest --junitxml: test_suite is the testcase's classname (dotted module[.Class])."""
    out = []
    for r in rows:
        suite, name = r["test_suite"].removesuffix(".py").replace("/", "."), r["test_name"]
        if "::" in name:
            cls, name = name.split("::")
            suite = f"{suite}.{cls}"
        out.append(dict(r, test_suite=suite, test_name=name, runner="pytest"))
    return out


# ----------------------------------------------------------------------------- unittest (idna 3.10)
IT, IX = IDNA + "tests/test_idna.py", IDNA + "tests/test_ho2_extra.py"
UNITTEST_RUN = [
    F("unittest", "tests.test_ho2_extra.HostTests", "test_decode_punycode_label", "exception", file=IX, line=9),
    F("unittest", "tests.test_idna.IDNATests", "test_decode", "assertion", "'abc.abc'", "'ABC.ABC'", IT, 275),
    F("unittest", "tests.test_idna.IDNATests", "test_encode", "assertion", file=IT, line=253),
    F("unittest", "tests.test_idna.IDNATests", "test_valid_label_length", "assertion", file=IT, line=80),
    F("unittest", "tests.test_ho2_extra.HostTests", "test_label_lengths (n=64)", "assertion", "False", "True", IX, 14),
]
# "Ran 23 tests", "FAILED (failures=4, errors=1, skipped=1, expected failures=1)"
UT_COUNTS = dict(fail_count=4, error_count=1, pass_count=16, skip_count=1, xfail_count=1)

TRACEBACK = {
    "traceback/idna_script.log": ([F("python", "<string>", "", "exception", file=IDNA + "idna/core.py", line=277)],
                                  dict(fail_count=1, pass_count=0, skip_count=0)),
    "traceback/idna_syntax.log": ([F("python", "<string>", "", "exception", file=IDNA + "idna/intranges_broken.py",
                                     line=35)], dict(fail_count=1, pass_count=0, skip_count=0)),
    # three chained tracebacks; the last one (ValueError raised in tools/hosts.py) is the record
    "traceback/idna_chained.log": ([F("python", IDNA + "tools/hosts.py", "", "exception", file=IDNA + "tools/hosts.py",
                                      line=11)], dict(fail_count=1, pass_count=0, skip_count=0)),
}

# ----------------------------------------------------------------------------- Jest (pluralize 8.0.0)
JF = "jest/pluralize.test.js"


def jest_rows(file=JF):
    return [
        F("jest", JF, "plural › irregular nouns", "assertion", '"persons"', '"people"', file, 8),
        F("jest", JF, "plural › plural of quiz", "assertion", '"quizs"', '"quizzes"', file, 11),
        F("jest", JF, "counts › words list", "assertion", '"mouses",', '"mice",', file, 20),
        F("jest", JF, "plural of a missing word", "exception", file=file, line=30),  # TypeError in pluralize.js
    ]


JEST_COUNTS = dict(fail_count=4, pass_count=6, skip_count=1)  # "4 failed, 1 skipped, 6 passed, 11 total"
JEST = {
    "jest/pluralize.log": (jest_rows(), JEST_COUNTS),
    "jest/pluralize_verbose.log": (jest_rows(), JEST_COUNTS),
    # "Test Suites: 2 failed, 1 passed", "Tests: 1 passed": two files that failed to run
    "jest/pluralize_suite_failed.log": (
        [F("jest", "jest/syntax.test.js", "Test suite failed to run", "infra", file="jest/syntax.test.js"),
         F("jest", "jest/missing_helper.test.js", "Test suite failed to run", "infra",
           file="jest/missing_helper.test.js", line=2)],
        dict(fail_count=0, error_count=2, pass_count=1, skip_count=0)),
}


def jest_junit(rows):
    return [dict(r, test_suite="", test_name=r["test_name"].replace(" › ", " ")) for r in rows]


# ----------------------------------------------------------------------------- vitest (pluralize)
VF = "vitest/pluralize.vitest.test.js"
VITEST = {
    # "Tests  3 failed | 2 passed | 1 skipped | 1 todo (7)"
    "vitest/pluralize.log": ([
        F("vitest", VF, "plural > irregular nouns", "assertion", "'persons'", "'people'", VF, 6),
        F("vitest", VF, "plural > words list", "assertion", "[ 'geese', 'mouses' ]", "[ 'geese', 'mice' ]", VF, 7),
        F("vitest", VF, "singular > missing word", "exception", file=VF, line=12),
    ], dict(fail_count=3, pass_count=2, skip_count=1)),
}

# ----------------------------------------------------------------------------- mocha, node --test, tape
MF, MABS = "mocha/escape.mocha.test.js", JS + "mocha/escape.mocha.test.js"
APOS = ("'it&apos;s'", "'it&#39;s'")


def mocha_rows(runner="mocha", sep=" > "):
    suite = MF if runner == "mocha" else ""
    return [
        F(runner, suite, sep.join(["escapeHtml", "escapes the apostrophe"]), "assertion", *APOS, MF, 6),
        F(runner, suite, sep.join(["escapeHtml", "escapes a symbol"]), "exception", file=MF, line=8),
        F(runner, suite, sep.join(["escapeHtml", "lists", "maps a list"]), "assertion", file=MF, line=10),
        F(runner, MABS if runner == "mocha" else "", sep.join(["renderer", "waits for the template"]), "timeout",
          file=MABS),
    ]


NF, NABS = "node/escape.node.test.js", JS + "node/escape.node.test.js"
NODE_SPEC = [
    F("node", NF, "escapeHtml > escapes the apostrophe", "assertion", *APOS, NABS, 7),
    F("node", NF, "escapeHtml > escapes a symbol", "exception", file=NABS, line=8),
    F("node", NF, "escapeHtml > objects > escapes a field", "assertion", "{ html: 'a&amp;b;' }",
      "{ html: 'a&amp;b' }", NABS, 10),
    # no stack: placed where its "test at node/escape.node.test.js:16:3" says
    F("node", NF, "renderer > waits for the template", "timeout", file=NF, line=16),
]
NODE_TAP = [
    F("tap", "", "escapeHtml > escapes the apostrophe", "assertion", *APOS, NABS, 7),
    F("tap", "", "escapeHtml > escapes a symbol", "exception", file=NABS, line=8),
    F("tap", "", "escapeHtml > objects > escapes a field", "assertion", "html: 'a&amp;b;'", "html: 'a&amp;b'",
      NABS, 10),
    F("tap", "", "renderer > waits for the template", "timeout", file=NABS, line=16),  # YAML location:
]
# node: "pass 3, fail 3, cancelled 1, skipped 1, todo 1"; the cancelled test is the timeout, a failing test
NODE_COUNTS = dict(fail_count=4, pass_count=3, skip_count=1)
TF = JS + "tape/escape.tape.js"
SPEC = {
    "mocha/escape.log": (mocha_rows(), dict(fail_count=4, pass_count=3, skip_count=1)),  # 3 passing, 1 pending, 4 failing
    "node_spec/escape.log": (NODE_SPEC, NODE_COUNTS),
    "tap/p_escape_mocha.log": (mocha_rows("tap", " "), dict(fail_count=4, pass_count=3, skip_count=1)),
    "tap/p_escape_node.log": (NODE_TAP, NODE_COUNTS),
    "tap/p_escape_tape.log": ([F("tap", "", "escapes the apostrophe", "assertion", *APOS, TF, 11),
                               F("tap", "", "maps a list", "assertion", "[ 'a&amp;b', '&lt;', '' ]",
                                 "[ 'a&amp;b', '&lt;' ]", TF, 17)],
                              dict(fail_count=2, pass_count=3, skip_count=0)),  # "# pass  3", "# fail  2"
}

# ----------------------------------------------------------------------------- JUnit XML
JUNIT = {
    # <testsuite errors="2" failures="5" skipped="1" tests="110">: 109 testcases, 101 with no failure/error/skip
    "junit/p_funcy.xml": (py_junit(MAIN + FIXTURE), dict(fail_count=5, error_count=2, pass_count=101, skip_count=1)),
    # jest-junit: 11 tests, 4 failures, 1 skipped; stack frames are absolute
    "junit/p_pluralize_jest.xml": (jest_junit(jest_rows(JS + JF)), dict(fail_count=4, pass_count=6, skip_count=1)),
}

UNITTEST = {
    "unittest/idna.log": (UNITTEST_RUN, UT_COUNTS),
    "unittest/idna_verbose.log": (UNITTEST_RUN, UT_COUNTS),
}

ALL = {**PYTEST, **UNITTEST, **TRACEBACK, **JEST, **VITEST, **SPEC, **JUNIT}


def main() -> None:
    for log, (failures, counts) in ALL.items():
        out = HERE / f"{log}.labels.json"
        out.write_text(json.dumps({"log": Path(log).name, "failures": failures, **counts}, indent=1,
                                  ensure_ascii=False) + "\n")
    print(f"wrote {len(ALL)} label files")


if __name__ == "__main__":
    main()
