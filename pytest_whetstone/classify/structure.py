"""Classification from the source around an error, not from its wording.

A statement whose ``;`` is missing runs into the next line: ``Node* e = *ptr`` followed by
``*ptr = e->next;`` reads as one multiplication, and the compiler reports the *second* line with
whatever that juxtaposition means in its grammar ("invalid operands to binary", "'x' cannot be
used as a function", "called object is not a function").  The wording names a type or a call; the
source says a line above ends where a statement could, unterminated.  When the error's caret is on
the first token of its line and the code line above is such a statement, the error is a syntax
error whatever it says.

The other way round, a function-like macro that is not defined (its header not included) turns
``const MODEL("small")`` at file scope into a function declarator whose parameter is a literal:
"expected declaration specifiers or '...' before string constant" (gcc), "expected parameter
declarator" (clang) read as grammar, but a literal where a parameter belongs says an unknown name.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..records import BuildErrorRecord

# What the joined line may have been classed as from its words: only classes a juxtaposition
# produces (a type error, or nothing known); an undeclared name or a missing header stays.
_OVERRIDABLE = ("unknown", "type_mismatch")
_C_SOURCE = (".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp", ".tcc")
# A line that could end a statement if a ';' followed: a name, a call's ')', a subscript, a literal.
_ENDS_OPEN = re.compile(r"[\w)\]'\"]$")
# Lines that end without ';' by design: control headers, labels, templates, declarations' heads.
_HEADER_WORD = re.compile(
    r"^(?:if|for|while|switch|else|do|case|default|template|public|private|protected|namespace"
    r"|class|struct|union|enum|extern|return\s*$|goto)\b|^#|^//|^/\*|^\*|\\$"
)
# The joined line begins a statement: a name, a dereference, a cast or call in parentheses.
_STARTS_STATEMENT = re.compile(r"^(?:[A-Za-z_]\w*|\*+|&|\(|::|~|\+\+|--)")


def _code_lines(path: Path, cache: dict[Path, list[str] | None]) -> list[str] | None:
    if path not in cache:
        try:
            cache[path] = path.read_text(encoding="utf-8", errors="replace").split("\n") if path.stat().st_size < 4_000_000 else None
        except OSError:
            cache[path] = None
    return cache[path]


def _previous_code_line(lines: list[str], index: int) -> str:
    """The nearest line above ``index`` with code on it (blank and comment-only lines skipped)."""
    for i in range(index - 1, max(-1, index - 6), -1):
        text = re.sub(r"//.*$", "", lines[i]).strip()
        if text and not text.startswith(("/*", "*")):
            return text
    return ""


def runs_into_next_line(record: BuildErrorRecord, lines: list[str]) -> bool:
    """The error sits on the first token of a line that the unterminated statement above runs into."""
    if not 0 < record.line <= len(lines):
        return False
    here = lines[record.line - 1]
    body = here.lstrip()
    start = m.end() if (m := _STARTS_STATEMENT.match(body)) else 0
    indent = len(here) - len(body)
    if not start or not indent < record.col <= indent + start:
        return False
    above = _previous_code_line(lines, record.line - 1)
    if not above or not _ENDS_OPEN.search(above) or _HEADER_WORD.search(above):
        return False
    return above.count("(") >= above.count(")")  # not the last line of a parenthesised header


# A literal where a parameter's type should be: ``NAME("small")`` read as a function declarator
# because NAME, a function-like macro, is not defined here (its header is not included).
_PARAMETER_EXPECTED = re.compile(r"^expected parameter declarator|^expected declaration specifiers or .{1,3}\.\.\.")


def literal_as_parameter(record: BuildErrorRecord, lines: list[str]) -> bool:
    """The compiler wanted a parameter's type and the caret is on a string or number."""
    if not _PARAMETER_EXPECTED.search(record.message) or not 0 < record.line <= len(lines):
        return False
    here = lines[record.line - 1]
    return 0 < record.col <= len(here) and (here[record.col - 1] in "\"'" or here[record.col - 1].isdigit())


def joined_statements(records: list[BuildErrorRecord], cwd: str) -> None:
    """Re-class, as syntax errors, failing errors caused by a statement running into the next line
    (the first error of each unit only: later ones are that error's consequences)."""
    cache: dict[Path, list[str] | None] = {}
    seen_units: set[str] = set()
    for record in records:
        if not record.is_failure or not record.file_path:
            continue
        unit = record.translation_unit or record.file_path
        if unit in seen_units:
            continue
        seen_units.add(unit)
        if record.error_type not in (*_OVERRIDABLE, "syntax_error") or record.tool not in ("gcc", "clang") \
                or not record.file_path.endswith(_C_SOURCE):
            continue
        path = Path(record.file_path)
        if not path.is_absolute():
            if not cwd:
                continue
            path = Path(cwd) / path
        lines = _code_lines(path, cache)
        if lines is None:
            continue
        if record.error_type in ("syntax_error", "unknown") and literal_as_parameter(record, lines):
            record.error_type = "undefined_symbol"  # an undefined macro, not a grammar slip
        elif record.error_type in _OVERRIDABLE and runs_into_next_line(record, lines):
            record.error_type = "syntax_error"
