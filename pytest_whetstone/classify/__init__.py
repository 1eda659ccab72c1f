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

from ..records import INCLUDED_FROM, BuildErrorRecord, Note, TestFailureRecord
from .prefilter import FoldedPattern, lowered_for_search

if TYPE_CHECKING:
    from ..config import Config
    from ..parse.base import ParseResult

# (error_type, pattern) in priority order; first match wins.
_BUILD_PATTERNS: list[tuple[str, FoldedPattern]] = [
    (
        "resource_limit",
        FoldedPattern(
            r"out of memory|virtual memory exhausted|cannot allocate memory|std::bad_alloc"
            r"|killed signal|internal compiler error: Killed|stack overflow|memory exhausted"
            r"|No space left on device|program size limit|relocation truncated to fit",
        ),
    ),
    (
        "missing_include",
        FoldedPattern(
            r"No such file or directory|file not found|cannot open include file"
            r"|is defined in header|include .* or provide a declaration|did you forget to '#include"
            r"|#include nested too deeply",
        ),
    ),
    (
        "missing_dependency",
        FoldedPattern(
            r"Could not find a package configuration file|Could NOT find|find_package"
            r"|cannot find -l|library not found for -l|unable to find library -l"
            r"|Package '[^']+'.* not found|No package '[^']+' found|pkg-config"
            r"|Could not find (?:a )?(?:toolchain|compiler)|No CMAKE_\w+_COMPILER could be found"
            r"|CMAKE_\w+_COMPILER not set|is not a full path to an existing compiler tool"
            r"|cannot find (?:crt|Scrt|[\w./-]+\.(?:so|a|o))\b|target .* not found|No rule to make target"
            r"|Cannot find source file|A required package was not found|no makefile found",
        ),
    ),
    (
        "undefined_symbol",
        FoldedPattern(
            r"undefined reference|undefined symbol|unresolved external|was not declared"
            r"|undeclared(?: identifier| \(first use)|use of undeclared|implicit declaration of function"
            r"|call to undeclared function|has no member named|no member named|is not a member of"
            r"|unknown type name|does not name a type|not declared in this scope|has not been declared"
            r"|no declaration matches|Undefined symbols for architecture|no type named|Unknown CMake command"
            r"|implicitly declaring library function|call to undeclared (?:library )?function"
            r"|multiple definition of|duplicate symbol|redefinition of|first defined here"
            r"|use of undeclared identifier|cannot find symbol|unknown identifier|no template named"
            r"|forbids declaration of .{1,200} with no type"
            # a type whose definition is not in sight (only forward-declared, or named by its tag):
            # its header is not included or its name is misspelled, never a mismatch of two types
            r"|incomplete type|incomplete definition of type|invalid use of undefined type"
            r"|storage size of .{1,200} isn.t known",
        ),
    ),
    (
        "type_mismatch",
        FoldedPattern(
            r"incompatible (?:pointer )?types?|invalid conversion|cannot convert|conversion from"
            r"|makes (?:pointer|integer) from (?:integer|pointer)|assignment to .* from"
            r"|incompatible integer to pointer|incompatible pointer to integer|invalid operands"
            r"|no viable conversion|cannot initialize|no known conversion|discards .*qualifier"
            r"|passing argument \d+ of .* from incompatible|too (?:many|few) arguments"
            r"|type mismatch|conflicting types|invalid type argument|cannot bind"
            r"|request for member .* which is of non-class type|lvalue required|is not assignable"
            r"|read-only (?:variable|location)|assignment of read-only"
            r"|subscripted value is not|subscripted value is neither|called object .* is not a function|void value not ignored"
            r"|no match for|no matching (?:function|constructor|member function) for call"
            r"|expects argument of type|format specifies type|redeclared as different kind"
            # a value used as what its type is not: a pointer, a struct, a function, a count of arguments
            r"|request for member .{1,200} in something not a structure or union|is not a pointer"
            r"|request for member .{1,200} which is of pointer type|member reference (?:base )?type .{1,200} is a pointer"
            r"|member reference (?:base )?type .{1,200} is not a|indirection requires pointer operand"
            r"|base operand of .{1,40} has non-pointer type|comparison between (?:pointer and integer|distinct pointer types)"
            r"|comparison of distinct pointer types|could not convert|invalid initialization of"
            r"|requires \d+ arguments?, but only \d+ given|passed \d+ arguments?, but takes just \d+",
        ),
    ),
    (
        "syntax_error",
        FoldedPattern(
            r"expected .*(?:before|after|at end of|in|to match)|expected (?:';'|'\)'|'\]'|'\}'|expression|identifier|declaration|statement|unqualified-id|primary-expression)"
            r"|stray '.*' in program|missing terminating|unterminated|extraneous|unexpected"
            r"|syntax error|parse error|expected ';'|unbalanced|#endif without #if|unmatched"
            r"|Parse error|Expected a command name|invalid preprocessing directive|empty character constant"
            # CMake's own wording: "install TARGETS given unknown argument", if()'s "Unknown arguments
            # specified" (a compiler driver's "unknown argument: '-fx'" is a bad flag, no syntax)
            r"|given unknown argument|Unknown arguments specified|Invalid escape sequence|Unmatched|missing separator"
            r"|\bexpected [‘'\"(][^’'\"]*[’'\"]"
            # a definition in a scope it cannot be in: a block left open above it (gcc, g++, clang)
            r"|definition is not allowed here|cannot appear at block scope|qualified-id in declaration"
            r"|invalid storage class for function|extra qualification|expected parameter declarator"
            # two declarations run together: a struct/class body above lacks its ';'
            r"|cannot combine with previous .{1,40} declaration specifier|two or more data types in declaration"
            r"|multiple types in one declaration|new types may not be defined in a return type",
        ),
    ),
]

