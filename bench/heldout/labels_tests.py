"""Hand-typed truth for the held-out test-runner logs (bench/heldout/tests/), written from reading
each log; never taken from the parsers.  Counts are the runner's own summary line: ``fail_count``
failed tests, ``error_count`` tests that errored (pytest ``N errors``, unittest ``errors=N``; absent
for runners without the notion), ``skip_count`` skipped only.
Run ``python bench/heldout/labels_tests.py`` to rewrite the ``<log>.labels.json`` files.
"""

import json
from pathlib import Path

HERE = Path(__file__).parent / "tests"
SJ = "/tmp/ho/src/sj/simplejson/"
TRUE_A, TRUE_E = """'{"false": true,"true": false}'""", """'{"false": true, "true": false}'"""
ORD_A = """'{"one": 1,"two": 2,"three": 3,"four": 4,"five": 5}'"""
ORD_E = """'{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}'"""


def F(runner, suite, name, ftype, exp="", act="", file="", line=0):
    return {"runner": runner, "test_suite": suite, "test_name": name, "failure_type": ftype,
            "expected_value": exp, "actual_value": act, "file_path": file, "line": line}


def unittest_failures():
    return [
        F("unittest", "simplejson.tests.test_float.TestFloat", "test_degenerates_allow", "exception",
          file=SJ + "tests/test_float.py", line=10),
        F("unittest", "simplejson.tests.test_dump.TestDump", "test_encode_truefalse", "assertion", TRUE_E, TRUE_A,
          SJ + "tests/test_dump.py", 72),
        F("unittest", "simplejson.tests.test_dump.TestDump", "test_ordered_dict", "assertion", ORD_E, ORD_A,
          SJ + "tests/test_dump.py", 89),
    ]


def pytest_dump():
    d = "simplejson/tests/test_dump.py"
    return [F("pytest", d, "TestDump::test_encode_truefalse", "assertion", TRUE_E, TRUE_A, d, 72),
            F("pytest", d, "TestDump::test_ordered_dict", "assertion", ORD_E, ORD_A, d, 89)]


PYTEST_FLOAT = F("pytest", "simplejson/tests/test_float.py", "TestFloat::test_degenerates_allow", "exception",
                 file="simplejson/tests/test_float.py", line=10)
WEEKS, JUNK, SHORT = "ms parse > parses weeks wrongly expected", "ms parse > returns undefined for junk", \
    "ms format > formats short"
NODE = "/tmp/ho/js/test/ms.node.test.js"

LABELS = {
    "unittest/simplejson.log": (unittest_failures(), dict(fail_count=2, error_count=1, pass_count=22, skip_count=7)),
    "unittest/simplejson_verbose.log": (unittest_failures(),
                                        dict(fail_count=2, error_count=1, pass_count=22, skip_count=7)),
    "pytest/simplejson.log": ([PYTEST_FLOAT, *pytest_dump()], dict(fail_count=3, error_count=0, pass_count=17, skip_count=7)),
    "pytest/simplejson_rA.log": (pytest_dump(), dict(fail_count=2, error_count=0, pass_count=12, skip_count=7)),
    "pytest/simplejson_collect.log": (
        [F("pytest", "simplejson/tests/test_tuple_broken.py", "simplejson/tests/test_tuple_broken.py", "infra",
           file=SJ + "tests/test_tuple_broken.py", line=11), *pytest_dump()],
        dict(fail_count=2, error_count=1, pass_count=13, skip_count=0)),
    "traceback/simplejson_script.log": (
        [F("python", "<string>", "", "exception", file=SJ + "scanner.py", line=70)],
        dict(fail_count=1, pass_count=0, skip_count=0)),
    "traceback/simplejson_syntax.log": (
        [F("python", "<string>", "", "exception", file=SJ + "encoder_broken.py", line=20)],
        dict(fail_count=1, pass_count=0, skip_count=0)),
    "node_spec/ms.log": (
        [F("node", "test/ms.node.test.js", WEEKS, "assertion", "604800001", "604800000", NODE, 8),
         F("node", "test/ms.node.test.js", JUNK, "assertion", "NaN", "undefined", NODE, 9),
         F("node", "test/ms.node.test.js", SHORT, "assertion", "{ v: '1.5s' }", "{ v: '2s' }", NODE, 14)],
        dict(fail_count=3, pass_count=3, skip_count=1)),
    "mocha/ms.log": (
        [F("mocha", "test/ms.mocha.test.js", WEEKS, "assertion", "604800001", "604800000", "test/ms.mocha.test.js", 8),
         F("mocha", "test/ms.mocha.test.js", JUNK, "assertion", "NaN", "undefined", "test/ms.mocha.test.js", 9),
         F("mocha", "test/ms.mocha.test.js", SHORT, "assertion", file="test/ms.mocha.test.js", line=14)],
        dict(fail_count=3, pass_count=3, skip_count=1)),
    "vitest/ms.log": (
        [F("vitest", "test/ms.vitest.test.js", WEEKS, "assertion", "604800001", "604800000",
           "test/ms.vitest.test.js", 6),
         F("vitest", "test/ms.vitest.test.js", SHORT, "assertion", "{ v: '1.5s' }", "{ v: '2s' }",
           "test/ms.vitest.test.js", 12)],
        dict(fail_count=2, pass_count=3, skip_count=1)),
}


def main() -> None:
    for log, (failures, counts) in LABELS.items():
        out = HERE / f"{log}.labels.json"
        out.write_text(json.dumps({"log": Path(log).name, "failures": failures, **counts}, indent=1) + "\n")


if __name__ == "__main__":
    main()
