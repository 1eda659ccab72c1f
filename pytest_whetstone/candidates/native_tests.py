"""Fix candidates for gtest / ctest / Jest / TAP / JUnit failures in C, C++ and JS/TS code.

Seed 001 step 1373 for the non-pytest runners, at the top suspect that
:mod:`..locate.native_tests` ranked:

* assertion -> a value correction when a literal equal to the actual value sits in
  the suspect (the literal becomes the expected value), a boundary flip when the
  suspect's loop has one ``<``/``<=``/``>``/``>=`` condition and the values are
  numbers, and always a logic-change description quoting expected and actual;
* crash / signal / exception -> a guard at the crashing frame when a stack trace
  names one (an inserted ``if (!ptr) return ...;`` before a C/C++ ``ptr->`` deref),
  else a guard description;
* timeout -> manual, prominent; infra (``Not Run``, missing executable, fixture
  ``SetUp``, "Test suite failed to run") -> manual naming the missing piece;
* every failure also gets one low-confidence manual fallback.

Edits use the one TextEdit shape (1-based lines and character columns) and carry
the pre-image hashes the edit engine checks.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..locate import cfamily, jsfamily
from ..locate.native_tests import Frame, Workspace, family_of, is_native, locate_native_failures, stack_frames
from ..records import FixCandidate, Position, TestFailureRecord, TextEdit
from .common import edit_for, manual_for, per_failure

if TYPE_CHECKING:
    from ..config import Config

__all__ = ["generate_native_candidates", "split_native"]

_C_LITERALS = {"number_literal", "string_literal", "char_literal", "true", "false", "raw_string_literal"}
_JS_LITERALS = {"number", "string", "true", "false", "template_string"}
_LOOPS = {"for_statement", "while_statement", "do_statement", "for_in_statement"}
_FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
_NUMBER = re.compile(r"^[-+]?(?:0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)[uUlLfF]*$")
_MISSING_EXE = re.compile(r"(?:Unable to find|Could not find) executable:?\s*(\S+)")
_FAILED_DEPS = re.compile(r"Failed test dependencies:\s*(.+)")
_MISSING_MODULE = re.compile(r"Cannot find module '([^']+)'")


def split_native(failures: list[TestFailureRecord]) -> tuple[list[TestFailureRecord], list[TestFailureRecord]]:
    """(native runner failures, the rest) -- the rest goes to the Python generator."""
    native = [f for f in failures if is_native(f)]
    return native, [f for f in failures if not is_native(f)]




# --------------------------------------------------------------------------- parsing helpers


def _parse(workspace: Path, rel: str) -> tuple[Any, str] | None:
    """(tree root, family) of a workspace file."""
    fam = family_of(rel)
    if fam == "c":
        pf = cfamily.parse_file(workspace / rel)
        return (pf.tree.root_node, fam) if pf is not None else None
    if fam == "js":
        pj = jsfamily.parse_file(workspace / rel)
        return (pj.tree.root_node, fam) if pj is not None else None
    return None


def _walk(node: Any, lo: int, hi: int) -> list[Any]:
    """Nodes of node's subtree that start within lines [lo, hi] (1-based), in source order."""
    out: list[Any] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.end_point[0] + 1 < lo or cur.start_point[0] + 1 > hi:
            continue
        out.append(cur)
        stack.extend(reversed(cur.children))
    return out


def _pos(workspace: Path, rel: str, point: tuple[int, int]) -> Position:
    """tree-sitter (row, byte col) -> our 1-based line / character column."""
    row, byte_col = point
    try:
        raw = (workspace / rel).read_bytes().split(b"\n")[row]
    except (OSError, IndexError):
        raw = b""
    return Position(row + 1, len(raw[:byte_col].decode("utf-8", errors="replace")) + 1)


def _text(node: Any) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


# --------------------------------------------------------------------------- values


def _unquote(value: str) -> tuple[str, str]:
    """("string", inner) for a quoted printed value, ("number", v) / ("bool", v) / ("other", v)."""
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'`":
        return "string", v[1:-1]
    if _NUMBER.match(v):
        return "number", v
    if v in ("true", "false"):
        return "bool", v
    return "other", v


def _num(text: str) -> float | None:
    t = text.rstrip("uUlLfF") if not text.lower().startswith("0x") else text
    try:
        return float(int(t, 16)) if t.lower().startswith(("0x", "-0x")) else float(t)
    except ValueError:
        return None


