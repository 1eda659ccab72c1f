"""Locate build errors in C and C++ sources with tree-sitter.

tree-sitter is error tolerant, so a file with a syntax error still yields a
tree whose nodes around the error are usable.  Positions in and out are
1-based lines and 1-based *character* columns; tree-sitter speaks bytes, so
every conversion goes through :func:`_byte_col` / :func:`char_col`.

``ast_node_id`` is ``<relpath>::<qualified name>`` of the enclosing function
(C: ``name``; C++: ``ns::Class::method``) or class, ``<relpath>::<name>`` for
a top-level declaration, and ``<relpath>::<line>`` when nothing is named.

Which grammar: ``.c`` is C; ``.cc .cpp .cxx .c++ .C .hpp .hh .hxx .ipp .tpp``
are C++; a ``.h`` header is parsed as C and re-parsed as C++ when the C parse
has errors and the C++ one has fewer (``class``/``namespace``/templates).
"""

from __future__ import annotations

import os
import re
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import paths
from ..records import BuildErrorRecord
from .filecache import ParseCache, kept

C_EXTS = {".c"}
CPP_EXTS = {".cc", ".cpp", ".cxx", ".c++", ".C", ".hpp", ".hh", ".hxx", ".ipp", ".tpp", ".inl"}
HEADER_EXTS = {".h"}
SOURCE_EXTS = C_EXTS | CPP_EXTS | HEADER_EXTS
# Directories never worth indexing for function definitions.
SKIP_DIRS = paths.SKIP_DIRS  # generated headers under build/ are still found
MAX_FILE_BYTES = 2_000_000
MAX_INDEX_FILES = 4000

_FUNCTION_TYPES = {"function_definition"}
# Constructs only C++ has: a .h file that uses them is parsed with the C++ grammar.
_CPP_MARKERS = re.compile(rb"^\s*(?:namespace\b|class\s+\w+\s*[:{]|template\s*<|public:|private:)|\w::\w", re.M)
_SCOPE_TYPES = {"class_specifier", "struct_specifier", "union_specifier", "namespace_definition"}


@lru_cache(maxsize=2)
def _parser(lang: str) -> Any:
    import tree_sitter

    if lang == "cpp":
        import tree_sitter_cpp as grammar
    else:
        import tree_sitter_c as grammar  # type: ignore[no-redef]
    return tree_sitter.Parser(tree_sitter.Language(grammar.language()))


def language_for(path: str | Path) -> str | None:
    suffix = Path(path).suffix
    if suffix in C_EXTS or suffix in HEADER_EXTS:
        return "c"
    if suffix in CPP_EXTS or suffix.lower() in CPP_EXTS:
        return "cpp"
    return None


def _count_errors(node: Any) -> int:
    if not node.has_error:
        return 0
    count = 1 if (node.is_error or node.is_missing) else 0
    return count + sum(_count_errors(c) for c in node.children)


@dataclass
class ParsedFile:
    path: Path
    source: bytes
    lines: list[str]  # decoded lines without their newline
    tree: Any
    language: str
    # what walks of the tree found (its functions, a body's calls, ...), read once per version of the file
    # however many failures, locators and indexes ask (the parse cache hands back this object while the
    # file is unchanged): see filecache.kept
    facts: dict[Hashable, Any] = field(default_factory=dict, repr=False, compare=False)


def _parse_path(path: Path, source: bytes) -> ParsedFile:
    lang = language_for(path) or "c"
    return parse_source(source, lang, header=path.suffix in HEADER_EXTS, path=path)


_CACHE: ParseCache[ParsedFile] = ParseCache(_parse_path, MAX_FILE_BYTES)


def parse_file(path: str | Path) -> ParsedFile | None:
    """Parse a C/C++ file (cached on mtime+size); None when unreadable or not C-family."""
    p = Path(path)
    if language_for(p) is None:
        return None
    return _CACHE.get(p)


def holds_cxx(path: str | Path, source: bytes) -> bool:
    """Whether the file is C++: by its name, or for a header by the C++-only constructs it uses."""
    lang = language_for(path)
    return lang == "cpp" or (lang == "c" and Path(path).suffix in HEADER_EXTS and bool(_CPP_MARKERS.search(source)))


