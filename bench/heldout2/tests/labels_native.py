"""Hand-typed truth for the native test-runner logs of the second held-out corpus (the ``n_*`` logs
under gtest/ ctest/ tap/ junit/), written from reading each log; never taken from the parsers.

Conventions are those of tests/fixtures/tests/labels_src.py and bench/heldout/labels_tests.py (see
README_native.md for the choices this corpus had to make).  ``fail_count`` is one per record (as the
development labels count it, also for ctest logs whose failed tests expand into gtest records);
``pass_count`` / ``skip_count`` are the runner's own tallies where it prints them, else the ok /
skip lines the log shows.
Run ``python bench/heldout2/tests/labels_native.py`` to rewrite the ``<log>.labels.json`` files.
"""

import json
from pathlib import Path

HERE = Path(__file__).parent
TX = "/tmp/ho2/native/src/txproj/"
DOC, VAL = TX + "doc_test.cc", TX + "values_test.cc"
UV = "/tmp/ho2/native/src/libuv/test/"


def F(runner, suite, name, ftype, exp="", act="", file="", line=0):
    return {"runner": runner, "test_suite": suite, "test_name": name, "failure_type": ftype,
            "expected_value": exp, "actual_value": act, "file_path": file, "line": line}


def counts(p, s=0, **more):
    return {"pass_count": p, "skip_count": s, **more}


# ------------------------------------------------------------------------ gtest (tinyxml2 tests)
def doc_records(runner="gtest"):
    return [
        F(runner, "CatalogTest", "CountBooks", "assertion", "3", "2", DOC, 32),
        F(runner, "CatalogTest", "ApostropheEntity", "assertion", '"it\'s long"', '"it\\"s long"', DOC, 37),
        F(runner, "CatalogTest", "SecondTitle", "assertion", '"Emma Woodhouse"', '"Emma"', DOC, 47),
        F(runner, "ParseTest", "EmptyDocument", "assertion", "true", "false", DOC, 57),
    ]


PRICE_BAD = ("PriceTest", "BadXmlThrows", "assertion",
             'price_of("<item price=\'1\'>") throws an exception of type std::invalid_argument',
             'it throws std::runtime_error with description "XML_ERROR_MISMATCHED_ELEMENT"', VAL, 38)
PRICE_NOTHROW = ("PriceTest", "NoThrowOnCost", "assertion",
                 'price_of("<item cost=\\"3\\"/>") doesn\'t throw an exception',
                 'it throws std::invalid_argument with description "no price attribute"', VAL, 40)
TYPED_FLOAT = ("AttrTyped/1", "RoundTrip", "assertion", "1234.5", "1230", VAL, 65)


def values_records(runner="gtest", structured=False):
    """``structured``: gtest's JSON / XML give the uncaught exception the test's own file and line."""
    unterminated = (VAL, 42) if structured else ("", 0)
    return [
        F(runner, *PRICE_BAD),
        F(runner, *PRICE_NOTHROW),
        F(runner, "PriceTest", "Unterminated", "exception", file=unterminated[0], line=unterminated[1]),
        F(runner, "FloatTest", "RoundTripPi", "assertion", "3.1415927410125732", "3.1400001049041748", VAL, 44),
        F(runner, *TYPED_FLOAT),
        F(runner, "Words/BoolParam", "Parses/2", "assertion", "true", "false", VAL, 76),
    ]


CRASH = [F("gtest", "LookupTest", "MissingChild", "exception")]  # SIGSEGV: [ RUN ] never finished
ABORT = [F("gtest", "MoveTest", "AcrossDocuments", "exception")]  # tinyxml2's assert() -> abort()
FILTER_REPEAT = [r for r in values_records() if r["test_suite"] in ("PriceTest", "AttrTyped/1")]

LABELS = {
    "gtest/n_tx_doc.log": (doc_records(), counts(6)),
    "gtest/n_tx_values.log": (values_records(), counts(9, 1)),  # [  PASSED  ] 9, [  SKIPPED ] 1
    "gtest/n_tx_crash.log": (CRASH, counts(1)),
    "gtest/n_tx_abort.log": (ABORT, counts(1)),
    # --gtest_filter='PriceTest.*:AttrTyped/*' --gtest_repeat=2: each failure once, last tallies
    "gtest/n_tx_filter_repeat.log": (FILTER_REPEAT, counts(4)),
    # --gtest_brief=1: failures and the run's "[  PASSED  ] 6 tests." only
    "gtest/n_tx_doc_brief.log": (doc_records(), counts(6)),
    "gtest/n_tx_values.json": (values_records(structured=True), counts(9, 1)),
    "gtest/n_tx_doc.json": (doc_records(), counts(6)),
    "junit/n_tx_values.xml": (values_records(structured=True), counts(9, 1)),  # skipped="1"
    "junit/n_tx_doc.xml": (doc_records(), counts(6)),
}