def _literal_kind(node: Any) -> tuple[str, str]:
    t = node.type
    if t in ("number_literal", "number"):
        return "number", _text(node)
    if t in ("true", "false"):
        return "bool", t
    if t in ("string_literal", "string", "template_string"):
        raw = _text(node)
        return "string", raw[1:-1] if len(raw) >= 2 else raw
    if t == "char_literal":
        raw = _text(node)
        return "char", raw[1:-1]
    return "other", _text(node)


def _matches(node: Any, kind: str, value: str) -> bool:
    lkind, lval = _literal_kind(node)
    if kind == "number" and lkind == "number":
        a, b = _num(lval), _num(value)
        return a is not None and a == b
    if kind == "string" and lkind == "string":
        return lval == value
    return kind == lkind == "bool" and lval == value


def _new_literal(node: Any, expected_kind: str, expected: str) -> str | None:
    lkind, _ = _literal_kind(node)
    if lkind == "number" and expected_kind == "number":
        return expected
    if lkind == "bool" and expected_kind == "bool":
        return expected
    if lkind == "string" and expected_kind == "string":
        quote = _text(node)[0]
        return quote + expected.replace("\\", "\\\\").replace(quote, "\\" + quote) + quote
    return None


def _printed(failure: TestFailureRecord, value: str) -> tuple[str, str]:
    kind, inner = _unquote(value)
    if kind == "other" and failure.runner == "tap" and value:
        return "string", value  # TAP's YAML already took the quotes off strings
    return kind, inner


def value_correction(failure: TestFailureRecord, workspace: Path) -> list[FixCandidate]:
    """A literal in the top suspect equal to the actual value -> the expected value."""
    if not failure.suspects or not failure.expected_value or not failure.actual_value:
        return []
    top = failure.suspects[0]
    parsed = _parse(workspace, top.file_path)
    if parsed is None:
        return []
    root, fam = parsed
    a_kind, actual = _printed(failure, failure.actual_value)
    e_kind, expected = _printed(failure, failure.expected_value)
    if a_kind == "other" or a_kind != e_kind:
        return []
    kinds = _C_LITERALS if fam == "c" else _JS_LITERALS
    hits = [n for n in _walk(root, top.line_start, top.line_end) if n.type in kinds and _matches(n, a_kind, actual)]
    hits = [n for n in hits if top.line_start <= n.start_point[0] + 1 <= top.line_end]
    if len(hits) > 1:  # several: only a returned one is a clear answer
        returned = [n for n in hits if _inside(n, {"return_statement"})]
        hits = returned
    if len(hits) != 1:
        return []
    node = hits[0]
    new_text = _new_literal(node, e_kind, expected)
    if new_text is None:
        return []
    edit = TextEdit(top.file_path, _pos(workspace, top.file_path, node.start_point),
                    _pos(workspace, top.file_path, node.end_point), new_text)
    return [
        edit_for(
            failure,
            f"change {_text(node)} to {new_text} in {top.qualname} ({top.file_path}:{edit.start.line}): "
            f"the test expected {failure.expected_value[:60]}, got {failure.actual_value[:60]}",
            [edit],
            mutation_type="replaceNode",
            confidence=0.55,
            source="heuristic",
            kind="value-correction",
        )
    ]


def _inside(node: Any, types: set[str], stop: int = 6) -> bool:
    parent = node.parent
    while parent is not None and stop:
        if parent.type in types:
            return True
        parent, stop = parent.parent, stop - 1
    return False


def boundary_flip(failure: TestFailureRecord, workspace: Path) -> list[FixCandidate]:
    """Numeric assertion + one relational loop condition in the suspect -> flip its strictness."""
    if not failure.suspects:
        return []
    if _unquote(failure.expected_value)[0] != "number" or _unquote(failure.actual_value)[0] != "number":
        return []
    top = failure.suspects[0]
    parsed = _parse(workspace, top.file_path)
    if parsed is None:
        return []
    root, _ = parsed
    ops = []
    for node in _walk(root, top.line_start, top.line_end):
        if node.type in _LOOPS:
            cond = node.child_by_field_name("condition")
            if cond is None:
                continue
            for sub in _walk(cond, 0, 1 << 30):
                if sub.type == "binary_expression":
                    op = sub.child_by_field_name("operator")
                    if op is not None and _text(op) in _FLIP:
                        ops.append(op)
    if len(ops) != 1:
        return []
    op = ops[0]
    new = _FLIP[_text(op)]
    edit = TextEdit(top.file_path, _pos(workspace, top.file_path, op.start_point),
                    _pos(workspace, top.file_path, op.end_point), new)
    return [
        edit_for(
            failure,
            f"off-by-one? change the loop bound `{_text(op)}` to `{new}` in {top.qualname} "
            f"({top.file_path}:{edit.start.line}): expected {failure.expected_value[:60]}, got {failure.actual_value[:60]}",
            [edit],
            mutation_type="replaceNode",
            confidence=0.35,
            source="heuristic",
            kind="boundary",
        )
    ]


