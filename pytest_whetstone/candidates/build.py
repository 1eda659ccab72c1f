"""Fix candidates for C/C++ build errors, in order of trust.

1. the compiler's own fix-its; 2. "did you mean" renames and missing
#include (compiler notes, then the symbol->header tables); 3. linker fixes
(link libm & co through the build file; rename a call one edit away from a
defined function); 4. CMake missing packages (manual, naming the apt
package); 5. type mismatch / syntax rules; and always one manual fallback.

Columns: compiler fix-its (``record.fixits``) arrive in character columns
(the parser converts the compiler's byte columns); diagnostics carry gcc's
display columns or clang's byte columns, converted here with
:func:`~pytest_whetstone.locate.cfamily.diag_col_to_char`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..locate.cfamily import byte_to_char_col, iter_sources, language_for, parse_file
from ..records import BuildErrorRecord, FixCandidate, TextEdit, rank_candidates
from . import tables
from .braces import closing_brace
from .buildctx import Generator, _Ctx
from .cfile import (
    IDENT,
    edit,
    identifier_at,
    levenshtein,
    near_names,
    quoted,
    record_char_col,
    resolve,
)
from .cmakefix import missing_source, required_package
from .common import edit_for, manual_for
from .hashing import record_hashes
from .headerfix import corrected_include, declaring_header, missing_include_site
from .includes import add_include_edit, find_headers
from .linkfix import add_source, restore_definition
from .linking import link_library_edit
from .siteops import (
    address_or_deref,
    aggregate_semicolon,
    argument_count,
    near_identifier,
    syntax_token,
    unknown_callee,
)
from .typefix import type_change

if TYPE_CHECKING:
    from ..config import Config
    from .validate import ValidationStats

_DID_YOU_MEAN = re.compile(r"did you mean " + quoted(r"([\w:~]+)"))
_HEADER_NOTE = [
    re.compile(r"include " + quoted(r"<([^>]+)>") + r" or provide a declaration of " + quoted(r"([\w:]+)")),
    re.compile(r"include the header <([^>]+)> or explicitly provide a declaration for " + quoted(r"([\w:]+)")),
    re.compile(quoted(r"([\w:]+)") + r" is defined in header " + quoted(r"<([^>]+)>")),
]
_SYMBOL_PATTERNS = [
    re.compile(quoted(r"(\w+)") + r" undeclared"),
    re.compile(r"use of undeclared identifier " + quoted(r"(\w+)")),
    re.compile(r"implicit(?:ly)? declar\w* (?:of )?(?:library )?function " + quoted(r"(\w+)")),
    re.compile(r"call to undeclared (?:library )?function " + quoted(r"(\w+)")),
    re.compile(r"unknown type name " + quoted(r"(\w+)")),
    re.compile(quoted(r"([\w:]+)") + r" was not declared in this scope"),
    re.compile(quoted(r"([\w:]+)") + r" does not name a type"),
    re.compile(quoted(r"([\w:]+)") + r" has not been declared"),
    re.compile(r"undefined reference to " + quoted(r"([^'\u2019]+)")),
    re.compile(r"undefined symbol: (\S+)"),
]
_STD_MEMBER = [
    re.compile(quoted(r"(\w+)") + r" is not a member of " + quoted(r"std")),
    re.compile(r"no (?:member|template) named " + quoted(r"(\w+)") + r" in namespace " + quoted(r"std")),
    re.compile(quoted(r"(\w+)") + r" in namespace " + quoted(r"std") + r" does not name a (?:template )?type"),
]
_MISSING_FILE = re.compile(r"([\w./+-]+\.(?:h|hh|hpp|hxx|H|inc|c|cc|cpp)): No such file or directory|" + quoted(r"([\w./+-]+)") + r" file not found")
_CMAKE_PACKAGE = [
    re.compile(r"Could NOT find (\w[\w+-]*)"),
    re.compile(r'By not providing "Find([\w+-]+)\.cmake"'),
    re.compile(r"(?:No package|Package) '([\w.+-]+)'(?: found|,? required by .*? not found| not found)"),
]
_CANNOT_FIND_LIB = re.compile(r"cannot find -l([\w.+-]+)|library not found for -l([\w.+-]+)")
# Summary lines that are not errors of their own.
_SUMMARY = re.compile(r"ld returned \d+ exit status|linker command failed|errors? generated|compilation terminated")

def _symbol(record: BuildErrorRecord) -> str:
    if record.symbol:
        return record.symbol
    for text in (record.message, *(n.message for n in record.notes)):
        for pattern in _SYMBOL_PATTERNS:
            match = pattern.search(text)
            if match:
                return match.group(1)
    return ""


def _texts(record: BuildErrorRecord) -> list[str]:
    return [record.message, *(n.message for n in record.notes)]


# --------------------------------------------------------------------------- 1. fix-its


def _fixit_edits(ctx: _Ctx, record: BuildErrorRecord) -> list[TextEdit]:
    # The parser already turned the compiler's byte columns into characters (records.py).
    return [
        edit(ctx.rel(fix.file_path or record.file_path), fix.start.line, fix.start.col, fix.end.line, fix.end.col, fix.new_text)
        for fix in record.fixits
    ]


def from_fixits(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    if not record.fixits:
        return []
    edits = _fixit_edits(ctx, record)
    confidence = 0.9
    kind = "replaceNode"
    detail = ""
    renames = [e for e in edits if IDENT.fullmatch(e.new_text.replace("::", "_")) and e.start.line == e.end.line]
    if len(edits) == 1 and renames:
        e = renames[0]
        old = (ctx.lines(e.file_path) or [""] * e.start.line)[e.start.line - 1][e.start.col - 1 : e.end.col - 1]
        new = e.new_text
        kind = "rename"
        detail = f"rename {old!r} to {new!r}"
        # Qualifying a name (cout -> std::cout) is as small a change as a typo.
        distance = 1 if new.endswith("::" + old) else levenshtein(old, new, 6)
        # Suggestions far from what was written, or for very short names, are often a
        # different existing member rather than the intended one: trust them less.
        confidence -= 0.12 * max(distance - 1, 0)
        if len(old) <= 2 or len(new) <= 2:
            confidence -= 0.25
        if "member" in record.message:
            confidence -= 0.05
        if tables.header_for(old) or tables.header_for(old, cpp=True):
            confidence -= 0.3  # a library name: the missing #include is the likelier fix
    elif any(e.new_text.lstrip().startswith("#include") for e in edits):
        kind = "addImport"
        detail = "add " + " ".join(e.new_text.strip() for e in edits)
        confidence = 0.85  # our own placement (next to the other includes) ranks first
    elif all(e.start == e.end for e in edits):
        kind = "insertNode"
        detail = "insert " + " ".join(repr(e.new_text) for e in edits)
    elif all(not e.new_text for e in edits):
        kind = "deleteNode"
        detail = "delete the flagged text"
    else:
        detail = "replace with " + " ".join(repr(e.new_text) for e in edits)
    return [
        edit_for(
            record,
            f"compiler fix-it: {detail} ({record.file_path}:{record.line})",
            edits,
            mutation_type=kind,
            confidence=max(confidence, 0.3),
            source="compiler-fixit",
            kind="fixit",
        )
    ]


# --------------------------------------------------------------------------- 2. names and headers


def did_you_mean(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    match = _DID_YOU_MEAN.search(record.message)
    lines = ctx.lines(record.file_path)
    if not match or not lines or not (0 < record.line <= len(lines)):
        return []
    suggestion = match.group(1)
    symbol = _symbol(record) or _member_name(record.message)
    col = record_char_col(record, lines, symbol)
    found = identifier_at(lines[record.line - 1], col) if col else None
    if found is None or (symbol and found[2] != symbol.split("::")[-1]):
        return []
    start, end, name = found
    distance = levenshtein(name, suggestion, 6)
    confidence = 0.75 - 0.1 * max(distance - 1, 0) - (0.2 if len(name) <= 2 else 0.0)
    rel = ctx.rel(record.file_path)
    return [
        edit_for(
            record,
            f"rename {name!r} to {suggestion!r} at {rel}:{record.line} (compiler's suggestion)",
            [edit(rel, record.line, start, record.line, end, suggestion)],
            mutation_type="rename",
            confidence=confidence,
            source="compiler-fixit",
            old=name,
            new=suggestion,
        )
    ]


def _member_name(message: str) -> str:
    match = re.search(r"(?:no member named|has no member named) " + quoted(r"(\w+)"), message)
    return match.group(1) if match else ""


def missing_include(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    lines = ctx.lines(record.file_path)
    if not lines:
        return []
    cpp = language_for(record.file_path) == "cpp" or (
        record.file_path.endswith(".h") and _looks_cpp(ctx, record.file_path)
    )
    wanted: list[tuple[str, float, str]] = []  # (header, confidence, why)
    for text in _texts(record):
        for index, pattern in enumerate(_HEADER_NOTE):
            match = pattern.search(text)
            if match:
                header = match.group(2) if index == 2 else match.group(1)
                wanted.append((f"<{header}>", 0.87, "the compiler's note"))
    symbol = _symbol(record)
    for pattern in _STD_MEMBER:
        match = pattern.search(record.message)
        if match:
            symbol = "std::" + match.group(1)
    if symbol:
        header = tables.header_for(symbol, cpp=cpp, config=ctx.config)
        if header:
            wanted.append((header, 0.7, f"{symbol} is declared in {header}"))
    rel = ctx.rel(record.file_path)
    out: list[FixCandidate] = []
    seen: set[str] = set()
    for header, confidence, why in wanted:
        if header in seen:
            continue
        seen.add(header)
        e = add_include_edit(rel, lines, header)
        if e is None:
            continue
        out.append(
            edit_for(
                record,
                f"add #include {header} to {rel} ({why})",
                [e],
                mutation_type="addImport",
                confidence=confidence,
                source="compiler-fixit" if confidence >= 0.85 else "rule",
                header=header,
                symbol=symbol,
            )
        )
    return out


def _looks_cpp(ctx: _Ctx, file_path: str) -> bool:
    pf = parse_file(resolve(file_path, ctx.workspace))
    return pf is not None and pf.language == "cpp"


def missing_header_file(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """`#include "utlis.h"` that does not exist: a near name in the same place, or -I hint."""
    site = missing_include_site(ctx, record, _MISSING_FILE)
    if site is None:
        return []
    name, text, pos, _lines = site
    rel = ctx.rel(record.file_path)
    out: list[FixCandidate] = []
    base_dir = resolve(record.file_path, ctx.workspace).parent / Path(name).parent
    pool: list[str] = []
    if base_dir.is_dir():
        pool = [p.name for p in base_dir.iterdir() if p.is_file() and p.suffix in (".h", ".hh", ".hpp", ".hxx", ".inc")]
    system = {h for h in (*tables.C_HEADERS.values(), *tables.CPP_HEADERS.values()) if "/" not in h}
    near = near_names(Path(name).name, pool) or near_names(Path(name).name, system if "<" in text else set())
    if len(near) == 1:
        new_name = (Path(name).parent / near[0]).as_posix() if "/" in name else near[0]
        out.append(
            edit_for(
                record,
                f"include {new_name!r} instead of the missing {name!r} ({rel}:{record.line})",
                [edit(rel, record.line, pos + 1, record.line, pos + 1 + len(name), new_name)],
                mutation_type="rename",
                confidence=0.7,
                source="heuristic",
                old=name,
                new=new_name,
            )
        )
    found = [p for p in find_headers(ctx.workspace, name) if p.resolve() != resolve(record.file_path, ctx.workspace).resolve()]
    if found:
        dirs = sorted({p.parent.relative_to(ctx.workspace).as_posix() if p.is_relative_to(ctx.workspace) else p.parent.as_posix() for p in found})
        dirs = [d[: -len(Path(name).parent.as_posix())].rstrip("/") if Path(name).parent.as_posix() != "." and d.endswith(Path(name).parent.as_posix()) else d for d in dirs]
        out.append(
            manual_for(
                record,
                f"{name} exists in the workspace: add the include path -I{dirs[0] or '.'} to the build",
                confidence=0.4,
                source="heuristic",
                include_dirs=dirs,
            )
        )
    return out


# --------------------------------------------------------------------------- 3. linker


def linker_library(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    if "undefined" not in record.message.lower():
        return []
    symbol = _symbol(record)
    lib = tables.library_for(symbol, ctx.config) if symbol else None
    if not lib:
        return []
    hint = record.translation_unit or record.file_path
    link = link_library_edit(ctx.workspace, lib, ctx.rel(hint) if hint else "")
    if link is None:
        return [
            manual_for(
                record,
                f"link with -l{lib}: {symbol} is defined in lib{lib} (add -l{lib} after the objects on the link line)",
                confidence=0.6,
                library=lib,
                symbol=symbol,
            )
        ]
    return [
        edit_for(
            record,
            f"{link.description}: {symbol} is defined in lib{lib}",
            link.edits,
            mutation_type="addDependency",
            confidence=0.8,
            source="rule",
            library=lib,
            symbol=symbol,
            build_file=link.build_file,
        )
    ]


def undefined_function_rename(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """An undefined function one edit away from a defined one: rename its call sites."""
    symbol = _symbol(record).split("(")[0].strip()
    if not symbol or not IDENT.fullmatch(symbol) or tables.library_for(symbol, ctx.config):
        return []
    linker = "undefined" in record.message.lower()
    implicit = "implicit" in record.message or "undeclared function" in record.message
    if not (linker or implicit):
        return []
    near = near_names(symbol, ctx.index.names())
    if len(near) != 1:
        return []
    target = near[0]
    edits = _call_sites(ctx, symbol, record)
    if not edits:
        return []
    new_edits = [edit(e.file_path, e.start.line, e.start.col, e.end.line, e.end.col, target) for e in edits]
    from .linkfix import _references

    # a target nothing else calls is more likely a renamed definition (linkfix restores it)
    orphan = 0.3 if linker and _references(ctx, target) <= 1 else 0.0
    return [
        edit_for(
            record,
            f"call {target}() instead of the undefined {symbol}() ({len(new_edits)} call site(s))",
            new_edits,
            mutation_type="rename",
            confidence=0.75 - 0.1 * (levenshtein(symbol, target) - 1) - orphan,
            source="heuristic",
            old=symbol,
            new=target,
        )
    ]


def _call_sites(ctx: _Ctx, name: str, record: BuildErrorRecord) -> list[TextEdit]:
    """Identifier occurrences of `name` in call position, in the record's file or everywhere."""
    files: list[Path] = []
    if record.file_path and language_for(record.file_path) and resolve(record.file_path, ctx.workspace).is_file():
        files = [resolve(record.file_path, ctx.workspace)]
    else:
        files = iter_sources(ctx.workspace)
    out: list[TextEdit] = []
    for path in files:
        pf = parse_file(path)
        if pf is None or name.encode() not in pf.source:
            continue
        rel = ctx.rel(str(path))
        stack = [pf.tree.root_node]
        while stack:
            node = stack.pop()
            if node.type == "call_expression":
                fn = node.child_by_field_name("function")
                if fn is not None and fn.type == "identifier" and fn.text == name.encode():
                    row, bcol = fn.start_point
                    line_text = pf.lines[row]
                    col = byte_to_char_col(line_text, bcol + 1)
                    out.append(edit(rel, row + 1, col, row + 1, col + len(name), name))
            stack.extend(node.named_children)
    return sorted(out, key=lambda e: (e.file_path, e.start.line, e.start.col))