# The one list of lint: a diagnostic is lint when its flag or check (a ``-Werror=`` prefix removed)
# names a style or hygiene class.  Searched anywhere in the flag, so ``-Wunused-but-set-variable``,
# ``-Werror,-Wsign-compare``, ``-Wimplicit-int-conversion``, clang-tidy's ``readability-*`` and
# ``bugprone-narrowing-conversions`` are lint; defects (``-Wformat=``, ``-Wmissing-field-initializers``,
# ``-Wanalyzer-*``, ``bugprone-*``, ``-W#warnings``) are not.  The message is never read: lint is
# decided by tag, not by wording or severity.
LINT_FLAG = re.compile(
    r"unused|deprecated|shadow|sign-compare|parentheses|readability-|modernize-|misc-unused|padded"
    r"|declaration-after-statement|pedantic|comment|strict-prototypes|missing-prototypes|cast-qual"
    r"|reserved-identifier|reserved-macro|documentation|extra-semi|missing-variable|implicit-fallthrough"
    r"|sign-conversion|conversion|newline-eof|c99|c\+\+98|long-long|vla|switch-enum|cast-align|undef"
    r"|unsafe-buffer"
)
# Notes in which the compiler names the header an undeclared name lives in.
_INCLUDE_HINT = re.compile(
    r"is defined in header|include (?:the header )?[‘'<]|did you forget to [‘']#include|#include <[^>]+>"
)

