"""JavaScript / TypeScript function index with tree-sitter.

What the native-test locator needs from a JS/TS file: the functions it defines
(declarations, arrow functions and function expressions bound to a name,
class and object methods, ``exports.f = ...``), the modules it imports
(``import ... from``, ``require(...)``, ``export ... from``), the calls made
inside a node, and the callback of a ``test``/``it`` call with a given title.

Qualified names use dots (``Cart.total``); ``ast_node_id`` is
``<relpath>::<qualname>``.  ``.ts``/``.tsx`` use the TypeScript grammars when
``tree_sitter_typescript`` is installed, else the JavaScript grammar (which
still yields most functions of a TS file, error-tolerantly).
"""

from __future__ import annotations

import os
from collections.abc import Hashable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import paths
from .filecache import ParseCache, kept

JS_EXTS = {".js", ".mjs", ".cjs", ".jsx"}
TS_EXTS = {".ts", ".mts", ".cts", ".tsx"}
SOURCE_EXTS = JS_EXTS | TS_EXTS
SKIP_DIRS = paths.SKIP_DIRS | paths.GENERATED_DIRS  # bundles and coverage output are not sources
MAX_FILE_BYTES = 1_000_000
MAX_INDEX_FILES = 3000
TEST_CALLEES = {"test", "it", "specify", "xit", "xtest", "fit"}
SUITE_CALLEES = {"describe", "suite", "context", "fdescribe", "xdescribe"}
_FUNCTION_VALUES = {"arrow_function", "function_expression", "function", "generator_function"}
_FUNCTION_DECLS = {"function_declaration", "generator_function_declaration"}
_CLASS_TYPES = {"class_declaration", "class", "abstract_class_declaration"}


@lru_cache(maxsize=4)
def _parser(lang: str) -> Any:
    import tree_sitter

    if lang in ("typescript", "tsx"):
        try:
            import tree_sitter_typescript as ts_grammar

            capsule = ts_grammar.language_tsx() if lang == "tsx" else ts_grammar.language_typescript()
            return tree_sitter.Parser(tree_sitter.Language(capsule))
        except ImportError:
            pass  # the JS grammar still finds most of a TS file's functions
    import tree_sitter_javascript as js_grammar

    return tree_sitter.Parser(tree_sitter.Language(js_grammar.language()))


def language_for(path: str | Path) -> str | None:
    suffix = Path(path).suffix.lower()
    if suffix in JS_EXTS:
        return "javascript"
    if suffix == ".tsx":
        return "tsx"
    if suffix in TS_EXTS:
        return "typescript"
    return None


@dataclass
class ParsedJs:
    path: Path
    source: bytes
    lines: list[str]
    tree: Any
    language: str
    # what walks of the tree found, read once per version of the file however many failures ask (the
    # parse cache hands back this object while the file is unchanged): see filecache.kept
    facts: dict[Hashable, Any] = field(default_factory=dict, repr=False, compare=False)


def _parse_path(path: Path, source: bytes) -> ParsedJs:
    return parse_source(source, language_for(path) or "javascript", path=path)


_CACHE: ParseCache[ParsedJs] = ParseCache(_parse_path, MAX_FILE_BYTES)


def parse_file(path: str | Path) -> ParsedJs | None:
    """Parse a JS/TS file (cached on mtime+size); None when unreadable or not JS/TS."""
    p = Path(path)
    if language_for(p) is None:
        return None
    return _CACHE.get(p)


def parse_source(source: bytes, lang: str = "javascript", *, path: Path | None = None) -> ParsedJs:
    tree = _parser(lang).parse(source)
    text = source.decode("utf-8", errors="replace")
    return ParsedJs(path or Path("<memory>"), source, text.split("\n"), tree, lang)


def text_of(node: Any) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def string_value(node: Any) -> str | None:
    """The value of a string / template literal without substitutions, else None."""
    if node is None:
        return None
    if node.type == "string":
        return "".join(text_of(c) for c in node.named_children if c.type in ("string_fragment", "escape_sequence"))
    if node.type == "template_string" and not any(c.type == "template_substitution" for c in node.named_children):
        return text_of(node)[1:-1]
    return None


