"""Candidates for lint the compiler turned into an error (``-Werror``): the build failed on it.

Lint that stays a warning never gates and gets nothing here.  For the common
``-Werror=`` classes the fixes are small and mechanical:

* unused variable: remove a side-effect-free declaration, ``(void)name;`` after it,
  or mark it unused (``[[maybe_unused]]`` in C++, ``__attribute__((unused))`` in C);
* unused parameter: ``(void)name;`` first in the body, or mark it unused;
* unused function: mark it unused;
* sign comparison: cast one operand to the other's type (both ways; the
  compiler decides which still compiles cleanly).

The places come from the tree-sitter tree (error tolerant), never from the
message's wording beyond the quoted name and types.  Each candidate is checked
by :mod:`.tu_check` -- the one translation unit recompiled with its recorded
command in ``-fsyntax-only`` mode on a scratch copy -- when the command is known;
a candidate that leaves its diagnostic in place, or adds a new one, is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..locate.cfamily import ParsedFile, char_col, parse_file
from ..records import BuildErrorRecord, FixCandidate
from .cfile import quoted, read_lines, record_char_col, resolve
from .common import edit_for
from .hashing import record_hashes
from .tu_check import TuCheck, check_in_translation_unit

_NAME = re.compile(quoted(r"([A-Za-z_]\w*)"))
_TYPES = re.compile(quoted(r"([^'\u2019]+)") + r"(?:\s*\{aka " + quoted(r"[^'\u2019]+") + r"\})? and " + quoted(r"([^'\u2019]+)"))
_UNSIGNED = re.compile(r"\bunsigned\b|\bsize_t\b|\buint\w*_t\b|\buintptr_t\b")
_SIDE_EFFECT = re.compile(r"\(|\+\+|--|[^=!<>]=[^=]")

Gate = Callable[[FixCandidate, BuildErrorRecord, list[BuildErrorRecord], Path], TuCheck]


def lint_flag(record: BuildErrorRecord) -> str:
    """``unused-variable`` from ``-Werror=unused-variable`` or ``-Werror,-Wunused-variable``."""
    code = record.error_code
    if code.startswith("-Werror="):
        return code[len("-Werror="):]
    for part in code.split(","):
        if part.startswith("-W") and part != "-Werror":
            return part[2:]
    return ""


def wants_lint_candidates(record: BuildErrorRecord) -> bool:
    return record.is_lint and record.is_failure and bool(record.file_path) and record.line > 0


def generate_lint_candidates(
    errors: list[BuildErrorRecord], workspace: Path, *, gate: Gate = check_in_translation_unit
) -> list[FixCandidate]:
    workspace = Path(workspace)
    out: list[FixCandidate] = []
    for record in errors:
        if not wants_lint_candidates(record):
            continue
        handler = _HANDLERS.get(lint_flag(record))
        if handler is None:
            continue
        try:
            produced = handler(record, workspace)
        except Exception:  # noqa: BLE001 - one handler's bug must not lose the build's other candidates
            continue
        for cand in produced:
            record_hashes(cand, workspace)
            verdict = gate(cand, record, errors, workspace)
            if verdict.ran and not verdict.passed:
                continue  # the compiler says it does not clear the diagnostic (or breaks something)
            if verdict.ran:
                cand.validated = True
                cand.description += f" (validated: {verdict.detail})"
            out.append(cand)
    return out


# --------------------------------------------------------------------------- tree helpers


class _Site:
    """The record's file parsed, and the tree node at the diagnostic's column."""

    def __init__(self, record: BuildErrorRecord, workspace: Path) -> None:
        self.path = resolve(record.file_path, workspace)
        self.rel = _rel(self.path, workspace) or record.file_path
        pf = parse_file(self.path)
        lines = read_lines(self.path)
        if pf is None or lines is None or not 0 < record.line <= len(lines):
            raise LookupError("no parse")
        self.pf: ParsedFile = pf
        self.lines = lines
        col = record_char_col(record, lines) or 1
        byte = len(lines[record.line - 1][: col - 1].encode("utf-8"))
        self.node: Any = pf.tree.root_node.descendant_for_point_range((record.line - 1, byte), (record.line - 1, byte))
        self.cpp = pf.language == "cpp"

    def start(self, node: Any) -> tuple[int, int]:
        row, byte = node.start_point
        return row + 1, char_col(self.pf, row, byte)

    def end(self, node: Any) -> tuple[int, int]:
        row, byte = node.end_point
        return row + 1, char_col(self.pf, row, byte)

    def text(self, node: Any) -> str:
        return self.pf.source[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def indent(self, line: int) -> str:
        text = self.lines[line - 1]
        return text[: len(text) - len(text.lstrip())]

    def up(self, node: Any, *types: str) -> Any:
        while node is not None and node.type not in types:
            node = node.parent
        return node


def _rel(path: Path, workspace: Path) -> str:
    try:
        return path.resolve().relative_to(workspace.resolve()).as_posix()
    except (OSError, ValueError):
        return ""


def _edit(site: _Site, start: tuple[int, int], end: tuple[int, int], text: str) -> Any:
    from .cfile import edit

    return edit(site.rel, start[0], start[1], end[0], end[1], text)


def _name(record: BuildErrorRecord) -> str:
    match = _NAME.search(record.message)
    return match.group(1) if match else ""


def _identifier(site: _Site, name: str) -> Any:
    node = site.node
    if node is not None and node.type == "identifier" and site.text(node) == name:
        return node
    return None


# --------------------------------------------------------------------------- handlers


def _unused_variable(record: BuildErrorRecord, workspace: Path) -> list[FixCandidate]:
    name = _name(record)
    site = _Site(record, workspace)
    ident = _identifier(site, name)
    decl = site.up(ident, "declaration") if ident is not None else None
    if decl is None:
        return []
    out: list[FixCandidate] = []
    start, end = site.start(decl), site.end(decl)
    indent = site.indent(start[0])
    declarators = [c for c in decl.named_children if c.type in ("init_declarator", "identifier")]
    value = decl.child_by_field_name("declarator")
    init = value.child_by_field_name("value") if value is not None and value.type == "init_declarator" else None
    alone = site.lines[start[0] - 1][: start[1] - 1].strip() == "" and site.lines[end[0] - 1][end[1] - 1:].strip() == ""
    set_but_unused = "set but not used" in record.message
    if len(declarators) == 1 and alone and not set_but_unused and (init is None or not _SIDE_EFFECT.search(site.text(init))):
        out.append(edit_for(
            record, f"remove the unused variable {name!r} ({record.file_path}:{start[0]})", [_edit(site, (start[0], 1), (end[0] + 1, 1), "")], mutation_type="deleteNode",
            confidence=0.6, source="rule", lint=lint_flag(record),
        ))
    out.append(edit_for(
        record, f"mark {name!r} as used: `(void){name};` after its declaration ({record.file_path}:{end[0]})",
        [_edit(site, end, end, f"\n{indent}(void){name};")], mutation_type="insertNode", confidence=0.55, source="rule", lint=lint_flag(record),
    ))
    attribute = "[[maybe_unused]] " if site.cpp else "__attribute__((unused)) "
    out.append(edit_for(
        record, f"declare {name!r} {attribute.strip()} ({record.file_path}:{start[0]})", [_edit(site, start, start, attribute)], mutation_type="insertNode",
        confidence=0.5, source="rule", lint=lint_flag(record),
    ))
    return out


def _unused_parameter(record: BuildErrorRecord, workspace: Path) -> list[FixCandidate]:
    name = _name(record)
    site = _Site(record, workspace)
    ident = _identifier(site, name)
    param = site.up(ident, "parameter_declaration") if ident is not None else None
    function = site.up(param, "function_definition", "lambda_expression") if param is not None else None
    body = function.child_by_field_name("body") if function is not None else None
    if param is None or body is None or body.type != "compound_statement":
        return []
    out: list[FixCandidate] = []
    brace_end = site.end(body.children[0])  # just after "{"
    statements = [c for c in body.named_children if c.type != "comment"]
    first_line = site.start(statements[0])[0] if statements else 0
    indent = site.indent(first_line) if first_line and first_line != brace_end[0] else site.indent(brace_end[0]) + "    "
    out.append(edit_for(
        record, f"mark the parameter {name!r} as used: `(void){name};` first in the body", [_edit(site, brace_end, brace_end, f"\n{indent}(void){name};")], mutation_type="insertNode",
        confidence=0.6, source="rule", lint=lint_flag(record),
    ))
    if site.cpp:
        where = site.start(param)
        out.append(edit_for(
            record, f"declare the parameter {name!r} [[maybe_unused]]", [_edit(site, where, where, "[[maybe_unused]] ")], mutation_type="insertNode",
            confidence=0.5, source="rule", lint=lint_flag(record),
        ))
    else:
        where = site.end(ident)
        out.append(edit_for(
            record, f"declare the parameter {name!r} __attribute__((unused))", [_edit(site, where, where, " __attribute__((unused))")], mutation_type="insertNode",
            confidence=0.5, source="rule", lint=lint_flag(record),
        ))
    return out


def _unused_function(record: BuildErrorRecord, workspace: Path) -> list[FixCandidate]:
    name = _name(record)
    site = _Site(record, workspace)
    ident = _identifier(site, name)
    function = site.up(ident, "function_definition", "declaration") if ident is not None else None
    if function is None:
        return []
    where = site.start(function)
    attribute = "[[maybe_unused]] " if site.cpp else "__attribute__((unused)) "
    return [edit_for(
        record, f"declare the function {name!r} {attribute.strip()} (or remove it if nothing needs it)", [_edit(site, where, where, attribute)],
        mutation_type="insertNode", confidence=0.45, source="rule", lint=lint_flag(record),
    )]


def _sign_compare(record: BuildErrorRecord, workspace: Path) -> list[FixCandidate]:
    types = _TYPES.search(record.message)
    site = _Site(record, workspace)
    node = site.up(site.node, "binary_expression")
    if types is None or node is None:
        return []
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return []
    left_type, right_type = types.group(1).strip(), types.group(2).strip()
    out: list[FixCandidate] = []
    for operand, to_type, other in ((left, right_type, left_type), (right, left_type, right_type)):
        signed_to_unsigned = bool(_UNSIGNED.search(to_type)) and not _UNSIGNED.search(other)
        text = site.text(operand)
        simple = operand.type in ("identifier", "number_literal", "field_expression", "subscript_expression", "call_expression")
        cast = f"({to_type}){text}" if simple else f"({to_type})({text})"
        out.append(edit_for(
            record, f"cast {text[:60]!r} to {to_type!r} at the comparison ({record.file_path}:{record.line})",
            [_edit(site, site.start(operand), site.end(operand), cast)], mutation_type="changeType",
            confidence=0.5 if signed_to_unsigned else 0.45, source="rule", lint=lint_flag(record),
        ))
    return out


_HANDLERS: dict[str, Callable[[BuildErrorRecord, Path], list[FixCandidate]]] = {
    "unused-variable": _unused_variable,
    "unused-but-set-variable": _unused_variable,
    "unused-parameter": _unused_parameter,
    "unused-but-set-parameter": _unused_parameter,
    "unused-function": _unused_function,
    "sign-compare": _sign_compare,
}