_TEST_PATTERNS: list[tuple[str, FoldedPattern]] = [
    (
        "timeout",
        FoldedPattern(
            r"\btimed? ?out\b|\bTimeout\b|exceeded (?:the )?(?:time|deadline)|took too long"
            r"|Exceeded timeout|deadline exceeded|\*\*\*Timeout|testTimeoutFailure",
        ),
    ),
    (
        "infra",
        FoldedPattern(
            r"fixture '[^']*' not found|error (?:in|at) (?:setup|teardown)|\bSetUp(?:TestSuite|TestCase)?\b"
            r"|\bTearDown(?:TestSuite|TestCase)?\b|ERROR collecting|ImportError while importing"
            r"|Could not find executable|Unable to find executable|\bNot Run\b|Failed test dependencies"
            r"|command not found|cannot execute binary|Test suite failed to run|Cannot find module"
            r"|\b(?:beforeAll|afterAll|beforeEach|afterEach)\b"
            r"|Bail out!|Bailout called|setup failed"
            r"|teardown failed|Required fixture",
            ignore_case=False,
        ),
    ),
    (
        "wrong_output",
        FoldedPattern(
            r"snapshot|golden|output mismatch|outputs? differ|stdout (?:mismatch|differs)|expected output"
            r"|\bcapsys\b|\bcapfd\b|Required regular expression not found|Error regular expression found"
            r"|files differ|diff between",
        ),
    ),
    (
        "missing_output",
        FoldedPattern(
            r"(?:expected|output|golden|result) file .*not (?:found|produced|created|exist)"
            r"|(?:file|output) (?:was )?not (?:produced|created|generated|written)"
            r"|FileNotFoundError|ENOENT|missing output|not produced",
        ),
    ),
]
# Assertion failures and uncaught errors, judged on the record's own message.
_ASSERTION = FoldedPattern(
    r"AssertionError|\bassert\b|Expected(?: equality)?\b|Value of:|Which is:|toBe|toEqual|toStrictEqual"
    r"|toHaveBeenCalled|toThrow|toMatch|expect\(|\bnot ok\b|Failure!?$|EXPECT_|ASSERT_|assert\w+"
    r"|\bgot:|\bwanted:|\bfound:|actual:|DID NOT RAISE|Failed test|evaluates to|Death test:",
    re.M,
)
_EXCEPTION = FoldedPattern(
    r"\b\w+(?:Error|Exception)\b|Traceback|Segmentation fault|SegFault|SIGSEGV|SIGABRT|SIGFPE|SIGBUS"
    r"|signal \d+|core dumped|terminate called|uncaught exception|unhandled exception|panic"
    r"|abort(?:ed)?\b|std::\w+_error|C\+\+ exception|threw an exception|\bthrown\b|\*\*\*Exception"
    r"|never finished|crash|exited with \d+|\bdied\b|\bdie\b",
)


def built_in_patterns() -> list[FoldedPattern]:
    """Every pattern of the classifier's own (:mod:`.needles` holds their needles)."""
    return [p for _, p in _BUILD_PATTERNS] + [p for _, p in _TEST_PATTERNS] + [_ASSERTION, _EXCEPTION]


_OUTPUT_TYPES = ("wrong_output", "missing_output")
_HOOK_NAME = re.compile(r'"(?:before|after) (?:all|each)" hook')
_ASSERTION_EXCEPTIONS = ("AssertionError", "Failed", "AssertionError [ERR_ASSERTION]", "ERR_ASSERTION")


# Quoted names do not change what kind of error a message is: "‘x’ undeclared" and
# "‘y’ undeclared" share one cache entry, so a log with thousands of errors runs
# the (slow, case-insensitive) patterns once per message shape.
_QUOTED_NAME = re.compile(r"[‘'\"][^’'\"\n]{0,200}[’'\"]")
_TYPE_CACHE: dict[str, str] = {}
_FLAG_CACHE: dict[str, bool] = {}


def _shape(text: str) -> str:
    """``text`` with every quoted name as '_': the cache key of its kind of message."""
    return _QUOTED_NAME.sub("'_'", text) if ("'" in text or "‘" in text or '"' in text) else text