def parse_source(source: bytes, lang: str, *, header: bool = False, path: Path | None = None) -> ParsedFile:
    if header and lang == "c" and _CPP_MARKERS.search(source):
        # C++ constructs: a clean C++ parse settles it and the C one is spared (a big header's parses
        # are most of what locating a failure costs); with errors, the grammar with fewer wins
        tree = _parser("cpp").parse(source)
        if tree.root_node.has_error:
            alt = _parser("c").parse(source)
            if _count_errors(alt.root_node) < _count_errors(tree.root_node):
                return _parsed(path, source, alt, "c")
        return _parsed(path, source, tree, "cpp")
    tree = _parser(lang).parse(source)
    if header and lang == "c" and tree.root_node.has_error:
        alt = _parser("cpp").parse(source)
        if _count_errors(alt.root_node) <= _count_errors(tree.root_node):
            tree, lang = alt, "cpp"
    return _parsed(path, source, tree, lang)


def _parsed(path: Path | None, source: bytes, tree: Any, lang: str) -> ParsedFile:
    text = source.decode("utf-8", errors="replace")
    return ParsedFile(path or Path("<memory>"), source, text.split("\n"), tree, lang)


# --------------------------------------------------------------------------- columns


def _byte_col(pf: ParsedFile, line: int, col: int) -> int:
    """0-based byte column in the file for a 1-based character column on a 1-based line."""
    text = pf.lines[line - 1] if 0 < line <= len(pf.lines) else ""
    return len(text[: max(col - 1, 0)].encode("utf-8"))


def char_col(pf: ParsedFile, row: int, byte_col: int) -> int:
    """1-based character column for a tree-sitter (0-based row, byte column) point."""
    raw = pf.source.split(b"\n")[row] if row < len(pf.lines) else b""
    return len(raw[:byte_col].decode("utf-8", errors="replace")) + 1


def byte_to_char_col(line_text: str, byte_col_1: int) -> int:
    """Convert a compiler's 1-based byte column on a line to our 1-based character column."""
    raw = line_text.encode("utf-8")
    return len(raw[: max(byte_col_1 - 1, 0)].decode("utf-8", errors="ignore")) + 1


def _display_to_char_col(line_text: str, display_col: int, tabstop: int = 8) -> int:
    import unicodedata

    width = 0
    for index, ch in enumerate(line_text):
        if width + 1 >= display_col:
            return index + 1
        if ch == "\t":
            width += tabstop - (width % tabstop)
        else:
            width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return len(line_text) + 1 + max(display_col - 1 - width, 0)


def diag_col_to_char(line_text: str, col: int, tool: str = "", expect: str = "") -> int:
    """A diagnostic's column as our 1-based character column.

    gcc >= 11 prints *display* columns by default (a tab advances to the next
    multiple of 8; wide characters count 2) unless run with
    ``-fdiagnostics-column-unit=byte``; clang prints byte columns.  When the
    message names the token (``expect``) the reading that lands on it wins.
    """
    if col <= 0:
        return col
    readings = [byte_to_char_col(line_text, col), _display_to_char_col(line_text, col)]
    if tool == "gcc":
        readings.reverse()
    if expect:
        for reading in readings:
            if line_text[reading - 1 :].startswith(expect):
                return reading
    return readings[0]


# --------------------------------------------------------------------------- names


def _text(node: Any) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def function_name(node: Any) -> str:
    """Name of a function_definition (or declaration) as written: f, A::g, ~A, operator+."""
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = _inner_declarator(decl)
    if decl is None:
        return ""
    name = decl.child_by_field_name("declarator")
    if name is None:
        return ""
    if name.type == "template_function":
        name = name.child_by_field_name("name") or name
    return " ".join(_text(name).split())


def _inner_declarator(decl: Any) -> Any:
    """The declarator inside a pointer or reference declarator: tree-sitter-cpp's
    ``reference_declarator`` (``int &f()``, ``const T &get() const``) holds it as a plain child, not
    as a ``declarator`` field."""
    inner = decl.child_by_field_name("declarator")
    if inner is None and decl.type == "reference_declarator":
        inner = next((c for c in decl.named_children if c.type.endswith("declarator")), None)
    return inner


def _scope_name(node: Any) -> str:
    name = node.child_by_field_name("name")
    if node.type == "namespace_definition":
        return _text(name) if name is not None else "(anonymous)"
    return _text(name) if name is not None else ""


def qualified_name(node: Any) -> str:
    """ns::Class::method for a function, ns::Class for a class, from the enclosing scopes."""
    parts: list[str] = []
    if node.type in _FUNCTION_TYPES:
        parts.append(function_name(node))
    elif node.type in _SCOPE_TYPES:
        parts.append(_scope_name(node))
    parent = node.parent
    while parent is not None:
        if parent.type in _SCOPE_TYPES:
            name = _scope_name(parent)
            if name:
                parts.append(name)
        parent = parent.parent
    return "::".join(p for p in reversed(parts) if p)