# ----------------------------------------------------------------------------------------- ctest
def C(name, ftype):
    return F("ctest", "", name, ftype)


CT_ALL = [C("doc", "unknown"), C("values", "unknown"), C("crash", "exception"), C("abort", "exception"),
          C("slow", "timeout"), C("schema_check", "infra"), C("xmltest", "wrong_output")]
SLOW_TIMEOUT = F("gtest", "SlowTest", "ManyReparses", "timeout")  # ***Timeout; its [ RUN ] never finished
LABELS.update({
    "ctest/n_tx_default.log": (CT_ALL, counts(1)),  # 13% tests passed, 7 tests failed out of 8
    "ctest/n_tx_parallel.log": (CT_ALL, counts(1)),
    "ctest/n_tx_timeout_notrun.log": ([C("slow", "timeout"), C("schema_check", "infra")], counts(1)),
    # xmltest's own output ("[fail] ...", "Pass 458, Fail 5") is no gtest: one ctest record
    "ctest/n_tx_regex.log": ([C("xmltest", "wrong_output")], counts(1)),
    "ctest/n_tx_verbose.log": (doc_records() + [SLOW_TIMEOUT], counts(0)),
    "ctest/n_tx_output_on_failure.log": (
        doc_records() + values_records() + CRASH + ABORT + [SLOW_TIMEOUT, C("schema_check", "infra")], counts(1)),
    # --output-junit: every test's output is in <system-out>; nothing in the XML says "timeout", so
    # the slow test is a gtest test that started and never finished; the missing executable
    # (status="notrun") stays a failure as in the console summary
    "junit/n_tx_ctest.xml": (
        doc_records() + values_records() + CRASH + ABORT + [dict(SLOW_TIMEOUT, failure_type="exception"),
                                                          C("schema_check", "infra"), C("xmltest", "wrong_output")],
        counts(1)),
})

# ------------------------------------------------------------------------------------------ TAP
LIBUV = [
    F("tap", "", "hrtime", "exception"),  # "# exit code 11" (SIGSEGV), no output
    F("tap", "", "idle_check", "assertion", "3", "2", UV + "test-idle.c", 121),
    F("tap", "", "ip4_addr", "assertion", file=UV + "test-ip4-addr.c", line=39),
    F("tap", "", "timer_init", "timeout"),  # "# timeout"
]
BASIC = [
    F("tap", "t/basic.t", "try block evaluated", "assertion", "43", "42", "t/basic.t", 56),
    F("tap", "t/basic.t", "scalar context try", "assertion", "gorch", "foo", "t/basic.t", 72),
]
# two failing tests (10 and 14) with the same description at the same line: two records
CONTEXT = [F("tap", "t/context.t", "Proper context SCALAR in try{}", "assertion", "", "1", "t/context.t", 46)] * 2
FINALLY_DIED = F("tap", "t/finally.t", "(test script exited early)", "exception", file="t/finally.t", line=45)
GIVEN_DIED = F("tap", "t/given_when.t", "(test script exited early)", "exception", file="t/given_when.t", line=3)
LABELS.update({
    "tap/n_libuv.log": (LIBUV, counts(37, 1)),  # 1..42: 37 ok, 1 "# SKIP", 4 not ok
    "tap/n_trytiny_basic.log": (BASIC, counts(23)),  # "# Looks like you failed 2 tests of 25."
    # non-verbose prove shows no ok lines; whole-file skips (skip_all, "1..0") skip no test
    "tap/n_trytiny_prove.log": (BASIC + CONTEXT + [FINALLY_DIED, GIVEN_DIED], counts(0)),
    # prove -v: 23 + 23 + 9 + 0 ok lines
    "tap/n_trytiny_prove_verbose.log": (BASIC + CONTEXT + [FINALLY_DIED, GIVEN_DIED], counts(55)),
})


def main() -> None:
    for rel, (failures, cnt) in LABELS.items():
        data = {"log": Path(rel).name, "failures": failures, "fail_count": len(failures), **cnt}
        (HERE / f"{rel}.labels.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(LABELS)} label files")


if __name__ == "__main__":
    main()