def _message_type(text: str) -> str:
    """error_type from the message alone, or "", cached per message shape."""
    hit = _TYPE_CACHE.get(text)
    if hit is not None:
        return hit
    key = _shape(text)
    hit = _TYPE_CACHE.get(key)
    if hit is None:
        hit = _first_build_type(text, lowered_for_search(text))
    if len(_TYPE_CACHE) > 8192:
        _TYPE_CACHE.clear()
    _TYPE_CACHE[key] = _TYPE_CACHE[text] = hit
    return hit


def _first_build_type(text: str, lowered: str | None) -> str:
    """The first built-in error_type whose pattern occurs in ``text``, or ""."""
    for error_type, pattern in _BUILD_PATTERNS:
        if pattern.found_in(text, lowered):
            return error_type
    return ""


def classify_build(record: BuildErrorRecord, config: Config | None = None) -> BuildErrorRecord:
    text = record.message
    for rule in config.rules if config else ():
        if rule.error_type and rule.pattern.search(record.raw or text):
            record.error_type = rule.error_type
            if rule.is_lint is not None:
                record.is_lint = rule.is_lint
            return record
        if rule.is_lint is not None and not rule.error_type and rule.pattern.search(record.raw or text):
            record.is_lint = rule.is_lint
    found = _message_type(text)
    record.is_lint = record.is_lint or is_lint(record)
    if record.severity == "note" and record.error_type == "unknown":
        return record
    if record.error_type not in ("", "unknown"):
        return record  # the parser already knew (linker undefined reference, CMake package)
    if found:
        if found == "undefined_symbol" and any(
            ("include" in n.message or "header" in n.message) and _INCLUDE_HINT.search(n.message)
            for n in record.notes[:4]
        ):
            found = "missing_include"  # the compiler named the header that declares it
        elif found == "undefined_symbol" and _standard_name_unknown(text):
            found = "missing_include"  # std::X that the standard library declares: its header is not included
        record.error_type = found
        return record
    if record.notes:
        found = _notes_type(text, record.notes)
        if found:
            record.error_type = found
            return record
    record.error_type = _fixit_type(record) or "unknown"
    return record


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _fixit_type(record: BuildErrorRecord) -> str:
    """What the compiler's own fix-its say the error is, when its words matched no pattern:
    a header to include, a ';' or closing token to insert, a '&' or '*' to add, a name for a name."""
    if not record.fixits:
        return ""
    texts = [f.new_text for f in record.fixits]
    if any("#include" in t for t in texts):
        return "missing_include"
    inserted = all((f.start.line, f.start.col) == (f.end.line, f.end.col) for f in record.fixits)
    chars = set("".join(texts).replace(" ", ""))
    if inserted and chars and chars <= set(";})],"):
        return "syntax_error"
    if inserted and chars and chars <= set("&*()"):
        return "type_mismatch"  # an address, a dereference, a call's parentheses
    if not inserted and all(_IDENTIFIER.fullmatch(t) for t in texts):
        return "undefined_symbol"  # a name replaced by a near one the compiler knows
    return ""


_STD_MEMBER = re.compile(r"[‘'\"]([\w:]+)[’'\"] is not a member of [‘'\"]std[’'\"]|no (?:type|member) named [‘'\"](\w+)[’'\"] in namespace [‘'\"]std[’'\"]")


def _standard_name_unknown(message: str) -> bool:
    """The message says a ``std::`` name is unknown, and the standard library's tables know which
    header declares it (g++ gives no note for some, e.g. ``std::sqrt``)."""
    m = _STD_MEMBER.search(message)
    if m is None:
        return False
    from ..candidates.tables import header_for

    name = (m.group(1) or m.group(2)).removeprefix("std::")
    return header_for("std::" + name, cpp=True) is not None


_NOTES_CACHE: dict[str, str] = {}