def _declared_name(node: Any) -> str:
    """The name a top-level declaration introduces (int x = 1; struct S {...}; ...)."""
    if node.type in _SCOPE_TYPES:
        return _scope_name(node)
    decl = node.child_by_field_name("declarator")
    while decl is not None:
        if decl.type in ("identifier", "field_identifier", "qualified_identifier", "type_identifier"):
            return _text(decl)
        decl = _inner_declarator(decl)
    typ = node.child_by_field_name("type")
    if typ is not None and typ.type in _SCOPE_TYPES:
        return _scope_name(typ)
    return ""


# --------------------------------------------------------------------------- locate


@dataclass
class Location:
    file_path: str  # workspace-relative when inside the workspace
    line: int
    col: int
    node_type: str
    node_text: str
    start: tuple[int, int]  # (line, char col)
    end: tuple[int, int]
    scope_type: str  # function_definition, class_specifier, ... or "" at top level
    qualname: str
    ast_node_id: str
    language: str


def _rel(path: Path, workspace: Path | None) -> str:
    return paths.relative_posix(path, workspace)


def _resolve(file_path: str, workspace: Path | None) -> Path:
    p = Path(file_path)
    if not p.is_absolute() and workspace is not None:
        p = workspace / p
    return p


def locate(
    file_path: str, line: int, col: int = 0, workspace: Path | None = None
) -> Location | None:
    """The smallest named node holding (line, col), with its enclosing function or class."""
    if not file_path or line <= 0:
        return None
    path = _resolve(file_path, workspace)
    pf = parse_file(path)
    if pf is None or line > len(pf.lines):
        return None
    return locate_in(pf, line, col, _rel(path, workspace))


def locate_in(
    pf: ParsedFile, line: int, col: int, rel: str, *, tool: str = "", expect: str = ""
) -> Location | None:
    text = pf.lines[line - 1]
    col = diag_col_to_char(text, col, tool, expect)
    if col <= 0:  # no column: the first non-blank character of the line
        col = len(text) - len(text.lstrip()) + 1
    col = min(col, max(len(text.rstrip()), 1))  # a column past the end means the last token
    point = (line - 1, _byte_col(pf, line, col))
    root = pf.tree.root_node
    node = root.named_descendant_for_point_range(point, point)
    if node is None:
        return None
    scope = node
    while scope is not None and scope.type not in _FUNCTION_TYPES | _SCOPE_TYPES:
        scope = scope.parent
    if scope is not None:
        qual = qualified_name(scope)
        node_id = f"{rel}::{qual}" if qual else f"{rel}::{line}"
    else:
        top = node
        while top.parent is not None and top.parent.id != root.id:
            top = top.parent
        name = _declared_name(top) if top.id != root.id else ""
        qual = name
        node_id = f"{rel}::{name}" if name else f"{rel}::{line}"
    sr, sc = node.start_point
    er, ec = node.end_point
    return Location(
        file_path=rel,
        line=line,
        col=col,
        node_type=node.type,
        node_text=_text(node)[:200],
        start=(sr + 1, char_col(pf, sr, sc)),
        end=(er + 1, char_col(pf, er, ec)),
        scope_type=scope.type if scope is not None else "",
        qualname=qual,
        ast_node_id=node_id,
        language=pf.language,
    )


def context_lines(pf: ParsedFile, line: int, radius: int = 2) -> list[str]:
    lo, hi = max(1, line - radius), min(len(pf.lines), line + radius)
    return [f"{n}: {pf.lines[n - 1]}" for n in range(lo, hi + 1)]


# --------------------------------------------------------------------------- function index


@dataclass
class FunctionDef:
    name: str  # as written (f, A::g)
    qualname: str
    file_path: str
    line_start: int
    line_end: int

    @property
    def short(self) -> str:
        return self.qualname.rsplit("::", 1)[-1]

    @property
    def ast_node_id(self) -> str:
        return f"{self.file_path}::{self.qualname}"


