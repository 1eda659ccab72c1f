"""A Python file parsed one top-level block at a time, on demand, once per file version.

A failing test needs a handful of functions: the test itself, the statement that failed, the
functions its traceback and coverage touched.  Parsing a 6,000-line test module with ``ast``
costs ~100 ms, so a file is split at its column-0 ``def``/``class`` lines (a cheap line scan)
and only the blocks holding the wanted lines are parsed, each with blank lines in front so line
numbers are those of the file.  A block that does not parse alone (a string or bracket spanning
the split) is retried merged with the next block, then the whole file is parsed: the results are
always those of a whole-file parse, only cheaper.  Columns stay ``ast``'s UTF-8 byte offsets;
:func:`char_col` converts them to the character columns TextEdit uses.
"""

from __future__ import annotations

import ast
import bisect
import io
import os
import re
import tokenize
from collections.abc import Iterable, Iterator
from typing import NamedTuple

_BLOCK_START = re.compile(r"(?:async[ \t]+def|def|class)[ \t]+(\w+)")
MAX_BYTES = 8_000_000


class FuncSpan(NamedTuple):  # a NamedTuple: ~4x cheaper to define than a dataclass, on the first failure's path
    qualname: str
    name: str
    line_start: int  # the `def` line (decorators excluded)
    line_end: int
    is_class: bool = False


def count_innermost(functions: Iterable[FuncSpan], lines: Iterable[int], out: dict[str, int]) -> dict[str, int]:
    """Add to ``out`` qualname -> how many of ``lines`` fall in it (innermost function only)."""
    spans = sorted((f for f in functions if not f.is_class), key=lambda f: f.line_start)
    starts = [f.line_start for f in spans]
    for line in lines:
        # the innermost span holding `line` is the last-starting one that still holds it
        i = bisect.bisect_right(starts, line) - 1
        while i >= 0 and spans[i].line_end < line:
            i -= 1
        if i >= 0:
            out[spans[i].qualname] = out.get(spans[i].qualname, 0) + 1
    return out


class Block:
    """Functions and classes of one parsed slice (or of the whole file)."""

    __slots__ = ("tree", "functions", "nodes")

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.functions: list[FuncSpan] = []
        self.nodes: dict[str, ast.AST] = {}  # qualname -> def/class node


