"""What a failed compile of a schema blames (:mod:`.native_screen` and :mod:`.native_screen_group` build them):
the mutants whose own text holds an error, the expressions whose branches' types disagree, the lines
left to the one-at-a-time path, and when to compile again without the risky constant choices; and the
lines of a schema that compiled but whose unmutated run fails elsewhere than the build's; and which lines
and places of a file a compile's errors name (:func:`error_lines_in`)."""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from ..records import BuildErrorRecord
from .native_schema import Key, Schema


def not_constants(schema: Schema, error_lines: set[int], named_any: bool | None = None) -> bool:
    """Whether a failed compile calls for the schema again without its risky choices: an error on a line
    with no choice (or naming no line at all: ``named_any``, by default whether this file's were named), a
    C++ constant whose initializer is a choice used where a constant is wanted (errors on lines with
    choices may only follow from it)."""
    named_any = bool(error_lines) if named_any is None else named_any
    return bool(schema.risky) and bool(error_lines - set(schema.lines) or not named_any)


def blamed(schema: Schema, error_lines: set[int], error_points: set[tuple[int, ...]]
           ) -> tuple[set[Key], set[Key], set[int]]:
    """What a failed compile of ``schema`` blames: the mutants whose own text holds an error (rejected);
    the mutants of a host where an error lies in its guards (its branches' types disagree: `1` where a
    pointer's `0` was), left to the one-at-a-time path with the rest of their line kept; and the lines
    with choices where an error lies outside any host (a note's line), left to that path whole.

    An error in a function template's body that a choice's code required (a point's further places,
    :func:`error_lines_in`) may be that choice's (`read(n, text)` deduced `It = int`), or
    the body's own mutant's, the choice only holding the call unchanged (`read(text, n) + 1` -> `- 1`):
    gcc names one place for each instantiation.  Both are left to the one-at-a-time path, neither
    rejected: whichever compiles alone is still tried, and the next compile does not meet the same
    instantiation again.  (An instantiation the original text required is the body's own doing.)"""
    own: set[Key] = set()
    apart: set[Key] = set()
    lines: set[int] = set()
    for point in error_points:
        places = [(point[i], point[i + 1]) for i in range(2, len(point) - 1, 2)]
        by = next((k for p in places if (k := schema.at(*p)) is not None), None)
        line, col = point[:2]
        key = schema.at(line, col)
        if by is not None:
            apart.add(by)
            apart.update([key] if key is not None else schema.host_at(line, col) or [])
        elif key is not None:
            own.add(key)
        elif host := schema.host_at(line, col):
            apart.update(host)
        else:
            lines.add(line)
    return own, apart, (lines | (error_lines if not own and not apart else set())) & set(schema.lines)


def moved_failures(schema: Schema, rel: str, schema_failing: dict[str, str], build_failing: dict[str, str]) -> set[int]:
    """Lines with choices of ``rel`` where the unmutated schema's failing tests failed (an ``assert`` or a
    check that names ``file:line``) and the real build's did not: a choice there changes the code with no
    mutant on.  In C++ a choice's type is its branches' common type, so `BitSize(value)` with a choice
    `value + 1` passes an `int` where a `uint16_t` went, the template deduces another type, and its
    `sizeof` says 32 bits for 16: double-conversion's `AssignUInt16` then aborted in its assert before any
    test reached the fault, and every mutant after it read as never reached."""
    named = re.compile(rf"(?<![\w.-]){re.escape(Path(rel).name)}:(\d+)\b")
    out: set[int] = set()
    for fid, signature in schema_failing.items():
        seen = {int(n) for n in named.findall(build_failing.get(fid, ""))}
        out |= {int(n) for n in named.findall(signature)} - seen
    return out & set(schema.lines)


def error_lines_in(diagnostics: list[BuildErrorRecord], path: Path) -> tuple[set[int], set[tuple[int, ...]]]:
    """Lines of ``path`` the compiler named in its errors and their notes; the errors' places there, each
    ``(line, column)`` followed by the places in ``path`` whose code required the template instantiation
    the error is in (gcc's "required from", clang's "requested here"): a mutant at a call of a function
    template (`!buffer` for `buffer`) instantiates it with a type its body cannot take, and the errors
    then lie in that body, not in the mutant (:func:`blamed` reads both)."""
    real = os.path.realpath(path)

    @functools.cache  # a schema's compile names the same few files thousands of times
    def here(file_path: str) -> bool:
        return bool(file_path) and (os.path.realpath(file_path) == real or real.endswith(os.sep + file_path.lstrip("./")))

    lines: set[int] = set()
    points: set[tuple[int, ...]] = set()
    block: list[int] = []  # the places that required the instantiation gcc last named
    for d in diagnostics:
        required: list[int] = []
        if d.line and here(d.file_path):
            lines.add(d.line)
        # gcc names an instantiation once, before its first error; the others in it follow
        opens = any(n.message.startswith("In instantiation of") for n in d.notes)
        for n in d.notes:
            if n.line and here(n.file_path) and not n.message.startswith("included from"):
                lines.add(n.line)
                if d.severity == "error" and (not here(d.file_path) or n.message.startswith("in expansion of macro")):
                    # "required from here": a template the edit broke; gcc's "in expansion of macro": the
                    # error is in the macro's body, the invocation it names is inside one choice's text
                    # (`can_read(4, buffer)`, two arguments swapped), not the whole line's
                    points.add((n.line, n.col))
                elif d.severity == "error" and _REQUIRED.search(n.message):
                    required += [n.line, n.col]
        block = required if opens else block
        if d.line and here(d.file_path) and d.severity == "error":
            points.add((d.line, d.col, *(required or block)))
    return lines, points


_REQUIRED = re.compile(r"^required from|requested here$")