def iter_sources(workspace: Path, limit: int = MAX_INDEX_FILES) -> list[Path]:
    """The C/C++ sources a workspace scan reads for definitions (generated data left out)."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(workspace):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if Path(name).suffix in SOURCE_EXTS or Path(name).suffix.lower() in CPP_EXTS:
                if looks_generated(Path(dirpath) / name):
                    continue
                out.append(Path(dirpath) / name)
                if len(out) >= limit:
                    return out
    return out


GENERATED_MIN_BYTES = 64 * 1024
GENERATED_LINE_BYTES = 300  # no hand-written source averages lines this long
MAX_SOURCE_BYTES = 8 * 1024 * 1024


def looks_generated(path: Path) -> bool:
    """A big file of data rather than code (an embedded resource as one line of byte values, a minified
    or amalgamated blob): it defines nothing a test calls, and tree-sitter can take seconds on it."""
    try:
        size = path.stat().st_size
        if size < GENERATED_MIN_BYTES:
            return False
        if size > MAX_SOURCE_BYTES:
            return True
        data = path.read_bytes()
    except OSError:
        return False
    return size / (data.count(b"\n") + 1) > GENERATED_LINE_BYTES


def functions_in(pf: ParsedFile, rel: str) -> list[FunctionDef]:
    """The functions defined in the file, in order (read from its tree once; a new list each call)."""
    return list(kept(pf.facts, ("functions", rel), lambda: _read_functions(pf, rel)))


def _read_functions(pf: ParsedFile, rel: str) -> list[FunctionDef]:
    found: list[FunctionDef] = []
    stack = [pf.tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in _FUNCTION_TYPES:
            name = function_name(node)
            if name:
                found.append(
                    FunctionDef(name, qualified_name(node), rel, node.start_point[0] + 1, node.end_point[0] + 1)
                )
            continue  # nested definitions (lambdas aside) do not exist in C/C++
        stack.extend(reversed(node.named_children))
    return sorted(found, key=lambda f: (f.line_start, f.qualname))


def file_scope_functions(root: Any) -> Iterator[Any]:
    """Function definitions at file scope and inside namespaces (``namespace leveldb { TEST(...) }``)."""
    for node in root.named_children:
        if node.type == "function_definition":
            yield node
        elif node.type in ("namespace_definition", "linkage_specification"):
            body = node.child_by_field_name("body")
            if body is not None:
                yield from file_scope_functions(body)


class FunctionIndex:
    """Every function defined in the workspace's C/C++ sources, by short and full name."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace)
        self.functions: list[FunctionDef] = []
        for path in iter_sources(self.workspace):
            pf = parse_file(path)
            if pf is not None:
                self.functions.extend(functions_in(pf, _rel(path, self.workspace)))

    def find(self, name: str) -> list[FunctionDef]:
        """Definitions named by a linker's "in function" context (C++ signatures accepted)."""
        bare = _strip_signature(name)
        if not bare:
            return []
        exact = [f for f in self.functions if f.qualname == bare]
        if exact:
            return exact
        return [f for f in self.functions if f.short == bare.rsplit("::", 1)[-1]]

    def names(self) -> set[str]:
        return {f.short for f in self.functions}


def _strip_signature(name: str) -> str:
    """`ns::f(int) const` -> ns::f ; `main` -> main ; `.text+0x1c` -> ''."""
    name = name.strip().strip("`'\u2018\u2019\"")
    depth = 0
    for index, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            name = name[:index]
            break
    name = name.strip()
    if not name or name.startswith(".") or "+0x" in name:
        return ""
    return name


# --------------------------------------------------------------------------- records


def locate_build_errors(
    records: list[BuildErrorRecord], workspace: Path, *, index: FunctionIndex | None = None
) -> list[BuildErrorRecord]:
    """Fill ast_node_id and context_lines (+-2 source lines) in place; returns the records."""
    holder: list[FunctionIndex | None] = [index]  # built lazily, once, for linker errors
    for record in records:
        try:
            _locate_one(record, Path(workspace), holder)
        except Exception:  # noqa: BLE001 - locating is best effort; never break the pipeline
            continue
    return records


def _locate_one(record: BuildErrorRecord, workspace: Path, index_holder: list[FunctionIndex | None]) -> None:
    if record.file_path and record.line > 0 and language_for(record.file_path):
        path = _resolve(record.file_path, workspace)
        pf = parse_file(path)
        if pf is None or record.line > len(pf.lines):
            return
        loc = locate_in(
            pf, record.line, record.col, _rel(path, workspace), tool=record.tool, expect=record.symbol
        )
        if loc is not None:
            record.ast_node_id = loc.ast_node_id
            record.context_lines = context_lines(pf, record.line)
        return
    if record.function and not record.line:
        index = index_holder[0]
        if index is None:
            index = index_holder[0] = FunctionIndex(workspace)
        defs = index.find(record.function)
        if len(defs) == 1:  # ambiguous ("main" in three programs) names nothing
            fdef = defs[0]
            record.ast_node_id = fdef.ast_node_id
            pf = parse_file(workspace / fdef.file_path)
            if pf is not None:
                record.context_lines = context_lines(pf, fdef.line_start)
