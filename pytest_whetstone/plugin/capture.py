"""Turn a failing pytest call (item, excinfo, report) into a TestFailureRecord, natively.

Nothing here reads pytest's printed output: operands come from the assertion-rewriting hook
(``pytest_assertrepr_compare``), unittest values from the frame locals of ``unittest.case``,
``pytest.raises`` from the ``RaisesExc`` frame, locations from the raw traceback objects.
The classification is decided from the exception and the failing statement, so the text
classifier (``classify.classify_test``) only runs as a fallback.
"""

from __future__ import annotations

import ast
import linecache
import os
import re
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, NamedTuple

from ..locate.python import is_impl_file, is_test_file, real_path, relpath, statement_at
from ..records import TestFailureRecord

MAX_VALUE = 240
MAX_MESSAGE = 2000
MAX_RAW = 4000


class RerunTimeout(Exception):
    """Raised by Whetstone's own guard when the re-run of a failing test takes too long."""


class Comparison(NamedTuple):
    op: str
    left: Any
    right: Any


@dataclass
class Captured:
    """A record plus what localization needs (kept on the worker, never serialised)."""

    record: TestFailureRecord
    frames: list[tuple[str, int]] = field(default_factory=list)  # absolute, shallowest first
    test_abs: str = ""
    test_def_line: int = 0
    missing_name: str = ""
    called: list[tuple[str, str]] = field(default_factory=list)
    asserted: list[tuple[str, str]] = field(default_factory=list)  # a value fault: what its assertion checks
    covered: dict[str, set[int]] | None = None
    elapsed_ms: float = 0.0
    subtest: bool = False  # reported by a subtest while the test body ran


def safe_repr(value: Any, limit: int = MAX_VALUE) -> str:
    try:
        from _pytest._io.saferepr import saferepr

        return saferepr(value, maxsize=limit)
    except Exception:  # pytest internals moved: a plain guarded repr
        try:
            text = repr(value)
        except Exception as exc:
            text = f"<unrepresentable {type(value).__name__}: {type(exc).__name__}>"
        return text if len(text) <= limit else text[: limit - 3] + "..."


def _tb_frames(tb: TracebackType | None) -> list[tuple[str, int, Any]]:
    out = []
    while tb is not None:
        out.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno, tb.tb_frame))
        tb = tb.tb_next
    return out


# --------------------------------------------------------------------------- expected / actual

_UNITTEST_PAIRS = {
    "assertEqual": ("first", "second", "=="),
    "_baseAssertEqual": ("first", "second", "=="),
    "assertNotEqual": ("first", "second", "!="),
    "assertListEqual": ("list1", "list2", "=="),
    "assertTupleEqual": ("tuple1", "tuple2", "=="),
    "assertSequenceEqual": ("seq1", "seq2", "=="),
    "assertSetEqual": ("set1", "set2", "=="),
    "assertDictEqual": ("d1", "d2", "=="),
    "assertMultiLineEqual": ("first", "second", "=="),
    "assertCountEqual": ("first", "second", "=="),
    "assertAlmostEqual": ("first", "second", "=="),
    "assertIn": ("member", "container", "in"),
    "assertNotIn": ("member", "container", "not in"),
    "assertLess": ("a", "b", "<"),
    "assertLessEqual": ("a", "b", "<="),
    "assertGreater": ("a", "b", ">"),
    "assertGreaterEqual": ("a", "b", ">="),
    "assertIs": ("expr1", "expr2", "is"),
    "assertIsNot": ("expr1", "expr2", "is not"),
    "assertIsNone": ("obj", None, "is"),
    "assertIsNotNone": ("obj", None, "is not"),
    "assertTrue": ("expr", True, "is"),
    "assertFalse": ("expr", False, "is"),
}


def unittest_comparison(frames: list[tuple[str, int, Any]]) -> Comparison | None:
    """The outermost unittest assert method's operands, from its frame locals."""
    for filename, _line, frame in frames:
        if not filename.replace(os.sep, "/").endswith("unittest/case.py"):
            continue
        spec = _UNITTEST_PAIRS.get(frame.f_code.co_name)
        if spec is None:
            continue
        left_name, right, op = spec
        local = frame.f_locals
        if left_name not in local:
            continue
        right_value = local.get(right) if isinstance(right, str) else right
        return Comparison(op, local[left_name], right_value)
    return None