# --------------------------------------------------------------------------- 4. dependencies


def missing_package(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    out: list[FixCandidate] = []
    text = "\n".join(_texts(record))
    names: list[str] = []
    if record.tool == "cmake" and record.function == "find_package" and record.symbol:
        return []  # cmakefix.required_package says it with the X_DIR hint and the optional note
    if record.symbol and record.tool == "cmake":
        names.append(record.symbol)
    for pattern in _CMAKE_PACKAGE:
        names.extend(m.group(1) for m in pattern.finditer(text))
    for name in dict.fromkeys(names):
        apt = tables.apt_package_for(name)
        if apt:
            out.append(
                manual_for(
                    record,
                    f"install the {name} development files: apt-get install {apt}",
                    confidence=0.6,
                    package=name,
                    apt=apt,
                    command=f"apt-get install -y {apt}",
                )
            )
        else:
            out.append(
                manual_for(
                    record,
                    f"install the package that provides {name} (or set {name}_DIR / CMAKE_PREFIX_PATH)",
                    confidence=0.3,
                    package=name,
                )
            )
    match = _CANNOT_FIND_LIB.search(text)
    if match:
        lib = match.group(1) or match.group(2)
        apt = tables.apt_package_for(lib) or f"lib{lib}-dev"
        out.append(
            manual_for(
                record,
                f"the linker cannot find lib{lib}: install it (apt-get install {apt}) or fix -L paths",
                confidence=0.5,
                library=lib,
                apt=apt,
            )
        )
    return out


# --------------------------------------------------------------------------- 5. rules


def manual(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    where = f"{record.file_path}:{record.line}" if record.file_path and record.line else (record.file_path or record.tool)
    # below every automatic candidate (a rejected one included): the loop tries those before giving up
    confidence = 0.04 if record.error_type != "unknown" else 0.03
    return [
        manual_for(
            record,
            f"fix by hand ({record.error_type}) at {where}: {record.message[:300]}",
            confidence=confidence,
            error_type=record.error_type,
        )
    ]


# --------------------------------------------------------------------------- dispatch

_BY_TYPE: dict[str, list[Generator]] = {
    "missing_include": [from_fixits, missing_include, missing_header_file, corrected_include, declaring_header, did_you_mean],
    "undefined_symbol": [from_fixits, did_you_mean, missing_include, declaring_header, near_identifier, linker_library,
                         undefined_function_rename, restore_definition, add_source, aggregate_semicolon],
    "type_mismatch": [from_fixits, did_you_mean, type_change, address_or_deref, argument_count, unknown_callee,
                      declaring_header, aggregate_semicolon],
    "missing_dependency": [from_fixits, missing_source, required_package, missing_package, linker_library],
    "syntax_error": [from_fixits, syntax_token, aggregate_semicolon, closing_brace, did_you_mean, missing_include],
    "resource_limit": [],
    "unknown": [from_fixits, did_you_mean, missing_include, linker_library, missing_package, syntax_token,
                aggregate_semicolon, closing_brace, address_or_deref, argument_count, unknown_callee, declaring_header],
}


def wants_candidates(record: BuildErrorRecord, include_warnings: bool = False) -> bool:
    if _SUMMARY.search(record.message):
        return False
    if record.is_failure:
        return True
    return include_warnings and record.severity == "warning" and not record.is_lint


def candidates_for(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    record.ensure_id()
    out: list[FixCandidate] = []
    seen: set[str] = set()
    for generator in _BY_TYPE.get(record.error_type, _BY_TYPE["unknown"]):
        try:
            produced = generator(ctx, record)
        except Exception:  # noqa: BLE001 - one generator's bug must not lose the others
            continue
        for cand in produced:
            key = cand.edits_fingerprint() if cand.edits else cand.candidate_id
            if key not in seen:
                seen.add(key)
                out.append(cand)
    out.extend(manual(ctx, record))
    return out


def generate_build_candidates(
    errors: list[BuildErrorRecord],
    workspace: Path,
    config: Config | None = None,
    *,
    include_warnings: bool = False,
    validate: bool = True,
    stats: ValidationStats | None = None,
) -> list[FixCandidate]:
    """Ranked candidates for every failing build error (one manual fallback each); when the
    workspace's store holds recorded compile commands, checked with the per-file gate."""
    ctx = _Ctx(Path(workspace), config)
    out: list[FixCandidate] = []
    wanted = [r for r in errors if wants_candidates(r, include_warnings)]
    for record in wanted:
        out.extend(candidates_for(ctx, record))
        out.extend(_from_warnings_on_the_line(ctx, record, errors))
    for cand in out:
        record_hashes(cand, ctx.workspace)
    store = _recorded_store(ctx.workspace) if validate else None
    if store is not None and any(c.edits for c in out):
        from .validate import validate_build_candidates

        return validate_build_candidates(wanted, out, ctx.workspace, store, stats=stats)
    return rank_candidates(out)


_CAUSE_WARNING = re.compile(r"implicit declaration|undeclared function|implicitly declaring")


def _from_warnings_on_the_line(ctx: _Ctx, record: BuildErrorRecord, errors: list[BuildErrorRecord]) -> list[FixCandidate]:
    """An error caused by what a warning on the same line says (a call to an undeclared
    function, whose implicit `int` then mismatches): that warning's fixes, aimed at the error."""
    out: list[FixCandidate] = []
    for warning in errors:
        if (warning is record or warning.is_failure or warning.file_path != record.file_path
                or warning.line != record.line or not _CAUSE_WARNING.search(warning.message)):
            continue
        warning.ensure_id()
        for cand in candidates_for(ctx, warning):
            if not cand.edits:
                continue
            cand.target_id = record.error_id
            cand.candidate_id = ""
            cand.mutation["via_warning"] = warning.message[:200]
            out.append(cand.ensure_id())
    return out


def _recorded_store(workspace: Path) -> Path | None:
    """The workspace's store if ccwrap recorded compile commands into it (never creates one)."""
    from ..build.compdb import COMMANDS_DIR
    from ..store.sessions import find_store

    store = find_store(workspace, create=False)
    return store if (store / COMMANDS_DIR).is_dir() else None
