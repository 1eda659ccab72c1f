"""A missing closing brace: where the block the compiler found open really ended.

Three views, each proposing a few insertions for the per-file gate to decide: the first item that
starts in column 0 while a function body opened in column 0 is still open; the first definition the
compiler rejects as nested (gcc, g++ and clang word it differently); where the indentation says the
innermost unmatched block ends.  The brace goes on its emptied line when there is one (the seeded
and the usual shape: only the ``}`` was deleted), else on a line of its own.
"""

from __future__ import annotations

import re

from ..records import BuildErrorRecord, FixCandidate
from .buildctx import _Ctx
from .cfile import insert, quoted, resolve
from .common import edit_for
from .siteops import _code_mask, _pos, _read


def _unmatched_opens(text: str) -> list[int]:
    mask = _code_mask(text)
    stack: list[int] = []
    for i, ch in enumerate(text):
        if mask[i] and ch == "{":
            stack.append(i)
        elif mask[i] and ch == "}" and stack:
            stack.pop()
    return stack


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


# A definition where the grammar allows none: the block above it was left open (gcc, g++, clang).
_NESTED_DEFINITION = re.compile(r"definition is not allowed here|invalid storage class for function"
                                r"|qualified-id in declaration|cannot appear at block scope")


def closing_brace(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """A block whose `}` is missing: close it just above the first definition the compiler found
    nested in it, or where the indentation says it ends."""
    msg = record.message
    nested = _NESTED_DEFINITION.search(msg) is not None
    if not ("end of input" in msg or re.search(r"expected " + quoted(r"\}"), msg) or nested):
        return []
    # Where the indentation says the open body ended comes first: GNU C takes the functions
    # between it and the first definition the compiler rejects for nested ones.
    scan = _close_at_top_level(ctx, record, upto=record.line if nested else None)
    before = _close_before_definition(ctx, record) if nested else []
    return scan + before + _close_by_indentation(ctx, record)


def _code_lines(lines: list[str]) -> list[bool]:
    """For each line: does it hold code (not only blanks, comments, strings' continuations or a directive)?"""
    mask = _code_mask("\n".join(lines))
    out, offset = [], 0
    for line in lines:
        out.append(any(mask[offset + i] and not ch.isspace() for i, ch in enumerate(line)))
        offset += len(line) + 1
    return out


_NOT_A_BODY = re.compile(r'^(?:extern\s+"C(?:\+\+)?"|namespace\b|(?:typedef\s+)?(?:struct|union|enum|class)\b[^(]*$)')


def _close_at_top_level(ctx: _Ctx, record: BuildErrorRecord, upto: int | None = None) -> list[FixCandidate]:
    """End of input with a block open: the first item that starts in column 0 while a function
    body opened in column 0 is still open marks where that body ended (GNU C takes the functions
    after it for nested ones, so the compiler has nothing more to say)."""
    lines = ctx.lines(record.file_path)
    if not lines or len(lines) > 200_000:
        return []
    code = _code_lines(lines)
    opened = -1
    out: list[FixCandidate] = []
    for i, line in enumerate(lines):
        if not code[i] or not line or line[0] in " \t":
            continue
        stripped = line.strip()
        if stripped.startswith("}"):
            opened = -1
        elif opened >= 0 and not stripped.endswith(":"):  # a label is not a new item
            if upto is not None and i + 1 > upto:
                break
            out += _close_before_definition(ctx, record, start=i, prior=0.64 - 0.1 * len(out) / 2)
            opened = -1
            if len(out) >= 4:
                break
        if stripped.endswith("{") and not _NOT_A_BODY.match(stripped) and opened < 0:
            opened = i
    return out


def _close_before_definition(ctx: _Ctx, record: BuildErrorRecord, start: int | None = None,
                             prior: float = 0.62) -> list[FixCandidate]:
    """The definition at the error starts a new top-level (or namespace-level) item: the block
    above it ends after the last line of code above the definition (and the comments and
    directives before it) -- on that line's emptied successor when there is one (the brace's own
    line, its ``}`` removed), else on a line of its own."""
    lines = ctx.lines(record.file_path)
    if not lines or not (0 < record.line <= len(lines)):
        return []
    first = record.line - 1 if start is None else start  # 0-based: walk up to the definition's start
    while first > 0 and start is None:
        above = lines[first - 1].strip()
        if not above or above.endswith((";", "}", "{")) or above.startswith("#"):
            break
        first -= 1
    has_code = _code_lines(lines)
    last = first - 1
    while last >= 0 and not has_code[last]:
        last -= 1
    if last < 0:
        return []
    indent = _indent(lines[first])
    rel = ctx.rel(record.file_path)
    out: list[FixCandidate] = []
    emptied = last + 1
    if emptied < first and not lines[emptied].strip():  # the brace's own line, emptied
        blank = lines[emptied]
        e = insert(rel, emptied + 1, len(blank) + 1, "}" if blank else indent + "}")
        out.append(edit_for(record, f"close the block above the definition at {rel}:{first + 1} with '}}' on line {emptied + 1}",
                            [e], mutation_type="insertNode", confidence=prior, source="heuristic", operator="close-brace"))
    out.append(edit_for(record, f"close the block above the definition at {rel}:{first + 1} with '}}' after line {last + 1}",
                        [insert(rel, last + 1, len(lines[last]) + 1, "\n" + indent + "}")], mutation_type="insertNode",
                        confidence=prior - 0.12, source="heuristic", operator="close-brace"))
    return out


def _close_by_indentation(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    path = resolve(record.file_path, ctx.workspace)
    text = _read(path)
    if text is None:
        return []
    opens = _unmatched_opens(text)
    if not opens:
        return []
    lines = text.split("\n")
    rel = ctx.rel(str(path))
    out: list[FixCandidate] = []
    for rank, offset in enumerate(reversed(opens[-3:])):  # innermost first
        oline, _ = _pos(text, offset)
        indent = _indent(lines[oline - 1])
        end = None
        for k in range(oline, len(lines)):  # 0-based index of the line after the opener
            line = lines[k]
            if line.strip() and len(_indent(line)) <= len(indent) and not line.lstrip().startswith(("}", "#", "//", "/*", "*")):
                end = k
                break
        prior = 0.55 - 0.1 * rank
        if end is not None:
            last = end - 1
            while last > oline - 1 and not lines[last].strip():
                last -= 1
            blanks = end - 1 - last
            if blanks >= 2:  # the brace's own line is still there, emptied
                out.append(edit_for(record, f"close the block opened at {rel}:{oline} with '}}' on line {last + 2}", [insert(rel, last + 2, 1, indent + "}")],
                                 mutation_type="insertNode", confidence=prior, source="heuristic", operator="close-brace"))
            out.append(edit_for(record, f"close the block opened at {rel}:{oline} with '}}' after line {last + 1}", [insert(rel, last + 1, len(lines[last]) + 1, "\n" + indent + "}")],
                             mutation_type="insertNode", confidence=prior - 0.05, source="heuristic",
                             operator="close-brace"))
            out.append(edit_for(record, f"close the block opened at {rel}:{oline} with '}}' before line {end + 1}", [insert(rel, end + 1, 1, indent + "}\n")],
                             mutation_type="insertNode", confidence=prior - 0.1, source="heuristic", operator="close-brace"))
        last_line = len(lines) if lines[-1] else len(lines) - 1
        out.append(edit_for(record, f"close the block opened at {rel}:{oline} with '}}' at the end of the file", [insert(rel, last_line, len(lines[last_line - 1]) + 1, "\n" + indent + "}")],
                         mutation_type="insertNode", confidence=prior - 0.2,
                         source="heuristic", operator="close-brace"))
    return out