# --------------------------------------------------------------------------- crashes


def _crash_frame(failure: TestFailureRecord, workspace: Path) -> Frame | None:
    frames = stack_frames(failure, Workspace(workspace))
    return frames[0] if frames else None


def _enclosing_function(root: Any, line: int) -> Any:
    best = None
    for node in _walk(root, line, line):
        if node.type == "function_definition" and node.start_point[0] + 1 <= line <= node.end_point[0] + 1:
            best = node
    return best


def _default_return(fn: Any) -> str | None:
    """`return;` for void, `return 0;`-like for scalars, None when no safe default is known."""
    typ = fn.child_by_field_name("type")
    if typ is None:
        return None  # constructors, destructors, K&R oddities
    t = " ".join(_text(typ).split())
    decl = _text(fn.child_by_field_name("declarator") or fn)
    head = decl.split("(")[0]
    if "*" in head or "*" in t:
        return " 0"  # a null pointer in C and C++ alike
    if t == "void":
        return ""
    if t == "bool":
        return " false"
    if t in ("int", "long", "short", "char", "unsigned", "size_t", "double", "float", "std::size_t", "unsigned int",
             "long long", "int64_t", "int32_t", "uint64_t", "uint32_t", "std::int64_t", "std::uint64_t"):
        return " 0"
    return None


def guard_candidates(failure: TestFailureRecord, workspace: Path) -> list[FixCandidate]:
    frame = _crash_frame(failure, workspace)
    top = failure.suspects[0] if failure.suspects else None
    what = failure.exception_type or "crash"
    if frame is None:
        at = f"{top.qualname} ({top.file_path}:{top.line_start})" if top else (failure.node_id or failure.test_name)
        hint = " (rebuild with -fsanitize=address to get the crashing frame)" if family_of(
            top.file_path if top else failure.file_path or "x.cc") == "c" else ""
        return [manual_for(failure, f"the test died ({what}): add a guard or precondition in {at}{hint}",
                      confidence=0.3, kind="guard")]
    out: list[FixCandidate] = []
    where = f"{frame.file_path}:{frame.line}"
    parsed = _parse(workspace, frame.file_path)
    if parsed is not None and parsed[1] == "c":
        edit = _c_guard_edit(parsed[0], frame, workspace)
        if edit is not None:
            edit_obj, ptr = edit
            out.append(edit_for(failure, f"guard against a null `{ptr}` before it is dereferenced at {where} ({what})",
                             [edit_obj], mutation_type="insertNode", confidence=0.3, source="heuristic", kind="guard", pointer=ptr))
    func = f" in {frame.func}" if frame.func else ""
    # the concrete guard (0.3) ranks above this description of it
    out.append(manual_for(failure, f"the test crashed ({what}) at {where}{func}: check the pointers, indices and "
                     "preconditions that reach this line, and add a guard", confidence=0.25, kind="guard"))
    return out


def _c_guard_edit(root: Any, frame: Frame, workspace: Path) -> tuple[TextEdit, str] | None:
    fn = _enclosing_function(root, frame.line)
    if fn is None:
        return None
    derefs = [
        n for n in _walk(root, frame.line, frame.line)
        if n.start_point[0] + 1 == frame.line and n.type == "field_expression"
        and (n.child_by_field_name("operator") is not None and _text(n.child_by_field_name("operator")) == "->")
    ]
    pointers = list(dict.fromkeys(_text(n.child_by_field_name("argument")) for n in derefs))
    if len(pointers) != 1 or not re.fullmatch(r"[A-Za-z_][\w.]*(?:->[A-Za-z_]\w*)*", pointers[0]):
        return None
    ret = _default_return(fn)
    if ret is None:
        return None
    lines = (workspace / frame.file_path).read_text("utf-8", errors="replace").split("\n")
    text = lines[frame.line - 1] if frame.line <= len(lines) else ""
    indent = text[: len(text) - len(text.lstrip())]
    guard = f"{indent}if (!{pointers[0]}) {{\n{indent}  return{ret};\n{indent}}}\n"
    pos = Position(frame.line, 1)
    return TextEdit(frame.file_path, pos, pos, guard), pointers[0]


