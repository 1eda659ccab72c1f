"""Parse build and test output into records.

``parse_text(text, tool="auto")`` is the one entry point.  In auto mode the
format is detected per line/region: the parser that claimed the previous line
gets the next one first; otherwise each parser is offered the line in
priority order.  Whole-document formats (JUnit XML, gtest XML/JSON, Jest
``--json``) are sniffed from the start of the text.  Lines nobody claims but
that look like errors become ``tool="unknown"`` records.

Parsing never raises on any input: a parser that fails on a line is
disabled for the rest of the log and the failure noted once.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..classify import SAME_PLACE_REACH, SamePlace, classify_build, classify_result, classify_test
from ..config import Config
from ..lazy_pattern import lazy_pattern
from ..paths import workspace_relative
from ..records import BuildErrorRecord, TestFailureRecord
from .base import (
    ANSI_RE,
    MAX_LINE,
    DocumentParser,
    LineParser,
    ParseContext,
    ParseResult,
    RunError,
    strip_ansi,
)
from .dispatch import drain, flush_parser, interject
from .pipframe import PipFrames
from .sarif import cut_long_line as _cut
from .stream import ParseStream, Record

__all__ = [
    "parse_text", "parse_lines", "parse_file", "iter_parse_file", "iter_parse_text", "ParseStream", "ParseResult",
    "ParseContext", "TOOLS", "decode", "normalize_paths", "load_parsers",
]

# Modules holding parsers; each defines LINE_PARSERS and/or DOC_PARSERS.
_MODULES = (
    "sarif",
    "tsc",
    "gcc",
    "gcc_json",
    "linker",
    "cmake",
    "make",
    "gtest",
    "pytest_text",
    "jest",
    "tap",
    "pytraceback",
    "spec",
    "ctest",
    "junit",
    "unknown",
)

# `--tool` names and the parser names each one enables.
TOOLS: dict[str, tuple[str, ...]] = {
    "auto": (),
    "gcc": ("gcc", "linker", "make", "sarif"),
    "clang": ("gcc", "linker", "make", "sarif"),
    "clang_tidy": ("gcc",),
    "tsc": ("tsc",),
    "cmake": ("cmake", "make", "sarif"),
    "linker": ("linker", "gcc"),
    "make": ("make", "gcc", "linker", "sarif"),
    "gtest": ("gtest",),
    "pytest": ("pytest",),
    "jest": ("jest",),
    "tap": ("tap",),
    "junit": ("junit",),
    "ctest": ("ctest", "gtest"),
    "unittest": ("python",),
    "python": ("python",),
    "node": ("node",),
    "mocha": ("mocha",),
    "vitest": ("vitest",),
    "sarif": ("sarif",),
}


def _load() -> tuple[list[type[LineParser]], list[type[DocumentParser]]]:
    lines: list[type[LineParser]] = []
    docs: list[type[DocumentParser]] = []
    for name in _MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        lines.extend(getattr(module, "LINE_PARSERS", ()))
        docs.extend(getattr(module, "DOC_PARSERS", ()))
    lines.sort(key=lambda cls: (cls.priority, cls.name))
    return lines, docs


_REGISTRY: tuple[list[type[LineParser]], list[type[DocumentParser]]] | None = None


def _registry() -> tuple[list[type[LineParser]], list[type[DocumentParser]]]:
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _load()
    return _REGISTRY


def load_parsers() -> None:
    """Import every parser module now, not at the first line parsed (their patterns compile on first use,
    or in the prefetch's last step: :mod:`..lazy_pattern`)."""
    _registry()


def decode(data: bytes | str) -> str:
    if isinstance(data, str):
        return data
    return data.decode("utf-8", errors="replace")


def parse_text(
    text: bytes | str,
    tool: str = "auto",
    *,
    cwd: str = "",
    config: Config | None = None,
    classify: bool = True,
) -> ParseResult:
    text = decode(text)
    if tool not in TOOLS:
        raise ValueError(f"unknown tool {tool!r}; expected one of: {', '.join(TOOLS)}")
    line_classes, doc_classes = _registry()
    ctx = ParseContext(cwd=cwd, tool_hint=tool)
    result = ParseResult()
    head = text[:4096].lstrip()[:512]  # not text.lstrip(): that would copy a 50 MB log
    for doc_cls in doc_classes:
        if tool in ("auto", doc_cls.name) or doc_cls.name in TOOLS.get(tool, ()):
            if _safe_sniff(doc_cls, head):
                try:
                    doc_cls().parse(text, result, ctx)
                    result.saw(doc_cls.name)
                    return _finish(result, config, classify, ctx.cwd)
                except Exception:  # noqa: BLE001 - a broken document falls back to line mode
                    result = ParseResult()
                break
    return _parse_batches(_text_batches(text), tool, ctx, result, config, classify)


_CHUNK = 1 << 20
# Every character str.splitlines() breaks a line at besides \n and \r.
_EXOTIC_BREAKS = lazy_pattern("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _clean(raw: str) -> str:
    """One line as parsers see it: cut to MAX_LINE, ANSI colour stripped, no line ending."""
    if len(raw) > MAX_LINE:
        raw = _cut(raw)
    if "\x1b" in raw:
        raw = strip_ansi(raw)
    return raw.rstrip("\r\n") if raw and raw[-1] in "\r\n" else raw


# ANSI_RE for a whole block: the same sequences, except that an OSC sequence may not
# run across a line break (per line it cannot: the break is not part of the line).
_BLOCK_ANSI_RE = lazy_pattern(
    "\x1b\\[[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]*(?:\x07|\x1b\\\\)"
)


def _split_clean(block: str) -> list[str]:
    """``[_clean(l) for l in block.splitlines()]``, in C where it can be: colour is
    stripped from the whole block at once unless a line must be cut first (the cut
    comes before the strip, as in ``_clean``)."""
    lines = block.splitlines()
    if max(map(len, lines), default=0) > MAX_LINE:
        lines = [_cut(raw) if len(raw) > MAX_LINE else raw for raw in lines]
        if "\x1b" in block:
            lines = [ANSI_RE.sub("", raw) if "\x1b" in raw else raw for raw in lines]
        return lines
    if "\x1b" in block:
        return _BLOCK_ANSI_RE.sub("", block).splitlines()
    return lines


def _text_batches(text: str) -> Iterator[list[str]]:
    """Cleaned lines of an in-memory log, one ~1 MB chunk at a time (as ``iter_lines``), pip's
    frame taken off."""
    frames = PipFrames()
    if len(text) <= _CHUNK:
        yield frames.block(text, _split_clean(text))
        return
    start, n = 0, len(text)
    while start < n:
        end = text.find("\n", start + _CHUNK)
        if end < 0:
            end = n
        block = text[start:end]
        yield frames.block(block, _split_clean(block))
        start = end + 1


def _iter_batches(lines: Iterable[str], size: int = 1024) -> Iterator[list[str]]:
    """Cleaned lines of any iterable, in lists (the dispatcher's unit of work), pip's frame
    taken off."""
    it = iter(lines)
    frames = PipFrames()
    while True:
        batch = list(itertools.islice(it, size))
        if not batch:
            return
        yield frames.batch([_clean(raw) for raw in batch])


def iter_lines(text: str) -> Iterator[str]:
    """``text.splitlines()`` one ~1 MB chunk at a time (no second copy of a big log)."""
    if len(text) <= _CHUNK:
        yield from text.splitlines()
        return
    start, n = 0, len(text)
    while start < n:
        end = text.find("\n", start + _CHUNK)
        if end < 0:
            end = n
        yield from text[start:end].splitlines()
        start = end + 1


def _safe_sniff(cls: type[DocumentParser], head: str) -> bool:
    try:
        return bool(cls.sniff(head))
    except Exception:  # noqa: BLE001
        return False


def parse_lines(
    lines: Iterable[str],
    tool: str = "auto",
    *,
    ctx: ParseContext | None = None,
    result: ParseResult | None = None,
    config: Config | None = None,
    classify: bool = True,
) -> ParseResult:
    """Stream lines through the line parsers.

    The parser that claimed the previous line is offered the next one first
    (records span lines); otherwise parsers are tried in priority order.  A
    parser that raises is dropped for the rest of the log, never the parse.
    """
    return _parse_batches(_iter_batches(lines), tool, ctx, result, config, classify)


def _parse_batches(
    batches: Iterable[list[str]],
    tool: str,
    ctx: ParseContext | None,
    result: ParseResult | None,
    config: Config | None,
    classify: bool,
) -> ParseResult:
    """The dispatcher proper, over lists of already cleaned lines."""
    result = result if result is not None else ParseResult()
    with _gc_paused():
        for _ in _dispatch(batches, tool, ctx, result, stream=False):
            pass
        return _finish(result, config, classify, ctx.cwd if ctx is not None else "")


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic collector off while a whole result is built.

    Every record is kept and none is part of a reference cycle, so each of the
    collector's passes over the growing heap (hundreds of thousands of records
    on a big log) finds nothing and costs about a quarter of the parse.  Reference
    counting still frees everything else; the collector is back on afterwards.
    (Streaming needs none of this: it holds only a few records at a time.)"""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        # Everything allocated meanwhile sits in the youngest generation, whose next
        # pass would walk all of it only to find it alive: hand it straight to the
        # oldest one instead (freeze + unfreeze moves lists, it walks nothing).  Only
        # when the host froze nothing itself, whose frozen objects unfreeze would move.
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        gc.enable()


def _dispatch(
    batches: Iterable[list[str]],
    tool: str,
    ctx: ParseContext | None,
    result: ParseResult,
    *,
    stream: bool,
) -> Iterator[list[Record]]:
    """Feed every line to the parsers.  With ``stream``, after each batch (and at the
    end) yield the records no parser can change any more, removed from ``result``;
    without, yield nothing and leave every record in ``result``."""
    line_classes, _ = _registry()
    if ctx is None:
        ctx = ParseContext(tool_hint=tool)
    elif ctx.tool_hint == "auto":
        ctx.tool_hint = tool
    wanted = TOOLS.get(tool, ())
    parsers = [
        cls(result, ctx)
        for cls in line_classes
        if not wanted or cls.name in wanted or cls.name == "unknown"
    ]
    dead: list[LineParser] = []
    active: LineParser | None = None
    base = 0  # number of lines in the batches before this one
    owners = [p for p in parsers if p.interjects is not None]
    ctx.interjection = re.compile("|".join(f"(?:{p.interjects.pattern})" for p in owners if p.interjects)) if owners else None
    for lines in batches:
        n = len(lines)
        i = 0
        while i < n:
            previous: LineParser | None = None
            if active is not None:
                # The parser that claimed the previous line takes as many more as it claims,
                # in its own loop (records span lines).
                try:
                    i = active.feed_run(lines, i, base)
                except Exception as exc:  # noqa: BLE001 - never raise on input; drop the parser
                    i = exc.index if isinstance(exc, RunError) else i
                    dead.append(active)
                    parsers.remove(active)
                    active = None
                if i >= n:
                    break
                if active is not None and interject(lines[i], active, owners, parsers, dead, ctx, base + i + 1):
                    i += 1
                    continue
                if active is not None:
                    flush_parser(active, parsers, dead)
                    previous, active = active, None
            line = lines[i]
            ctx.line_no = base + i + 1
            for parser in parsers:
                if parser is previous:
                    continue
                try:
                    claimed = parser.feed(line)
                except Exception:  # noqa: BLE001
                    dead.append(parser)
                    parsers.remove(parser)
                    break
                if claimed:
                    active = parser
                    if parser.name != "unknown":
                        result.saw(parser.name)
                    break
            i += 1
        base += n
        if stream:
            yield drain(result, parsers, final=False)
    for parser in list(parsers):
        flush_parser(parser, parsers, dead)
    for parser in list(parsers):
        try:
            parser.finish()
        except Exception:  # noqa: BLE001 - never raise on input
            dead.append(parser)
    if stream:
        yield drain(result, parsers, final=True)


def _finish(result: ParseResult, config: Config | None, classify: bool, cwd: str = "") -> ParseResult:
    for record in result.build_errors:
        record.ensure_id()
    for failure in result.test_failures:
        failure.ensure_id()
    if classify:
        classify_result(result, config, cwd)
    return result


def result_from_dict(data: dict[str, Any]) -> ParseResult:
    return ParseResult(
        build_errors=[BuildErrorRecord.from_dict(e) for e in data.get("build_errors", [])],
        test_failures=[TestFailureRecord.from_dict(f) for f in data.get("test_failures", [])],
        pass_count=int(data.get("pass_count", 0)),
        fail_count=int(data.get("fail_count", 0)),
        skip_count=int(data.get("skip_count", 0)),
        test_error_count=int(data.get("test_error_count", 0)),
        xfail_count=int(data.get("xfail_count", 0)),
        xpass_count=int(data.get("xpass_count", 0)),
        uncounted_errors=max(0, int(data.get("reported_error_count", 0))
                             - sum(1 for e in data.get("build_errors", []) if e.get("severity") == "error")),
        uncounted_warnings=max(0, int(data.get("warning_count", 0))
                               - sum(1 for e in data.get("build_errors", []) if e.get("severity") == "warning")),
        tools=list(data.get("tools", [])),
    )


def parse_file(
    path: str,
    tool: str = "auto",
    *,
    cwd: str = "",
    config: Config | None = None,
) -> ParseResult:
    """Parse a saved log, streaming line by line unless it is an XML/JSON document."""
    stream, head, is_document = _open_log(path, tool)
    with stream:
        if is_document:
            return parse_text(head + stream.read(), tool, cwd=cwd, config=config)
        return _parse_batches(_stream_batches(head, stream), tool, ParseContext(cwd=cwd), None, config, True)


def iter_parse_file(
    path: str,
    tool: str = "auto",
    *,
    cwd: str = "",
    config: Config | None = None,
) -> ParseStream:
    """``parse_file`` as a stream: records (classified, with ids) yielded as they are
    completed, memory independent of the log's size; counts on the stream once exhausted.

    Opening the file and checking ``tool`` happen now (OSError, ValueError), not on
    the first ``next``.  The records are those ``parse_file`` returns, in the order
    they were completed (build errors and test failures interleaved)."""
    stream, head, is_document = _open_log(path, tool)
    result = ParseResult()
    if is_document:
        batches = _document_batches(lambda: head + stream.read(), tool, cwd, config, result)
    else:
        batches = _settled(_dispatch(_stream_batches(head, stream), tool, ParseContext(cwd=cwd), result, stream=True),
                           config, True, result)
    return ParseStream(batches, result, stream.close)


def iter_parse_text(
    text: bytes | str,
    tool: str = "auto",
    *,
    cwd: str = "",
    config: Config | None = None,
) -> ParseStream:
    """``parse_text`` as a stream (see ``iter_parse_file``)."""
    text = decode(text)
    if tool not in TOOLS:
        raise ValueError(f"unknown tool {tool!r}; expected one of: {', '.join(TOOLS)}")
    result = ParseResult()
    _, doc_classes = _registry()
    head = text[:4096].lstrip()[:512]
    if any(_wants(d, tool) and _safe_sniff(d, head) for d in doc_classes):
        batches = _document_batches(lambda: text, tool, cwd, config, result)
    else:
        batches = _settled(_dispatch(_text_batches(text), tool, ParseContext(cwd=cwd, tool_hint=tool), result,
                                     stream=True), config, True, result)
    return ParseStream(batches, result, _no_close)


def _no_close() -> None:
    return None


def _wants(cls: type[DocumentParser], tool: str) -> bool:
    return tool in ("auto", cls.name) or cls.name in TOOLS.get(tool, ())


def _open_log(path: str, tool: str) -> tuple[Any, str, bool]:
    """The open log, its first 4 KB (already read) and whether it is an XML/JSON document."""
    import sys

    if tool not in TOOLS:
        raise ValueError(f"unknown tool {tool!r}; expected one of: {', '.join(TOOLS)}")
    if path == "-":
        stream = open(sys.stdin.fileno(), encoding="utf-8", errors="replace", closefd=False)
    else:
        stream = open(path, encoding="utf-8", errors="replace", newline="")
    try:
        head = stream.read(4096)
    except BaseException:
        stream.close()
        raise
    _, doc_classes = _registry()
    sniff_head = head.lstrip()[:512]
    return stream, head, any(_wants(d, tool) and _safe_sniff(d, sniff_head) for d in doc_classes)


def _document_batches(
    read: Callable[[], str], tool: str, cwd: str, config: Config | None, into: ParseResult
) -> Iterator[list[Record]]:
    """A whole-document log (XML, JSON) is parsed at once: one batch of everything."""
    whole = parse_text(read(), tool, cwd=cwd, config=config)
    into.pass_count, into.fail_count, into.skip_count = whole.pass_count, whole.fail_count, whole.skip_count
    into.test_error_count, into.xfail_count, into.xpass_count = whole.test_error_count, whole.xfail_count, \
        whole.xpass_count
    into.uncounted_errors, into.uncounted_warnings = whole.uncounted_errors, whole.uncounted_warnings
    into.tools, into.clean_tus = whole.tools, whole.clean_tus
    yield [*whole.build_errors, *whole.test_failures]


def _settled(batches: Iterable[list[Record]], config: Config | None, classify: bool,
             result: ParseResult | None = None) -> Iterator[list[Record]]:
    """Ids and classification for each drained batch, as ``_finish`` gives a whole result: each record
    by itself, then an unknown error beside a known one at its place (``classify.same_place``), from the
    records before the batch and those ``result`` still holds after it (the drain left them there)."""
    places = SamePlace()
    for records in batches:
        if not records:
            continue
        for record in records:
            record.ensure_id()
        if classify:
            builds: list[BuildErrorRecord] = []
            for record in records:
                if isinstance(record, BuildErrorRecord):
                    classify_build(record, config)
                    builds.append(record)
                else:
                    classify_test(record, config)
            if builds:
                after = result.build_errors[:SAME_PLACE_REACH] if result is not None else []
                for record in after:
                    classify_build(record, config)
                places.settle(builds, after)
        yield records


def _stream_batches(head: str, stream: Any, size: int = 1 << 18) -> Iterator[list[str]]:
    """Cleaned lines of head + the rest of the stream, a block at a time (memory: one block).

    A block ending in "\r" is held back until the next read: its "\n" may follow.
    """
    pending = ""
    frames = PipFrames()
    chunks = iter(lambda: stream.read(size), "")
    for chunk in _prepend(head, chunks):
        pending += chunk
        cut = max(pending.rfind("\n"), pending.rfind("\r", 0, len(pending) - 1))
        if cut < 0:
            continue
        block, pending = pending[: cut + 1], pending[cut + 1 :]
        yield frames.block(block, _block_lines(block))
    if pending:
        yield frames.block(pending, _block_lines(pending))


def _block_lines(block: str) -> list[str]:
    if _EXOTIC_BREAKS.search(block) is None:
        # Without \v, \f, \x1c-\x1e, \x85, \u2028/9, splitlines() drops exactly the
        # endings _clean would strip, in C.
        return _split_clean(block)
    return [_clean(raw) for raw in block.splitlines(keepends=True)]


def _prepend(first: str, rest: Iterable[str]) -> Iterable[str]:
    yield first
    yield from rest


def normalize_paths(result: ParseResult, cwd: str, workspace: str) -> ParseResult:
    """Make every record's file_path workspace-relative (the shape reports use)."""
    for record in result.build_errors:
        record.file_path = workspace_relative(record.file_path, workspace, cwd)
        if record.translation_unit:
            record.translation_unit = workspace_relative(record.translation_unit, workspace, cwd)
        for edit in record.fixits:
            edit.file_path = workspace_relative(edit.file_path, workspace, cwd)
        record.error_id = ""
        record.ensure_id()
    for failure in result.test_failures:
        failure.file_path = workspace_relative(failure.file_path, workspace, cwd)
        if failure.impl_file:
            failure.impl_file = workspace_relative(failure.impl_file, workspace, cwd)
    return result
