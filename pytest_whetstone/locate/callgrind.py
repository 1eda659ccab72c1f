"""What one run executed, read from a callgrind profile (valgrind's ``--tool=callgrind`` output).

Callgrind runs an unmodified binary, so a test binary needs no coverage build: with debug info the
profile names the source lines that ran (inlined code under its own file, ``fi=``/``fe=``); without,
it still names every function that ran (symbol names, demangled).  Only presence is read, not cost.

Format: https://valgrind.org/docs/manual/cl-format.html -- ``fl=``/``fi=``/``fe=`` set the file of
the cost lines that follow, ``fn=`` the function (and resets the file to its ``fl=``); names may be
compressed to ``(id)`` after their first ``(id) name``; positions may be relative (``+n``, ``-n``,
``*``).  ``calls=`` is followed by the call site's cost line, which ran too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

_COMPRESSED = re.compile(r"\((\d+)\)(?: (.*))?$")
_UNKNOWN_FILE = "???"


@dataclass
class Executed:
    """Source lines (absolute or as the debug info names them) and function names that ran."""

    lines: dict[str, set[int]] = field(default_factory=dict)
    functions: set[str] = field(default_factory=set)
    trigger: str = ""  # why the part was dumped, e.g. ``--dump-after=Suite_Name_Test::TestBody()``
    # where the test crashed, innermost frame first: (source file, line), or (function name, 0) without
    # debug info (the breakpoint tracer's record of a fatal signal)
    frames: list[tuple[str, int]] = field(default_factory=list)

    def merge(self, other: Executed) -> None:
        for path, lines in other.lines.items():
            self.lines.setdefault(path, set()).update(lines)
        self.functions |= other.functions


class _Names:
    """One namespace of compressed names (files, functions)."""

    def __init__(self) -> None:
        self.by_id: dict[str, str] = {}

    def read(self, value: str) -> str:
        m = _COMPRESSED.match(value)
        if not m:
            return value
        if m[2] is not None:
            self.by_id[m[1]] = m[2]
            return m[2]
        return self.by_id.get(m[1], "")


def read_profile(lines: Iterable[str]) -> Executed:
    """The lines and functions one callgrind part executed (parts are separate files)."""
    out = Executed()
    files, funcs = _Names(), _Names()
    fn_file = current = ""
    function = ""
    last = 0
    for raw in lines:
        line = raw.rstrip("\n")
        if not line:
            continue
        head = line[0]
        if head.isdigit() or head in "+-*":
            pos_text = line.split(" ", 1)[0]
            try:
                if head == "*":
                    pos = last
                elif head in "+-":
                    pos = last + int(pos_text)
                else:
                    pos = int(pos_text, 0)
            except ValueError:
                continue
            last = pos
            if function:
                out.functions.add(function)
            if current and current != _UNKNOWN_FILE and pos > 0:
                out.lines.setdefault(current, set()).add(pos)
            continue
        if line.startswith("desc: Trigger: "):
            out.trigger = line[len("desc: Trigger: "):]
            continue
        key, sep, value = line.partition("=")
        if not sep:
            continue
        if key == "fl":
            fn_file = current = files.read(value)
        elif key in ("fi", "fe"):
            current = files.read(value)
        elif key == "fn":
            function = funcs.read(value)
            current = fn_file
        elif key in ("cfi", "cfl"):
            files.read(value)  # registers a compressed name used later
        elif key == "cfn":
            funcs.read(value)
    return out


def read_file(path: Path) -> Executed:
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            return read_profile(fh)
    except OSError:
        return Executed()


def plain_name(demangled: str) -> str:
    """``ns::Cls<int>::meth(int) const`` -> ``ns::Cls::meth``: the qualified name without
    parameters, template arguments or (a function template's) return type (how the function index names definitions; an anonymous
    namespace is ``(anonymous)`` there)."""
    demangled = demangled.replace("(anonymous namespace)", "(anonymous)")
    depth = 0
    cut = len(demangled)
    for i, ch in enumerate(demangled):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0 and i > 0 and not demangled.startswith("(anonymous)", i):
            cut = i
            break
    name = demangled[:cut]
    name = re.sub(r"<[^<>]*>", "", re.sub(r"<[^<>]*>", "", name)).strip()  # two levels of template arguments
    # a function template's symbol begins with its return type: "double ns::f<4, char const*>(char const*)"
    at = name.find("operator")
    return name[name.rfind(" ", 0, at) + 1:] if at >= 0 else name.rsplit(" ", 1)[-1]