# --------------------------------------------------------------------------- rules


def _infra(failure: TestFailureRecord) -> FixCandidate:
    text = "\n".join(t for t in (failure.message, failure.raw) if t)
    m = _MISSING_EXE.search(text)
    if m:
        what = f"the test executable `{m.group(1)}` does not exist: build its target first, or fix the " \
               f"add_test(... COMMAND ...) path for {failure.test_name}"
    elif _FAILED_DEPS.search(text):
        deps = _FAILED_DEPS.search(text)
        what = f"{failure.test_name} did not run because the tests it depends on failed: fix {deps.group(1).strip() if deps else 'them'} first"
    elif "SetUpTestSuite" in failure.test_name or "Environment" in failure.test_name or "SetUp" in failure.message:
        what = f"the fixture setup of {failure.test_suite or failure.test_name} failed: fix its SetUp/SetUpTestSuite " \
               f"({failure.message.splitlines()[0][:120] if failure.message else 'see the log'})"
    elif _MISSING_MODULE.search(text):
        mod = _MISSING_MODULE.search(text)
        what = f"the test suite could not load module '{mod.group(1) if mod else ''}': install it or fix the import path"
    elif "Not Run" in text or failure.outcome == "error":
        first = failure.message.splitlines()[0] if failure.message else "the test did not run"
        what = f"{failure.test_name} did not run ({first[:160]}): fix the test setup or environment"
    else:
        what = f"test setup failed for {failure.test_name or failure.node_id}: fix the fixture/setup or environment"
    return manual_for(failure, what, confidence=0.2, kind="fixture-setup")


def rule_candidates(failure: TestFailureRecord, workspace: Path) -> list[FixCandidate]:
    kind = failure.failure_type
    top = failure.suspects[0] if failure.suspects else None
    at = f"{top.qualname} ({top.file_path}:{top.line_start})" if top else (failure.file_path or failure.test_name)
    out: list[FixCandidate] = []
    crashed = failure.exception_type in ("crash",) or "Exception" in failure.message[:40] or "SEGV" in failure.raw
    if kind == "assertion" and not crashed:
        out.extend(value_correction(failure, workspace))
        out.extend(boundary_flip(failure, workspace))
        gap = ""
        if failure.expected_value or failure.actual_value:
            gap = f": expected {failure.expected_value[:80]}, got {failure.actual_value[:80]}"
        if "Death test" in failure.message:
            gap += " (a death test: the code must abort/exit as the test says)"
        out.append(manual_for(failure, f"correct the value or logic in {at}{gap}", confidence=0.5 if top else 0.4, kind="logic-change", suspect=top.to_dict() if top else None))
    elif kind == "exception" or crashed:
        out.extend(guard_candidates(failure, workspace))
    elif kind == "timeout":
        out.append(manual_for(failure, f"the test timed out: look for a loop that never ends, a blocking call or a slow "
                         f"algorithm in {at}", confidence=0.2, kind="timeout"))
    elif kind == "infra":
        out.append(_infra(failure))
    elif kind == "wrong_output":
        out.append(manual_for(failure, f"output differs from the snapshot/golden file: fix {at} or, if the new output "
                         "is right, regenerate the snapshot (jest -u)", confidence=0.2, kind="snapshot"))
    elif kind == "missing_output":
        out.append(manual_for(failure, f"expected output was not produced: check the output path and that {at} writes it",
                         confidence=0.2, kind="output-path"))
    return out


def manual(failure: TestFailureRecord) -> FixCandidate:
    name = failure.node_id or f"{failure.test_suite}.{failure.test_name}"
    return manual_for(failure, f"investigate {name} by hand: {failure.message[:200]}", confidence=0.1,
                 kind="manual")


def generate_native_candidates(
    failures: list[TestFailureRecord], workspace: Path, config: Config | None = None
) -> list[FixCandidate]:
    """Ranked candidates for non-pytest failures; one manual fallback each."""
    workspace = Path(workspace)
    unlocated = [f for f in failures if not f.suspects]
    if unlocated:
        locate_native_failures(unlocated, workspace)
    return per_failure(failures, workspace, (rule_candidates,), manual)