def raises_expected(frames: list[tuple[str, int, Any]], message: str) -> str:
    """The exception type a ``pytest.raises`` that did not raise was waiting for."""
    for filename, _line, frame in reversed(frames):
        owner = frame.f_locals.get("self")
        expected = getattr(owner, "expected_exceptions", None) if owner is not None else None
        if expected and filename.replace(os.sep, "/").endswith(("_pytest/raises.py", "_pytest/python_api.py")):
            if isinstance(expected, tuple):
                return " | ".join(getattr(t, "__name__", str(t)) for t in expected)
            return getattr(expected, "__name__", str(expected))
    match = re.search(r"DID NOT RAISE (?:any of )?(.+)", message)
    if match:
        names = re.findall(r"<class '(?:[\w.]+\.)?(\w+)'>", match.group(1))
        return " | ".join(names) if names else match.group(1).strip()
    return ""


def doctest_values(exc: BaseException) -> tuple[str, str]:
    """want / got of the first failing doctest example."""
    failure = exc
    failures = getattr(exc, "failures", None)
    if failures:
        failure = failures[0]
    example = getattr(failure, "example", None)
    want = str(getattr(example, "want", "") or "").rstrip("\n")
    got = str(getattr(failure, "got", "") or "").rstrip("\n")
    return want[:MAX_VALUE], got[:MAX_VALUE]


def expected_actual(cmp: Comparison, statement: ast.stmt | None) -> tuple[str, str]:
    """(expected, actual) from a comparison; ``assert actual OP expected`` is the convention."""
    left, right, op = cmp.left, cmp.right, cmp.op
    if op in ("==", "!=") and _is_literal_left(statement):
        left, right = right, left  # `assert 3 == f(x)`: the literal is the expectation
    if type(right).__name__.startswith("Approx"):  # pytest.approx on either side
        pass
    elif type(left).__name__.startswith("Approx"):
        left, right = right, left
    r_left, r_right = safe_repr(left), safe_repr(right)
    if op == "==":
        return r_right, r_left
    if op in ("in", "not in"):
        verb = "contains" if op == "in" else "does not contain"
        return f"{verb} {r_left}", r_right
    return f"{op} {r_right}", r_left


def _is_literal_left(statement: ast.stmt | None) -> bool:
    if not isinstance(statement, ast.Assert) or not isinstance(statement.test, ast.Compare):
        return False
    test = statement.test
    return _literal(test.left) and not all(_literal(c) for c in test.comparators)


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


# --------------------------------------------------------------------------- statements

_OUTPUT_WORDS = re.compile(r"\b(?:readouterr|snapshot|golden|expected_output|stdout|stderr)\b|\.(?:out|err)\b")
_EXISTS_WORDS = re.compile(r"\.(?:exists|is_file|isfile)\(|os\.path\.(?:exists|isfile)\(")
_OUTPUT_FIXTURES = {"capsys", "capfd", "capsysbinary", "capfdbinary", "snapshot", "golden"}


# --------------------------------------------------------------------------- classification


def native_failure_type(
    *,
    when: str,
    exc: BaseException | None,
    message: str,
    statement_text: str,
    fixturenames: tuple[str, ...],
    in_test_file: bool,
) -> tuple[str, str]:
    """(failure_type, outcome) decided from the exception and the failing statement."""
    if exc is not None and is_timeout(exc, message):
        return "timeout", "timeout"
    if when in ("setup", "teardown"):
        return "infra", "error"
    if exc is None:
        return "assertion", "xpass-strict" if message.startswith("[XPASS(strict)]") else "failed"
    name = type(exc).__name__
    if name in ("DocTestFailure", "MultipleDoctestFailures"):
        return "wrong_output", "failed"  # a doctest compares printed output
    if isinstance(exc, AssertionError) or name == "Failed":
        if _EXISTS_WORDS.search(statement_text):
            return "missing_output", "failed"
        if _OUTPUT_WORDS.search(statement_text) or (
            set(fixturenames) & _OUTPUT_FIXTURES and "==" in statement_text
        ):
            return "wrong_output", "failed"
        return "assertion", "failed"
    if isinstance(exc, FileNotFoundError) and in_test_file:
        return "missing_output", "failed"  # the test could not open what should have been produced
    if isinstance(exc, Exception):
        return "exception", "failed"
    return "unknown", "failed"