def _notes_type(message: str, notes: list[Note]) -> str:
    """The error_type the message and what its first notes say (not their include chains
    or locations: a path is not evidence) point to, cached per shape as messages are."""
    said = [message]
    for note in notes:
        if note.message == INCLUDED_FROM:
            continue
        said.append(note.message)
        if len(said) > 3:
            break
    haystack = _shape(" ".join(said))
    found = _NOTES_CACHE.get(haystack)
    if found is None:
        found = _first_build_type(haystack, lowered_for_search(haystack))
        if len(_NOTES_CACHE) > 8192:
            _NOTES_CACHE.clear()
        _NOTES_CACHE[haystack] = found
    return found


# The compiler reached the end of a file with a block still open: gcc's "... at end of input",
# clang's "expected '}'" with its note "to match this '{'".
_AT_END_OF_INPUT = re.compile(r"at end of input")
_TO_MATCH_BRACE = re.compile(r"^to match this [‘'\"]\{")


def _leaves_block_open(record: BuildErrorRecord) -> bool:
    if record.severity != "error":
        return False
    if _AT_END_OF_INPUT.search(record.message):
        return True
    return any(_TO_MATCH_BRACE.match(n.message) for n in record.notes[:3])


def unclosed_block_cascade(records: list[BuildErrorRecord]) -> None:
    """A translation unit that ends with a block still open (a removed ``}``) makes everything
    after the opening brace parse in the wrong scope: nested definitions, names that seem
    undeclared, storage classes that seem invalid.  Every error of that unit (by its translation
    unit, else its file) is then a syntax error, whatever its own wording says -- the structure
    (the compiler's own end-of-input diagnostic) decides, not the first line's message."""
    open_units = {_unit(r) for r in records if _leaves_block_open(r)}
    if not open_units:
        return
    for record in records:
        if record.is_failure and _unit(record) in open_units and record.error_type != "missing_include":
            record.error_type = "syntax_error"


# How far same_place looks for the other error at a place: records either side (a streamed parse holds
# back this many records beyond the newest, so it sees what a whole-log parse sees).
SAME_PLACE_REACH = 2
_Place = tuple[str, int, bool, str]  # file, line, is_failure, error_type before same_place


def _place(record: BuildErrorRecord) -> _Place:
    return (record.file_path, record.line, record.is_failure, record.error_type)


def _takes_place_type(record: BuildErrorRecord) -> bool:
    return record.error_type == "unknown" and bool(record.line) and record.is_failure and record.tool != "cmake"


def _place_type(before: list[_Place], seq: list[BuildErrorRecord], k: int) -> str:
    """The class of the first known error at ``seq[k]``'s place within reach of it (``before``: the
    places of the records before ``seq[0]``, last one last), or ""."""
    path, line = seq[k].file_path, seq[k].line
    for p in range(k - SAME_PLACE_REACH, k + SAME_PLACE_REACH + 1):
        if p == k or p >= len(seq) or p < -len(before):
            continue
        other = before[p] if p < 0 else _place(seq[p])
        if other[2] and other[1] == line and other[0] == path and other[3] not in ("", "unknown"):
            return other[3]
    return ""


def _settle_places(before: list[_Place], seq: list[BuildErrorRecord], count: int) -> None:
    """same_place for ``seq[:count]``; every record reads the others' classes as they were before."""
    found = [(record, _place_type(before, seq, k)) for k, record in enumerate(seq[:count])
             if record.error_type == "unknown" and _takes_place_type(record)]
    for record, error_type in found:
        if error_type:
            record.error_type = error_type


def same_place(records: list[BuildErrorRecord]) -> None:
    """An error no pattern knows takes the class of an error the compiler reports at the same place
    (file and line) beside it, within ``SAME_PLACE_REACH`` records (g++'s "variable or field 'f' declared
    void" comes with "'T' was not declared in this scope" on its line: the unknown type is the cause).
    Only neighbours count, so a streamed parse (:class:`SamePlace`) decides as the whole log does."""
    _settle_places([], records, len(records))