# --------------------------------------------------------------------------- functions


@dataclass
class JsFunction:
    name: str  # the short name (total)
    qualname: str  # Cart.total
    file_path: str
    line_start: int
    line_end: int
    node: Any = None

    @property
    def short(self) -> str:
        return self.name

    @property
    def ast_node_id(self) -> str:
        return f"{self.file_path}::{self.qualname}"


def _name_for_value(node: Any) -> str:
    """The name a function value is bound to: const f = () => ..., exports.f = ..., {f: ...}."""
    parent = node.parent
    if parent is None:
        return ""
    if parent.type == "variable_declarator":
        name = parent.child_by_field_name("name")
        return text_of(name) if name is not None and name.type == "identifier" else ""
    if parent.type == "assignment_expression":
        left = parent.child_by_field_name("left")
        if left is not None and left.type == "member_expression":
            prop = left.child_by_field_name("property")
            return text_of(prop) if prop is not None else ""
        return text_of(left) if left is not None and left.type == "identifier" else ""
    if parent.type == "pair":
        key = parent.child_by_field_name("key")
        if key is None:
            return ""
        return string_value(key) or text_of(key)
    if parent.type in ("public_field_definition", "field_definition"):
        prop = parent.child_by_field_name("name") or parent.child_by_field_name("property")
        return text_of(prop) if prop is not None else ""
    return ""


def _owner(node: Any) -> str:
    """The enclosing class name, for methods."""
    parent = node.parent
    while parent is not None:
        if parent.type in _CLASS_TYPES:
            name = parent.child_by_field_name("name")
            return text_of(name) if name is not None else ""
        if parent.type in _FUNCTION_DECLS or parent.type in _FUNCTION_VALUES:
            return ""
        parent = parent.parent
    return ""


def function_of(node: Any) -> tuple[str, str] | None:
    """(name, qualname) when node defines a named function, else None."""
    if node.type in _FUNCTION_DECLS:
        name = node.child_by_field_name("name")
        return (text_of(name), text_of(name)) if name is not None else None
    if node.type == "method_definition":
        name = node.child_by_field_name("name")
        if name is None:
            return None
        short = text_of(name)
        owner = _owner(node)
        return short, f"{owner}.{short}" if owner else short
    if node.type in _FUNCTION_VALUES:
        short = _name_for_value(node)
        if not short:
            return None
        owner = _owner(node)
        return short, f"{owner}.{short}" if owner else short
    return None


def functions_in(pf: ParsedJs, rel: str) -> list[JsFunction]:
    found: list[JsFunction] = []
    stack = [pf.tree.root_node]
    while stack:
        node = stack.pop()
        named = function_of(node)
        if named and named[0]:
            found.append(
                JsFunction(named[0], named[1], rel, node.start_point[0] + 1, node.end_point[0] + 1, node)
            )
        stack.extend(reversed(node.named_children))
    return sorted(found, key=lambda f: (f.line_start, f.qualname))


def imports_of(pf: ParsedJs) -> list[str]:
    """Module specifiers this file imports, in source order (relative ones are resolvable)."""
    return list(kept(pf.facts, "imports", lambda: _read_imports(pf)))