def is_timeout(exc: BaseException, message: str) -> bool:
    if isinstance(exc, (RerunTimeout, TimeoutError)):
        return True
    name = type(exc).__name__
    if name == "Failed" and message.startswith("Timeout"):  # pytest-timeout's signal method
        return True
    return name in ("TimeoutExpired", "Timeout")


# --------------------------------------------------------------------------- the record


def build_record(
    item: Any,
    when: str,
    excinfo: Any,
    report: Any,
    comparison: Comparison | None,
    workspace: str,
) -> Captured:
    """A TestFailureRecord for a failing phase of ``item`` (report.failed is true)."""
    exc: BaseException | None = excinfo.value if excinfo is not None else None
    frames = _tb_frames(excinfo.tb if excinfo is not None else None)
    test_abs = real_path(str(getattr(item, "path", "") or item.fspath))
    loc_file, loc_line0, _domain = item.location
    test_def_line = (loc_line0 or 0) + 1

    # deepest frame in the test file: the failing line of the test itself
    test_line = test_def_line
    for filename, line, _frame in frames:
        if real_path(filename) == test_abs:
            test_line = line
    impl_file, impl_line = "", 0
    for filename, line, _frame in reversed(frames):
        if is_impl_file(filename, workspace):
            impl_file, impl_line = relpath(filename, workspace), line
            break

    if exc is not None:
        message = _exc_message(exc)
        exc_type = type(exc).__name__
    else:
        message = str(getattr(report, "longreprtext", "") or "")[:MAX_MESSAGE]
        exc_type = ""

    statement = statement_at(test_abs, test_line) if test_line else None
    statement_text = linecache.getline(test_abs, test_line).strip() if test_line else ""
    if statement is not None:
        try:
            statement_text = ast.unparse(statement)[:1000]
        except Exception:  # ast.unparse can fail on odd trees; the raw line will do
            pass
    fixturenames = tuple(getattr(item, "fixturenames", ()) or ())
    deepest_in_test = bool(frames) and (
        real_path(frames[-1][0]) == test_abs or is_test_file(frames[-1][0])
    )
    failure_type, outcome = native_failure_type(
        when=when,
        exc=exc,
        message=message,
        statement_text=statement_text,
        fixturenames=fixturenames,
        in_test_file=deepest_in_test,
    )

    expected = actual = ""
    if exc is not None and when == "call":
        if isinstance(exc, AssertionError):
            cmp = comparison or unittest_comparison(frames)
            if cmp is not None:
                expected, actual = expected_actual(cmp, statement)
        elif exc_type == "Failed" and message.startswith("DID NOT RAISE"):
            expected, actual = raises_expected(frames, message), "no exception raised"
        elif exc_type in ("DocTestFailure", "MultipleDoctestFailures"):
            expected, actual = doctest_values(exc)

    suite, name = _suite_and_name(item, loc_file)
    record = TestFailureRecord(
        runner="pytest",
        test_suite=suite,
        test_name=name,
        failure_type=failure_type,
        expected_value=expected,
        actual_value=actual,
        file_path=relpath(test_abs, workspace) if os.path.isabs(test_abs) else loc_file,
        line=test_line,
        message=message,
        node_id=item.nodeid,
        exception_type=exc_type,
        impl_file=impl_file,
        impl_line=impl_line,
        outcome=outcome,
        duration_ms=int(round(float(getattr(report, "duration", 0.0) or 0.0) * 1000)),
        raw=_raw(report),
    )
    if when in ("setup", "teardown"):
        record.failure_id = "T" + _stable(record.runner, f"{item.nodeid}@{when}")
    record.ensure_id()
    missing = ""
    if isinstance(exc, NameError):
        missing = getattr(exc, "name", None) or _quoted(message)
    return Captured(
        record=record,
        frames=[(real_path(f), ln) for f, ln, _ in frames],
        test_abs=test_abs,
        test_def_line=test_def_line,
        missing_name=missing or "",
    )


def _stable(*parts: str) -> str:
    from ..records import stable_id

    return stable_id(*parts)


def _quoted(message: str) -> str:
    match = re.search(r"name '([^']+)'", message)
    return match.group(1) if match else ""