class SamePlace:
    """:func:`same_place` over records handed on in batches: each batch comes with the (complete,
    classified) records after it, and the places of the last records before it are remembered."""

    __slots__ = ("before",)

    def __init__(self) -> None:
        self.before: list[_Place] = []

    def settle(self, batch: list[BuildErrorRecord], after: list[BuildErrorRecord]) -> None:
        tail = [_place(r) for r in batch[-SAME_PLACE_REACH:]]
        _settle_places(self.before, batch + after[:SAME_PLACE_REACH], len(batch))
        self.before = (self.before + tail)[-SAME_PLACE_REACH:]


def _unit(record: BuildErrorRecord) -> str:
    return record.translation_unit or record.file_path


def is_lint(record: BuildErrorRecord) -> bool:
    """Lint by tag: the record's flag or check is on the one list (``LINT_FLAG``), whatever
    its severity (``-Werror=unused-variable`` is an error that is still lint)."""
    code = record.error_code
    if not code:
        return False
    lint = _FLAG_CACHE.get(code)
    if lint is None:
        lint = bool(LINT_FLAG.search(code.replace("-Werror=", "")))
        if len(_FLAG_CACHE) < 4096:
            _FLAG_CACHE[code] = lint
    return lint


def classify_test(record: TestFailureRecord, config: Config | None = None) -> TestFailureRecord:
    """failure_type from, in order: user rules, the producer, the outcome, strong message
    patterns (timeout, infra, wrong/missing output), the exception type, assertion/exception text."""
    head = "\n".join(part for part in (record.exception_type, record.message) if part)
    text = "\n".join(part for part in (head, record.raw[:4000]) if part)
    for rule in config.rules if config else ():
        if rule.failure_type and rule.pattern.search(text):
            record.failure_type = rule.failure_type
            return record
    if record.failure_type not in ("", "unknown"):
        return record  # the producer knew better (native pytest capture, timeouts)
    record.failure_type = _test_type(record, head, text)
    return record


def _test_type(record: TestFailureRecord, head: str, text: str) -> str:
    if record.outcome == "timeout":
        return "timeout"
    if record.outcome == "xpass-strict":
        return "assertion"  # the test broke its own expectation of failing
    if _HOOK_NAME.search(record.test_name):
        return "infra"  # mocha's '"before all" hook for "t"' failed: the tests under it never ran
    head_lowered, text_lowered = lowered_for_search(head), lowered_for_search(text)
    for failure_type, pattern in _TEST_PATTERNS:
        if record.outcome == "error" and failure_type in _OUTPUT_TYPES:
            continue  # the test's own body never ran (a fixture's FileNotFoundError): no output of its own
        if pattern.found_in(head, head_lowered):
            return failure_type
    if record.outcome == "error":
        return "infra"  # setup/teardown/collection, a suite that did not load, a test not run
    for failure_type, pattern in _TEST_PATTERNS:
        if pattern.found_in(text, text_lowered):
            return failure_type
    if record.exception_type in _ASSERTION_EXCEPTIONS or record.exception_type.endswith("AssertionError"):
        return "assertion"
    if record.exception_type:
        return "exception"
    for source, lowered in ((head, head_lowered), (text, text_lowered)):
        if _ASSERTION.found_in(source, lowered):
            return "assertion"
        if _EXCEPTION.found_in(source, lowered):
            return "exception"
    if record.expected_value or record.actual_value:
        return "assertion"
    return "unknown"


def classify_result(result: ParseResult, config: Config | None = None, cwd: str = "") -> ParseResult:
    """Every record by its own diagnostic, then by what the records and the source say together:
    a unit left open, a statement run into the next line (``cwd``: where relative paths are read),
    an unknown error at a known one's place."""
    for record in result.build_errors:
        classify_build(record, config)
    unclosed_block_cascade(result.build_errors)
    if result.build_errors:
        from .structure import joined_statements

        joined_statements(result.build_errors, cwd)
    same_place(result.build_errors)
    for failure in result.test_failures:
        classify_test(failure, config)
    return result