def index_tree(tree: ast.Module) -> Block:
    """Spans and qualified names, visiting statements only (defs never hide in expressions)."""
    block = Block(tree)

    def visit(body: Iterable[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = prefix + node.name
                is_class = isinstance(node, ast.ClassDef)
                block.functions.append(
                    FuncSpan(qual, node.name, node.lineno, node.end_lineno or node.lineno, is_class)
                )
                block.nodes.setdefault(qual, node)
                visit(node.body, qual + ("." if is_class else ".<locals>."))
            else:
                for child in child_bodies(node):
                    visit(child, prefix)

    visit(tree.body, "")
    return block


def child_bodies(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists nested in a compound statement (if/for/while/try/with/match/def/class)."""
    for name in ("body", "orelse", "finalbody"):
        value = getattr(node, name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            yield value
    for handler in getattr(node, "handlers", None) or ():
        yield handler.body
    for case in getattr(node, "cases", None) or ():
        yield case.body


def innermost_statement(tree: ast.Module, line: int) -> ast.stmt | None:
    """The innermost statement that spans ``line`` (a descent, not a walk of the whole tree)."""
    best: ast.stmt | None = None
    body: list[ast.stmt] = tree.body
    while True:
        found = None
        for node in body:
            if node.lineno <= line <= (node.end_lineno or node.lineno):
                found = node
        if found is None:
            return best
        best = found
        nested = [stmt for child in child_bodies(found) for stmt in child]
        if not nested:
            return best
        body = nested


def char_col(line_text: str, byte_col: int) -> int:
    """0-based character column of an ``ast`` UTF-8 byte offset on ``line_text``."""
    if line_text.isascii():
        return byte_col
    return len(line_text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))


class SourceFile:
    """One version of a file: its lines, its block starts, and the blocks parsed so far."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.starts: list[int] = [0]  # 0-based line index of each block
        self.heads: dict[str, list[int]] = {}  # top-level def/class name -> block numbers
        for i, line in enumerate(self.lines):
            match = _BLOCK_START.match(line)
            if match is None:
                continue
            start = i
            while start > self.starts[-1] and self.lines[start - 1].startswith("@"):
                start -= 1  # decorators belong to the block of their def
            if start > self.starts[-1]:
                self.starts.append(start)
            self.heads.setdefault(match.group(1), []).append(len(self.starts) - 1)
        self._blocks: dict[int, Block | None] = {}
        self._whole: Block | None = None
        self._whole_done = False

    # -- parsing ---------------------------------------------------------------
    def whole(self) -> Block | None:
        if not self._whole_done:
            self._whole_done = True
            tree = _parse(self.text, self.path)
            self._whole = index_tree(tree) if tree is not None else None
        return self._whole

    def block(self, number: int) -> Block | None:
        """The parsed block ``number`` (merged with its successor if needed), else the whole file."""
        if number in self._blocks:
            return self._blocks[number]
        result: Block | None = None
        if self._whole_done:
            result = self._whole
        else:
            for extra in (1, 2):
                end_no = number + extra
                end = self.starts[end_no] if end_no < len(self.starts) else len(self.lines)
                start = self.starts[number]
                source = "\n" * start + "".join(self.lines[start:end])
                tree = _parse(source, self.path)
                if tree is not None:
                    result = index_tree(tree)
                    for n in range(number, min(end_no, len(self.starts))):
                        self._blocks[n] = result
                    return result
                if end_no >= len(self.starts):
                    break
            result = self.whole()
        self._blocks[number] = result
        return result

    def block_number(self, line: int) -> int:
        return max(0, bisect.bisect_right(self.starts, line - 1) - 1)

    def block_at(self, line: int) -> Block | None:
        return self.block(self.block_number(line))

    # -- queries ---------------------------------------------------------------
    def enclosing(self, line: int) -> FuncSpan | None:
        """The innermost function (not class) whose span holds ``line``."""
        block = self.block_at(line)
        if block is None:
            return None
        best: FuncSpan | None = None
        for fn in block.functions:
            if not fn.is_class and fn.line_start <= line <= fn.line_end:
                if best is None or fn.line_start >= best.line_start:
                    best = fn
        return best

    def function_node(self, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The innermost function whose span, decorators included, holds ``line``."""
        block = self.block_at(line)
        if block is None:
            return None
        best: ast.FunctionDef | ast.AsyncFunctionDef | None = None
        for node in block.nodes.values():
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if first <= line <= (node.end_lineno or node.lineno):
                if best is None or node.lineno >= best.lineno:
                    best = node
        return best

    def statement(self, line: int) -> ast.stmt | None:
        block = self.block_at(line)
        return innermost_statement(block.tree, line) if block is not None else None

    def functions_in_lines(self, lines: Iterable[int]) -> dict[str, int]:
        """qualname -> how many of ``lines`` fall in it (innermost function only)."""
        out: dict[str, int] = {}
        per_block: dict[int, list[int]] = {}
        for line in lines:
            per_block.setdefault(self.block_number(line), []).append(line)
        for number, block_lines in per_block.items():
            block = self.block(number)
            if block is not None:
                count_innermost(block.functions, block_lines, out)
        return out

    def node_of(self, qualname: str) -> tuple[FuncSpan, ast.AST] | None:
        """Span and node of a qualified name: only the blocks headed by its first part are parsed."""
        head = qualname.split(".", 1)[0]
        numbers = self.heads.get(head, [])
        blocks = [self.block(n) for n in numbers] if numbers else [self.whole()]
        for block in blocks:
            if block is not None and qualname in block.nodes:
                span = next(f for f in block.functions if f.qualname == qualname)
                return span, block.nodes[qualname]
        whole = self.whole() if numbers else None  # e.g. a def inside a top-level `if`
        if whole is not None and qualname in whole.nodes:
            span = next(f for f in whole.functions if f.qualname == qualname)
            return span, whole.nodes[qualname]
        return None

    def line(self, number: int) -> str:
        return self.lines[number - 1] if 1 <= number <= len(self.lines) else ""


def _parse(source: str, path: str) -> ast.Module | None:
    try:
        return ast.parse(source, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


_CACHE: dict[str, tuple[int, int, SourceFile | None]] = {}


def source_file(path: str | os.PathLike[str]) -> SourceFile | None:
    """The file as a :class:`SourceFile` (cached by path, mtime and size); None when unreadable."""
    key = os.fspath(path)
    try:
        st = os.stat(key)
    except OSError:
        return None
    cached = _CACHE.get(key)
    if cached is not None and cached[0] == st.st_mtime_ns and cached[1] == st.st_size:
        return cached[2]
    result: SourceFile | None = None
    if st.st_size <= MAX_BYTES:
        try:
            with open(key, "rb") as handle:
                data = handle.read()
            result = SourceFile(key, decode(data))
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
            result = None
    if len(_CACHE) > 512:
        _CACHE.clear()  # bounded; a fresh start is cheaper than LRU bookkeeping
    _CACHE[key] = (st.st_mtime_ns, st.st_size, result)
    return result


def decode(data: bytes) -> str:
    """Source bytes to text, honouring a PEP 263 coding cookie; newlines kept as in the file."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