def _exc_message(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception as err:
        text = f"<str() failed: {type(err).__name__}>"
    if not text and hasattr(exc, "msg"):
        text = str(getattr(exc, "msg", ""))
    return text[:MAX_MESSAGE]


def _raw(report: Any) -> str:
    """The crash line pytest computed; rendering the whole long report costs tens of ms."""
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    if crash is not None:
        return f"{crash.path}:{crash.lineno}: {crash.message}"[:MAX_RAW]
    try:
        text = str(report.longreprtext or "")
    except Exception:
        return ""
    return text if len(text) <= MAX_RAW else text[: MAX_RAW // 2] + "\n...\n" + text[-MAX_RAW // 2 :]


def _suite_and_name(item: Any, loc_file: str) -> tuple[str, str]:
    """Suite = module path (plus ``::Class``), name = the item's name with its param id."""
    nodeid: str = item.nodeid
    parts = nodeid.split("::")
    name = getattr(item, "name", parts[-1])
    suite_parts = parts[:-1] if len(parts) > 1 else [loc_file]
    return "::".join(suite_parts), name


def record_from_report(report: Any, workspace: str) -> TestFailureRecord:
    """Fallback when no native capture reached us (e.g. a crashed xdist worker)."""
    from ..classify import classify_test

    nodeid = str(getattr(report, "nodeid", ""))
    parts = nodeid.split("::")
    path, lineno, _domain = getattr(report, "location", None) or (parts[0], None, "")
    text = str(getattr(report, "longreprtext", "") or "")
    lines = [ln[4:] for ln in text.splitlines() if ln.startswith("E   ")]
    message = "\n".join(lines) if lines else text[-MAX_MESSAGE:]
    exc_type = ""
    match = re.match(r"\s*([A-Za-z_][\w.]*(?:Error|Exception|Exit|Failed|Interrupt|Warning))\b", message)
    if match:
        exc_type = match.group(1).rsplit(".", 1)[-1]
    when = getattr(report, "when", "call")
    record = TestFailureRecord(
        runner="pytest",
        test_suite="::".join(parts[:-1]) if len(parts) > 1 else path,
        test_name=parts[-1],
        file_path=str(path),
        line=(lineno or 0) + 1 if lineno is not None else 0,
        message=message[:MAX_MESSAGE],
        node_id=nodeid,
        exception_type=exc_type,
        outcome="error" if when in ("setup", "teardown", "collect") else "failed",
        duration_ms=int(round(float(getattr(report, "duration", 0.0) or 0.0) * 1000)),
        raw=text[-MAX_RAW:],
    )
    if when == "collect":
        record.failure_type = "infra"
        record.failure_id = "T" + _stable("pytest", f"{nodeid}@collect")
    record.ensure_id()
    return classify_test(record)


def load_error_location(exc: BaseException, tb: TracebackType | None, workspace: str) -> tuple[str, int] | None:
    """Where a module failed to load, when that place is the project's own code.

    pytest wraps a SyntaxError or ImportError raised while importing a test module in its own
    CollectError; the original is the cause.  A SyntaxError names its file and line itself; any
    other exception is placed at its deepest frame inside the workspace."""
    seen = 0
    while exc.__cause__ is not None and type(exc).__name__ == "CollectError" and seen < 8:
        tb, exc, seen = exc.__cause__.__traceback__, exc.__cause__, seen + 1
    if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
        path = os.path.realpath(exc.filename)
        if _inside(path, workspace):
            return relpath(path, workspace), int(exc.lineno)
    if type(exc).__name__ == "CollectError":
        return None
    for filename, line, _frame in reversed(_tb_frames(tb)):
        path = os.path.realpath(filename)
        if _inside(path, workspace) and (is_impl_file(filename, workspace) or is_test_file(filename)):
            return relpath(path, workspace), line
    return None


def _inside(path: str, workspace: str) -> bool:
    root = os.path.realpath(workspace)
    return path == root or path.startswith(root + os.sep)


def cause_name(exc: BaseException) -> str:
    """The exception's type name; for pytest's CollectError wrapper, the type of what it wraps."""
    while type(exc).__name__ == "CollectError" and exc.__cause__ is not None:
        exc = exc.__cause__
    return type(exc).__name__
