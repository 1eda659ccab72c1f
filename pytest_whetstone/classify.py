"""Classifiers: what kind of build error or test failure a record is.

Build errors get an ``error_type`` and an ``is_lint`` flag; test failures a
``failure_type``.  User rules from ``whetstone.json5`` are tried first, then
the built-in patterns (message text, warning flags, error codes), in order
from most to least specific.  Lint is decided by tag (the warning flag or the
diagnostic's nature), never by severity alone: ``-Werror=unused-variable``
makes an unused variable an *error* that is still lint.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .records import BuildErrorRecord, TestFailureRecord

if TYPE_CHECKING:
    from .config import Config
    from .parse.base import ParseResult

# (error_type, pattern) in priority order; first match wins.
_BUILD_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "resource_limit",
        re.compile(
            r"out of memory|virtual memory exhausted|cannot allocate memory|std::bad_alloc"
            r"|killed signal|internal compiler error: Killed|stack overflow|memory exhausted"
            r"|No space left on device|program size limit|relocation truncated to fit",
            re.I,
        ),
    ),
    (
        "missing_include",
        re.compile(
            r"No such file or directory|file not found|cannot open include file"
            r"|is defined in header|include .* or provide a declaration|did you forget to '#include"
            r"|#include nested too deeply",
            re.I,
        ),
    ),
    (
        "missing_dependency",
        re.compile(
            r"Could not find a package configuration file|Could NOT find|find_package"
            r"|cannot find -l|library not found for -l|unable to find library -l"
            r"|Package '[^']+'.* not found|No package '[^']+' found|pkg-config|Unknown CMake command"
            r"|Could not find (?:a )?(?:toolchain|compiler)|No CMAKE_\w+_COMPILER could be found"
            r"|CMAKE_\w+_COMPILER not set|is not a full path to an existing compiler tool"
            r"|cannot find (?:crt|Scrt|[\w./-]+\.(?:so|a|o))\b|target .* not found|No rule to make target",
            re.I,
        ),
    ),
    (
        "undefined_symbol",
        re.compile(
            r"undefined reference|undefined symbol|unresolved external|was not declared"
            r"|undeclared(?: identifier| \(first use)|use of undeclared|implicit declaration of function"
            r"|call to undeclared function|has no member named|no member named|is not a member of"
            r"|unknown type name|does not name a type|not declared in this scope|has not been declared"
            r"|no matching function for call|no declaration matches|Undefined symbols for architecture"
            r"|multiple definition of|duplicate symbol|redefinition of|first defined here"
            r"|use of undeclared identifier|cannot find symbol|unknown identifier",
            re.I,
        ),
    ),
    (
        "type_mismatch",
        re.compile(
            r"incompatible (?:pointer )?types?|invalid conversion|cannot convert|conversion from"
            r"|makes (?:pointer|integer) from (?:integer|pointer)|assignment to .* from"
            r"|incompatible integer to pointer|incompatible pointer to integer|invalid operands"
            r"|no viable conversion|cannot initialize|no known conversion|discards .*qualifier"
            r"|passing argument \d+ of .* from incompatible|too (?:many|few) arguments"
            r"|type mismatch|conflicting types|invalid type argument|cannot bind"
            r"|request for member .* which is of non-class type|lvalue required|is not assignable"
            r"|read-only (?:variable|location)|assignment of read-only|incomplete type"
            r"|subscripted value is not|called object .* is not a function|void value not ignored",
            re.I,
        ),
    ),
    (
        "syntax_error",
        re.compile(
            r"expected .*(?:before|after|at end of|in|to match)|expected (?:';'|'\)'|'\]'|'\}'|expression|identifier|declaration|statement|unqualified-id|primary-expression)"
            r"|stray '.*' in program|missing terminating|unterminated|extraneous|unexpected"
            r"|syntax error|parse error|expected ';'|unbalanced|#endif without #if|unmatched"
            r"|Parse error|Expected a command name|invalid preprocessing directive|empty character constant"
            r"|Unknown argument|Invalid escape sequence|Unmatched",
            re.I,
        ),
    ),
]

# Warning flags whose diagnostics are lint: style, unused, deprecated and the like.
_LINT_FLAG = re.compile(
    r"-W(?:error=)?(?:unused[\w-]*|deprecated[\w-]*|shadow[\w-]*|pedantic|format-[\w-]*"
    r"|missing-(?:prototypes|declarations|field-initializers|braces|variable-declarations)"
    r"|sign-compare|sign-conversion|conversion|float-equal|cast-qual|cast-align|padded"
    r"|documentation[\w-]*|comment|parentheses|misleading-indentation|empty-body"
    r"|old-style[\w-]*|strict-prototypes|redundant-decls|unreachable-code[\w-]*"
    r"|extra-semi[\w-]*|newline-eof|c\+\+\d+-compat[\w-]*|c\+\+\d+-extensions|gnu[\w-]*"
    r"|zero-length-array|variadic-macros|long-long|write-strings|switch-enum|switch-default"
    r"|implicit-fallthrough|unknown-pragmas|reorder[\w-]*|overloaded-virtual|nested-anon-types"
    r"|language-extension-token|undef|cpp|useless-cast|double-promotion|inline)\b"
)
_LINT_MESSAGE = re.compile(
    r"\bunused\b|\bdeprecated\b|set but not used|defined but not used|declared but never"
    r"|\[readability-|\[modernize-|\[cppcoreguidelines-|\[google-|\[llvm-|\[hicpp-|\[misc-unused",
    re.I,
)

_TEST_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "timeout",
        re.compile(
            r"\btime(?:d)?[ -]?out\b|Timeout|exceeded (?:the )?(?:time|deadline)|took too long"
            r"|Exceeded timeout|deadline exceeded|\*\*\*Timeout",
            re.I,
        ),
    ),
    (
        "infra",
        re.compile(
            r"fixture '[^']*' not found|error (?:in|at) setup|error (?:in|at) teardown|SetUp\(\)|TearDown\(\)"
            r"|SetUpTestSuite|SetUpTestCase|ERROR collecting|ImportError while importing|ModuleNotFoundError"
            r"|Could not find executable|Not Run|Unable to find executable|No such file or directory.*(?:executable|test)"
            r"|command not found|cannot execute|Test suite failed to run|Cannot find module|beforeAll|afterAll"
            r"|beforeEach|afterEach|Bail out!|setup failed|teardown failed|fixture",
            re.I,
        ),
    ),
    (
        "missing_output",
        re.compile(
            r"(?:expected|output|golden|result) (?:file|output) .*(?:not (?:found|produced|created|exist))"
            r"|(?:file|output) (?:was )?not (?:produced|created|generated|written)"
            r"|FileNotFoundError|No such file or directory|does not exist|missing output|not produced",
            re.I,
        ),
    ),
    (
        "wrong_output",
        re.compile(
            r"snapshot|golden|toMatchSnapshot|toMatchInlineSnapshot|output mismatch|outputs? differ"
            r"|stdout (?:mismatch|differs)|expected output|capsys|capfd|Differences:|--- expected"
            r"|\+\+\+ actual|files differ|diff between",
            re.I,
        ),
    ),
    (
        "assertion",
        re.compile(
            r"AssertionError|\bassert(?:ion)?\b|Expected(?: equality)?|Value of:|Which is:|to (?:be|equal)\b"
            r"|toBe|toEqual|toStrictEqual|toHaveBeenCalled|toThrow|expect\(|not equal|!=|Failure$"
            r"|EXPECT_|ASSERT_|CHECK\(|REQUIRE\(|assertEqual|assertTrue|assertFalse|assert\w+"
            r"|got:|wanted:|expected:|actual:|Difference|approx|DID NOT RAISE|Failed: ",
            re.I,
        ),
    ),
    (
        "exception",
        re.compile(
            r"\b\w+(?:Error|Exception)\b|Traceback|Segmentation fault|SIGSEGV|SIGABRT|SIGFPE|SIGBUS"
            r"|signal \d+|core dumped|terminate called|uncaught exception|unhandled exception|panic"
            r"|abort(?:ed)?\b|std::\w+_error|C\+\+ exception|threw an exception|Exception thrown"
            r"|TypeError|ReferenceError|RangeError|SyntaxError|\bthrown\b|\*\*\*Exception|SEGFAULT",
            re.I,
        ),
    ),
]


def classify_build(record: BuildErrorRecord, config: Config | None = None) -> BuildErrorRecord:
    text = record.message
    haystack = " ".join([text, *record.notes[:3]])
    for rule in config.rules if config else ():
        if rule.error_type and rule.pattern.search(record.raw or text):
            record.error_type = rule.error_type
            if rule.is_lint is not None:
                record.is_lint = rule.is_lint
            return record
        if rule.is_lint is not None and not rule.error_type and rule.pattern.search(record.raw or text):
            record.is_lint = rule.is_lint
    record.is_lint = record.is_lint or is_lint(record)
    if record.severity == "note" and record.error_type == "unknown":
        return record
    if record.error_type not in ("", "unknown"):
        return record  # the parser already knew (linker undefined reference, CMake package)
    for error_type, pattern in _BUILD_PATTERNS:
        if pattern.search(text):
            record.error_type = error_type
            return record
    for error_type, pattern in _BUILD_PATTERNS:
        if pattern.search(haystack):
            record.error_type = error_type
            return record
    record.error_type = "unknown"
    return record


def is_lint(record: BuildErrorRecord) -> bool:
    """Lint by tag: the warning flag or the diagnostic's nature, not its severity."""
    if record.error_code and _LINT_FLAG.search(record.error_code):
        return True
    if record.tool == "clang_tidy":
        return True
    if record.severity == "warning" and _LINT_MESSAGE.search(record.message):
        return True
    if record.severity == "error" and record.error_code.startswith("-Werror") and _LINT_FLAG.search(
        record.error_code.replace("-Werror=", "-W")
    ):
        return True
    return False


def classify_test(record: TestFailureRecord, config: Config | None = None) -> TestFailureRecord:
    text = "\n".join(
        part for part in (record.exception_type, record.message, record.raw[:4000]) if part
    )
    for rule in config.rules if config else ():
        if rule.failure_type and rule.pattern.search(text):
            record.failure_type = rule.failure_type
            return record
    if record.failure_type not in ("", "unknown"):
        return record  # the producer knew better (native pytest capture, timeouts)
    if record.outcome == "timeout":
        record.failure_type = "timeout"
        return record
    if record.outcome == "error" and record.runner == "pytest":
        record.failure_type = "infra"
        return record
    head = "\n".join(part for part in (record.exception_type, record.message) if part)
    for source in (head, text):
        for failure_type, pattern in _TEST_PATTERNS:
            if pattern.search(source):
                record.failure_type = failure_type
                return record
    if record.expected_value or record.actual_value:
        record.failure_type = "assertion"
        return record
    record.failure_type = "unknown"
    return record


def classify_result(result: ParseResult, config: Config | None = None) -> ParseResult:
    for record in result.build_errors:
        classify_build(record, config)
    for failure in result.test_failures:
        classify_test(failure, config)
    return result