def _read_imports(pf: ParsedJs) -> list[str]:
    out: list[str] = []
    stack = [pf.tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in ("import_statement", "export_statement"):
            source = node.child_by_field_name("source")
            value = string_value(source)
            if value:
                out.append(value)
        elif node.type == "call_expression":
            callee = node.child_by_field_name("function")
            if callee is not None and (text_of(callee) == "require" or callee.type == "import"):
                args = node.child_by_field_name("arguments")
                first = args.named_children[0] if args is not None and args.named_children else None
                value = string_value(first)
                if value:
                    out.append(value)
        stack.extend(reversed(node.named_children))
    return out


def resolve_import(spec: str, from_file: Path) -> Path | None:
    """A relative specifier to the file Node (or a bundler) would load."""
    if not spec.startswith("."):
        return None
    base = (from_file.parent / spec).resolve()
    candidates = [base] if base.suffix in SOURCE_EXTS else []
    candidates += [base.with_name(base.name + ext) for ext in (".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx")]
    candidates += [base / f"index{ext}" for ext in (".js", ".ts", ".mjs", ".cjs")]
    if base.suffix == ".js":  # TS sources imported with the emitted .js name
        candidates.append(base.with_suffix(".ts"))
    for path in candidates:
        if path.is_file():
            return path
    return None


def calls_in(node: Any) -> list[tuple[str, str, int]]:
    """Calls inside node: (short name, callee text, 1-based line) for f(), a.b.f(), new F()."""
    out: list[tuple[str, str, int]] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type in ("call_expression", "new_expression"):
            callee = cur.child_by_field_name("function") or cur.child_by_field_name("constructor")
            if callee is not None:
                if callee.type == "identifier":
                    out.append((text_of(callee), text_of(callee), cur.start_point[0] + 1))
                elif callee.type == "member_expression":
                    prop = callee.child_by_field_name("property")
                    if prop is not None:
                        out.append((text_of(prop), text_of(callee), cur.start_point[0] + 1))
        stack.extend(reversed(cur.named_children))
    return out


# --------------------------------------------------------------------------- tests


def _callee_base(callee: Any) -> str:
    """test / it / describe, also through .only / .skip / .each(...)."""
    while callee is not None:
        if callee.type == "identifier":
            return text_of(callee)
        if callee.type == "member_expression":
            callee = callee.child_by_field_name("object")
        elif callee.type == "call_expression":
            callee = callee.child_by_field_name("function")
        else:
            return ""
    return ""


@dataclass
class JsTest:
    title: str  # the path of titles joined with " › " as Jest prints it
    line_start: int
    line_end: int
    body: Any  # the callback node (or the call when it has none)


def tests_in(pf: ParsedJs) -> list[JsTest]:
    """Every test()/it() call with a literal title, with its describe path."""
    return list(kept(pf.facts, "tests", lambda: _read_tests(pf)))


def _read_tests(pf: ParsedJs) -> list[JsTest]:
    out: list[JsTest] = []

    def walk(node: Any, path: list[str]) -> None:
        for child in node.named_children:
            title_path = path
            if child.type == "call_expression":
                callee = child.child_by_field_name("function")
                base = _callee_base(callee)
                args = child.child_by_field_name("arguments")
                named = args.named_children if args is not None else []
                title = string_value(named[0]) if named else None
                if title is not None and base in TEST_CALLEES | SUITE_CALLEES:
                    callback = next((a for a in named[1:] if a.type in _FUNCTION_VALUES), None)
                    if base in TEST_CALLEES:
                        out.append(
                            JsTest(" › ".join([*path, title]), child.start_point[0] + 1, child.end_point[0] + 1,
                                   callback or child)
                        )
                        continue
                    title_path = [*path, title]
                    if callback is not None:
                        walk(callback, title_path)
                        continue
            walk(child, title_path)

    walk(pf.tree.root_node, [])
    return out


def find_test(pf: ParsedJs, title: str) -> JsTest | None:
    """The test named title (full "describe › test" path, or its last part)."""
    tests = tests_in(pf)
    for test in tests:
        if test.title == title:
            return test
    last = title.split(" › ")[-1].strip()
    matches = [t for t in tests if t.title.split(" › ")[-1] == last]
    return matches[0] if len(matches) == 1 else None


def iter_sources(workspace: Path, limit: int = MAX_INDEX_FILES) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(workspace):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if Path(name).suffix.lower() in SOURCE_EXTS and not name.endswith(".d.ts"):
                out.append(Path(dirpath) / name)
                if len(out) >= limit:
                    return out
    return out
