"""type_mismatch: change the declared type of the variable being initialised, or cast the value."""

from __future__ import annotations

import re

from ..locate.cfamily import byte_to_char_col, parse_file
from ..records import BuildErrorRecord, FixCandidate
from .buildctx import _Ctx
from .cfile import edit, quoted, record_char_col, resolve
from .common import edit_for

_CONVERSION = [
    re.compile(r"(?:initialization|assignment) of " + quoted(r"([^'\u2019]+)") + r" from " + quoted(r"([^'\u2019]+)")),
    re.compile(r"incompatible types when (?:assigning to|initializing) type " + quoted(r"([^'\u2019]+)") + r" (?:from|using) type " + quoted(r"([^'\u2019]+)")),
    re.compile(r"invalid conversion from " + quoted(r"([^'\u2019]+)") + r" to " + quoted(r"([^'\u2019]+)")),
    re.compile(r"cannot initialize a variable of type " + quoted(r"([^'\u2019]+)") + r" with an \w+ of type " + quoted(r"([^'\u2019]+)")),
    re.compile(r"incompatible (?:pointer|integer)[\w ]* (?:initializing|assigning to) " + quoted(r"([^'\u2019]+)") + r" (?:\(aka [^)]*\) )?with an expression of type " + quoted(r"([^'\u2019]+)")),
]


def type_change(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """Change the declared type of the variable being initialised, or cast the value."""
    lines = ctx.lines(record.file_path)
    if not lines or not (0 < record.line <= len(lines)):
        return []
    for pattern in _CONVERSION:
        match = pattern.search(record.message)
        if match:
            to_type, from_type = match.group(1), match.group(2)
            if "invalid conversion from" in pattern.pattern:
                to_type, from_type = from_type, to_type
            break
    else:
        return []
    pf = parse_file(resolve(record.file_path, ctx.workspace))
    if pf is None:
        return []
    col = record_char_col(record, lines) or 1
    from ..locate.cfamily import _byte_col

    point = (record.line - 1, _byte_col(pf, record.line, col))
    node = pf.tree.root_node.named_descendant_for_point_range(point, point)
    decl = node
    while decl is not None and decl.type not in ("declaration", "function_definition", "compound_statement"):
        decl = decl.parent
    rel = ctx.rel(record.file_path)
    out: list[FixCandidate] = []
    if decl is not None and decl.type == "declaration":
        typ = decl.child_by_field_name("type")
        declarators = decl.children_by_field_name("declarator")
        if typ is not None and len(declarators) == 1:
            new_type, stars = _split_pointer(from_type)
            d = declarators[0]
            inner = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
            if inner is not None and new_type:
                # Replace "type [*]name" with the value's type, keeping qualifiers before it.
                sr, sc = typ.start_point
                er, ec = inner.start_point
                name_node = inner
                while name_node.child_by_field_name("declarator") is not None:
                    name_node = name_node.child_by_field_name("declarator")
                nr, nc = name_node.start_point
                start_col = byte_to_char_col(pf.lines[sr], sc + 1)
                end_col = byte_to_char_col(pf.lines[nr], nc + 1)
                new_text = f"{new_type}{'*' * stars} " if stars and _star_left(pf.source) else f"{new_type} {'*' * stars}"
                out.append(
                    edit_for(
                        record,
                        f"declare it as {from_type!r} instead of {to_type!r} ({rel}:{sr + 1})",
                        [edit(rel, sr + 1, start_col, nr + 1, end_col, new_text)],
                        mutation_type="changeType",
                        confidence=0.4,
                        source="heuristic",
                        old_type=to_type,
                        new_type=from_type,
                    )
                )
    value = node
    if value is not None and value.parent is not None and value.parent.type == "init_declarator":
        value = value.parent.child_by_field_name("value") or value
    if value is not None and value.type not in ("translation_unit", "ERROR", "declaration"):
        if value.start_point[0] == value.end_point[0]:
            row, sc = value.start_point
            _, ec = value.end_point
            a = byte_to_char_col(pf.lines[row], sc + 1)
            b = byte_to_char_col(pf.lines[row], ec + 1)
            expr = pf.lines[row][a - 1 : b - 1]
            if expr and "\n" not in expr:
                out.append(
                    edit_for(
                        record,
                        f"cast {expr!r} to {to_type!r} ({rel}:{row + 1})",
                        [edit(rel, row + 1, a, row + 1, b, f"({to_type})({expr})")],
                        mutation_type="changeType",
                        confidence=0.25,
                        source="heuristic",
                        cast_to=to_type,
                    )
                )
    return out


def _star_left(source: bytes) -> bool:
    """The file's pointer style: `char* p` (True) or `char *p` (False), by majority."""
    left = len(re.findall(rb"\w\* \w", source))
    right = len(re.findall(rb"\w \*\w", source))
    return left > right


def _split_pointer(type_text: str) -> tuple[str, int]:
    text = " ".join(type_text.replace("*", " * ").split())
    stars = text.count("*")
    base = text.replace("*", "").strip()
    base = re.sub(r"\s+", " ", base)
    if "(" in base or "[" in base or "{" in base or "aka" in base:
        return "", 0
    return base, stars
