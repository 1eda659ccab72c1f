"""Map non-pytest test failures (gtest, ctest, Jest, TAP, JUnit) to implementation code.

Seed 001 step 1372 for C/C++ and JavaScript/TypeScript.  For each failure:

1. the test file: the record's own path (mapped into the workspace by its
   trailing components when the log came from another checkout), else the file
   defining ``TEST(Suite, Name)`` / ``test('title')``;
2. the test's own node: the ``TEST``/``TEST_F``/``TEST_P`` body, or the
   ``test``/``it`` callback, read with tree-sitter;
3. implementation files: by naming convention (``foo_test.cc``, ``test_foo.cpp``,
   ``foo.test.js``, ``foo.spec.ts`` <-> ``foo.*``) and through the test file's own
   ``#include "..."`` / ``import`` / ``require``;
4. ranked suspects among the functions of those files and the functions the test
   body calls, scored by (see :func:`_score`): a crash/stack frame inside the
   function, a call from the test body (more when on the failing line), the overlap
   of the suite/test name tokens with the function's (``ParserTest.HandlesEmpty`` ->
   ``Parser::handle_empty``), and living in a related file.  Where ccwrap recorded
   the commands that built the test binary, sources that did not go into it are
   dropped (:mod:`.ccwrap_sources`); where it recorded every compile of the build (the search's
   compile database, :mod:`..build.compdb`), sources no command compiled are dropped too (a
   ``main.cc`` no target builds, another platform's ``*-win32.cc``).
5. the fallback is the test's own node.

``suspects``, ``ast_node_id`` (``<relpath>::<qualname>`` of the first suspect) and,
for a crash with a stack trace, ``impl_file``/``impl_line`` are filled in place.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..records import Suspect, TestFailureRecord, is_python_failure
from . import callgraph, cfamily, jsfamily
from .callgraph import c_calls
from .filecache import kept
from .native_helpers import calls_through_helpers
from .native_names import (
    C_EXTS,
    frozen_name_tokens,
    gtest_names,
    impl_stem,
    is_test_file,
    name_tokens,
    owner_tokens,
)
from .native_workspace import GTEST_MACROS, Func, Workspace, family_of, functions_of_file

NATIVE_RUNNERS = {"gtest", "ctest", "jest", "tap", "junit"}
HEADER_EXTS = {".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp", ".tpp"}
MAX_SUSPECTS = 10  # the search screens eight; the report lists them all

# Signal weights (tuned on bench/bench_native_localize.py; see bench/results/native_localize.md).
W_FRAME = 0.6
FRAME_DECAY = 0.5
W_CALLED = 0.3
W_CALLED_ON_LINE = 0.25
W_HELPER_CALLED = 0.2  # called from a helper of the test's own files (a fixture method, a harness's Test())
W_NAME = 0.25
W_CLASS = 0.1
W_RELATED = 0.05
W_RELATED_ONLY = 0.01  # in a related file, and nothing else: below every suspect a signal names
W_CALLEE = 0.2  # reached through a call from a function the test calls (x CALLEE_DECAY per further level)
CALLEE_DECAY = 0.5
FALLBACK_SCORE = 0.05

# "#3 0x55d in ns::f(int) /src/x.cc:12:5" (ASan/UBSan/LSan), gdb "#0 0x.. in f (..) at x.cc:12".
_SAN_FRAME = re.compile(r"^\s*#\d+\s+0x[0-9a-fA-F]+\s+in\s+(?P<func>.+?)\s+(?P<file>/?[^\s()]+):(?P<line>\d+)(?::\d+)?\s*$")
_GDB_FRAME = re.compile(r"^\s*#\d+\s+(?:0x[0-9a-fA-F]+\s+in\s+)?(?P<func>[\w:~<>]+)\s*\(.*\)\s+at\s+(?P<file>\S+):(?P<line>\d+)\s*$")
_RUNTIME_ERR = re.compile(r"^(?P<file>[^\s:]+\.\w+):(?P<line>\d+):\d+: runtime error:")
_JS_FRAME = re.compile(r"(?:^|\s)(?:at\s+)?(?:(?P<func>[^\s()]+)\s+)?\(?(?P<file>(?:[A-Za-z]:)?[^\s():]+\.[cm]?[jt]sx?):(?P<line>\d+):\d+\)?\s*$")
# An assert() that failed, as the C library prints it: where it stands is the innermost frame.  glibc:
# "prog: /src/x.cc:390: int f(int): Assertion `n > 0' failed."; BSD and macOS: "Assertion failed: (n > 0),
# function f, file x.c, line 12."; musl: "Assertion failed: n > 0 (x.c: f: 12)".
_ASSERT_AT = re.compile(r"(?:^|: )(?P<file>/?[^\s:]+\.\w+):(?P<line>\d+): .*: Assertion [`'\u2018].*failed\.$"
                        r"|^Assertion failed: .*, function \S+, file (?P<bfile>\S+), line (?P<bline>\d+)\.$"
                        r"|^Assertion failed: .* \((?P<mfile>[^\s:]+): [^:]*: (?P<mline>\d+)\)$")
_FILE_GROUPS = (("file", "line"), ("bfile", "bline"), ("mfile", "mline"))
MAX_ASSERT_LINE = 4000  # the C library's line is short; a longer one is some output of the test's


@dataclass
class TestSite:
    """Where the failing test is: its file, its own node, and what its body calls."""

    file_path: str
    qualname: str = ""
    line_start: int = 0
    line_end: int = 0
    calls: list[tuple[str, str, int]] = field(default_factory=list)  # (short, callee text, line)
    helper_calls: dict[str, list[tuple[str, str, int]]] = field(default_factory=dict)  # by short: through helpers


def _gtest_site(ws: Workspace, rel: str, suite: str, name: str, line: int) -> TestSite | None:
    pf = cfamily.parse_file(ws.root / rel)
    if pf is None:
        return None
    for macro, args, start, end, node in _declared_functions(pf):
        named = macro in GTEST_MACROS and len(args) >= 2 and args[0] == suite and args[1] == name
        if named or (not suite and start <= line <= end):
            calls = kept(pf.facts, ("site calls", start, end), functools.partial(_body_calls, node))
            return TestSite(rel, f"{args[0]}.{args[1]}" if named else cfamily.qualified_name(node), start, end,
                            list(calls))
    return None


def _declared_functions(pf: cfamily.ParsedFile) -> list[tuple[str, list[str], int, int, Any]]:
    """The file's functions declared ``NAME(args)`` (``TEST(Suite, Name)`` and plain ones): macro or
    name, the arguments' texts, first and last line, node; one walk per version of the file, however
    many of its tests failed."""
    def read() -> list[tuple[str, list[str], int, int, Any]]:
        out = []
        for node in cfamily.file_scope_functions(pf.tree.root_node):
            decl = node.child_by_field_name("declarator")
            if decl is None or decl.type != "function_declarator":
                continue
            macro = cfamily._text(decl.child_by_field_name("declarator") or decl)
            params = decl.child_by_field_name("parameters")
            args = [" ".join(cfamily._text(p).split()) for p in (params.named_children if params is not None else [])]
            out.append((macro, args, node.start_point[0] + 1, node.end_point[0] + 1, node))
        return out

    return kept(pf.facts, "declared functions", read)


def _body_calls(node: Any) -> list[tuple[str, str, int]]:
    body = node.child_by_field_name("body")
    return c_calls(body) if body is not None else []


def _file_site(ws: Workspace, rel: str, suite: str, line: int) -> TestSite:
    """A failure placed in its test file only (no test, no line: a test binary that crashed before its
    framework said which test ran): what every function of the file calls."""
    pf = None if suite or line else cfamily.parse_file(ws.root / rel)
    if pf is None:
        return TestSite(rel)
    calls = [call for node in cfamily.file_scope_functions(pf.tree.root_node)
             if (body := node.child_by_field_name("body")) is not None for call in c_calls(body)]
    return TestSite(rel, "", 1, pf.tree.root_node.end_point[0] + 1, calls)


def _js_site(ws: Workspace, rel: str, title: str, line: int) -> TestSite | None:
    pj = jsfamily.parse_file(ws.root / rel)
    if pj is None:
        return None
    test = jsfamily.find_test(pj, title) if title else None
    if test is None and line:
        inside = [t for t in jsfamily.tests_in(pj) if t.line_start <= line <= t.line_end]
        test = inside[-1] if inside else None
    if test is None:
        return TestSite(rel)
    return TestSite(rel, test.title, test.line_start, test.line_end, jsfamily.calls_in(test.body))


def _related_c(ws: Workspace, rel: str) -> list[str]:
    """Implementation files of a C/C++ test: naming convention, then its quoted includes (once per file)."""
    if rel not in ws.related:
        ws.related[rel] = _read_related_c(ws, rel)
    return list(ws.related[rel])


def _read_related_c(ws: Workspace, rel: str) -> list[str]:
    out: list[str] = []
    stem = impl_stem(Path(rel).name)
    if stem:
        out.extend(ws.by_stem(stem, C_EXTS))
    pf = cfamily.parse_file(ws.root / rel)
    if pf is not None:
        for node in pf.tree.root_node.named_children:
            if node.type != "preproc_include":
                continue
            path = node.child_by_field_name("path")
            if path is None or path.type != "string_literal":
                continue
            inc = cfamily._text(path).strip('"')
            local = (ws.root / rel).parent / inc
            found = ws.rel(local) if local.is_file() else ws.find(inc)
            if found and not found.startswith("/"):
                out.append(found)
                out.extend(ws.by_stem(Path(found).stem, C_EXTS))  # the header's own .cc/.c
    return list(dict.fromkeys(r for r in out if r != rel))


def _related_js(ws: Workspace, rel: str) -> list[str]:
    """Implementation files of a JS test: naming convention, then what it imports (once per file)."""
    if rel not in ws.related:
        ws.related[rel] = _read_related_js(ws, rel)
    return list(ws.related[rel])


def _read_related_js(ws: Workspace, rel: str) -> list[str]:
    out: list[str] = []
    stem = impl_stem(Path(rel).name)
    if stem:
        out.extend(ws.by_stem(stem, jsfamily.SOURCE_EXTS))
    helpers = []
    for found in _imports_js(ws, rel):
        out.append(found)
        if is_test_file(found):  # a test helper (``test/_tape.js``): what it imports is what the test uses
            helpers += _imports_js(ws, found)
    return list(dict.fromkeys(r for r in out + helpers if r != rel))


def _imports_js(ws: Workspace, rel: str) -> list[str]:
    """The workspace files a JS file imports or requires."""
    out: list[str] = []
    pj = jsfamily.parse_file(ws.root / rel)
    if pj is not None:
        for spec in jsfamily.imports_of(pj):
            target = callgraph.resolve_package(spec, ws.root / rel)
            if target is not None:
                found = ws.rel(target)
                if not found.startswith("/"):
                    out.append(found)
    return out


# --------------------------------------------------------------------------- frames


@dataclass
class Frame:
    file_path: str  # workspace-relative
    line: int
    func: str = ""


def stack_frames(record: TestFailureRecord, ws: Workspace) -> list[Frame]:
    """Workspace frames of the failure's stack trace, innermost first; test files excluded."""
    out: list[Frame] = []
    text = "\n".join(t for t in (record.raw, record.message) if t)
    for raw in text.splitlines()[:400]:
        line = raw.rstrip()
        m = _SAN_FRAME.match(line) or _GDB_FRAME.match(line) or _RUNTIME_ERR.match(line) or _JS_FRAME.search(line) \
            or ("Assertion" in line and len(line) <= MAX_ASSERT_LINE and _ASSERT_AT.search(line) or None)
        if not m:
            continue
        file, at = next((m.group(f), m.group(n)) for f, n in _FILE_GROUPS if m.groupdict().get(f))
        if "node_modules" in file or file.startswith("node:"):
            continue
        rel = ws.find(file)
        if rel is None or is_test_file(rel):
            continue
        frame = Frame(rel, int(at), m.groupdict().get("func") or "")
        if not any(f.file_path == frame.file_path and f.line == frame.line for f in out):
            out.append(frame)
    if record.impl_file and record.impl_line:
        rel = ws.find(record.impl_file)
        if rel and not is_test_file(rel) and not any(f.file_path == rel and f.line == record.impl_line for f in out):
            out.insert(0, Frame(rel, record.impl_line))
    return out


# --------------------------------------------------------------------------- ranking


def _callee_matches(fn: Func, short: str, text: str) -> bool:
    return fn.short == short and callgraph.names_definition(fn.qualname, text)


def _calls_by_short(site: TestSite) -> dict[str, list[tuple[str, str, int]]]:
    """The test's calls by the short name they call, in order: each function looks up its own."""
    out: dict[str, list[tuple[str, str, int]]] = {}
    for call in site.calls:
        out.setdefault(call[0], []).append(call)
    return out


def _score(
    fn: Func,
    site: TestSite | None,
    calls: dict[str, list[tuple[str, str, int]]],
    fail_line: int,
    tokens: set[str],
    class_tokens: set[str],
    frames: list[Frame],
    related: set[str],
) -> float:
    score = 0.0
    for k, frame in enumerate(frames):
        if fn.contains(frame.file_path, frame.line):
            score += W_FRAME * (FRAME_DECAY**k)
            break
    if site is not None:
        hits = [c for c in calls.get(fn.short, []) if callgraph.names_definition(fn.qualname, c[1])]
        through = [] if hits else [c for c in site.helper_calls.get(fn.short, []) if _callee_matches(fn, c[0], c[1])]
        if hits or through:
            score += W_CALLED if hits else W_HELPER_CALLED
            if fail_line and any(c[2] == fail_line for c in hits or through):
                score += W_CALLED_ON_LINE
    fn_tokens = frozen_name_tokens(fn.short)
    if tokens and fn_tokens:
        # Dice overlap: covering more of the test's words beats a one-word name
        score += W_NAME * 2 * len(fn_tokens & tokens) / (len(fn_tokens) + len(tokens))
    if class_tokens and owner_tokens(fn.qualname) & class_tokens:
        score += W_CLASS
    if fn.file_path in related:  # a function of a file the test imports: a suspect, if nothing else points
        score += W_RELATED if score > 0 else W_RELATED_ONLY
    return score


def _add_module_calls(ws: Workspace, site: TestSite, pool: dict[tuple[str, str, int], Func]) -> None:
    """A JS test calling the name it bound a module to (``const parse = require('../')``; ``parse(x)``)
    calls that module's exported function: the call is recorded under the function's own name."""
    pj = jsfamily.parse_file(ws.root / site.file_path)
    if pj is None:
        return
    bindings = callgraph.module_bindings(pj)
    for short, text, line in list(site.calls):
        name = text[: -len(short) - 1] if short in ("call", "apply") and text.endswith("." + short) else text
        if name not in bindings or (name == text and text != short):  # ``parse(x)``, ``parse.call(ctx, x)``
            continue
        target = callgraph.resolve_package(bindings[name], ws.root / site.file_path)
        rel = ws.rel(target) if target is not None else ""
        module = jsfamily.parse_file(target) if target is not None and not rel.startswith("/") else None
        if module is None:
            continue
        names = callgraph.default_export_names(module)
        for fn in functions_of_file(ws.root, rel):
            if fn.short in names:
                pool.setdefault((fn.file_path, fn.qualname, fn.line_start), fn)
                site.calls.append((fn.short, fn.short, line))


def _add_callees(
    ws: Workspace, family: str, site: TestSite, calls: dict[str, list[tuple[str, str, int]]],
    pool: dict[tuple[str, str, int], Func],
) -> dict[tuple[str, int], int]:
    """Functions reached from what the test calls, added to the pool: {(file, line): depth}."""
    direct = [fn for fn in pool.values() if (fn.short in calls or fn.short in site.helper_calls)
              and any(callgraph.names_definition(fn.qualname, c[1])
                      for c in [*calls.get(fn.short, []), *site.helper_calls.get(fn.short, [])])]
    if not direct:
        return {}
    if family == "c":
        def lookup(short: str, text: str) -> list[Func]:
            return [Func(f.file_path, f.qualname, f.line_start, f.line_end, f.short) for f in ws.c_named(short)
                    if callgraph.names_definition(f.qualname, text)]
    else:
        table = ws.js_functions()

        def lookup(short: str, text: str) -> list[Func]:
            return list(table.get(short, []))

    depth_of: dict[tuple[str, int], int] = {}
    calls_of = ws.body_calls if family == "c" else None
    for fn, depth in callgraph.callees(ws.root, family, direct, lookup, calls_of=calls_of):
        if is_test_file(fn.file_path):
            continue
        pool.setdefault((fn.file_path, fn.qualname, fn.line_start), fn)
        depth_of[(fn.file_path, fn.line_start)] = depth
    return depth_of


def _family_for(record: TestFailureRecord, test_rel: str | None) -> str | None:
    if test_rel:
        return family_of(test_rel)
    if record.runner in ("gtest", "ctest"):
        return "c"
    if record.runner == "jest":
        return "js"
    for path in (record.file_path, record.impl_file):
        if path and family_of(path):
            return family_of(path)
    return None


def is_native(record: TestFailureRecord) -> bool:
    if is_python_failure(record):
        return False
    return record.runner in NATIVE_RUNNERS or bool(family_of(record.file_path or ""))


def locate_failure(
    record: TestFailureRecord, ws: Workspace, allowed_sources: set[str] | None = None,
    compiled_sources: set[str] | None = None,
) -> list[Suspect]:
    """Ranked suspects for one failure (also written to the record)."""
    test_rel = ws.find(record.file_path) if record.file_path else None
    if test_rel is None and record.test_suite and record.runner == "jest":
        test_rel = ws.find(record.test_suite)
    suite, name = "", record.test_name
    if record.runner in ("gtest", "ctest", "junit") and not record.test_suite.endswith(tuple(jsfamily.SOURCE_EXTS)):
        suite, name = gtest_names(record.test_suite, record.test_name)
        if not suite and "." in name:
            suite, name = gtest_names(*name.split(".", 1))
    family = _family_for(record, test_rel)
    if test_rel is None and family == "c" and suite and name:
        test_rel = ws.gtest_file(suite, name)
    site: TestSite | None = None
    related: list[str] = []
    if test_rel is not None:
        family = family_of(test_rel) or family
        if family == "c":
            site = _gtest_site(ws, test_rel, suite, name, record.line) or _file_site(ws, test_rel, suite, record.line)
            related = _related_c(ws, test_rel)
        elif family == "js":
            site = _js_site(ws, test_rel, record.test_name, record.line)
            related = _related_js(ws, test_rel)
    frames = stack_frames(record, ws)
    if frames and not record.impl_file:
        record.impl_file, record.impl_line = frames[0].file_path, frames[0].line
    pool: dict[tuple[str, str, int], Func] = {}
    for rel in related:
        for fn in ws.functions(rel):
            pool[(fn.file_path, fn.qualname, fn.line_start)] = fn
    if site is not None and family == "c":
        test_files = [site.file_path, *(r for r in related if is_test_file(r))]  # the index holds no test files
        for call in calls_through_helpers(ws.root, site.file_path, site.calls,
                                          (fn for rel in test_files for fn in ws.functions(rel)), ws.body_calls):
            site.helper_calls.setdefault(call[0], []).append(call)
    called = {c[0] for c in site.calls} | set(site.helper_calls) if site else set()
    if family == "c":
        for short in sorted(called):
            for cf in ws.c_named(short):
                pool.setdefault((cf.file_path, cf.qualname, cf.line_start),
                                Func(cf.file_path, cf.qualname, cf.line_start, cf.line_end, cf.short))
    elif family == "js":
        table = ws.js_functions()
        for short in sorted(called):
            for jf in table.get(short, []):
                pool.setdefault((jf.file_path, jf.qualname, jf.line_start), jf)
    for frame in frames:
        if not any(fn.contains(frame.file_path, frame.line) for fn in pool.values()):
            for fn in ws.functions(frame.file_path):
                if fn.contains(frame.file_path, frame.line):
                    pool[(fn.file_path, fn.qualname, fn.line_start)] = fn
    if site is not None and family == "js":
        _add_module_calls(ws, site, pool)
    calls = _calls_by_short(site) if site is not None else {}
    depth_of = _add_callees(ws, family, site, calls, pool) if site is not None and family in ("c", "js") else {}
    framed = {(f.file_path, f.line) for f in frames}
    for sources, path_of in ((allowed_sources, lambda rel: str(ws.root / rel)),
                             (compiled_sources, lambda rel: os.path.realpath(ws.root / rel))):
        if sources and test_rel and path_of(test_rel) in sources:
            # sources that did not go into the build are no suspects (headers and framed code stay); each
            # file's path is resolved once, not once per function (a realpath is a few system calls)
            built = {rel: os.path.splitext(rel)[1] in HEADER_EXTS or path_of(rel) in sources
                     for rel in {fn.file_path for fn in pool.values()}}
            pool = {k: fn for k, fn in pool.items()
                    if built[fn.file_path] or any(fn.contains(f, ln) for f, ln in framed)}
    tokens = name_tokens(f"{suite} {name}") if (suite or name) else name_tokens(record.test_name)
    class_tokens = name_tokens(re.sub(r"(?i)tests?$|spec$", "", suite)) if suite else set()
    fail_line = record.line if site is not None and record.file_path and ws.find(record.file_path) == site.file_path else 0
    scored = []
    related_files = set(related)
    for fn in pool.values():
        if is_test_file(fn.file_path):
            continue
        score = _score(fn, site, calls, fail_line, tokens, class_tokens, frames, related_files)
        depth = depth_of.get((fn.file_path, fn.line_start))
        if depth:  # reached through calls from what the test calls: below a direct call, above nothing
            score += W_CALLEE * CALLEE_DECAY ** (depth - 1)
        if score > 0:
            scored.append((round(score, 4), fn))
    scored.sort(key=lambda s: (-s[0], s[1].file_path, s[1].line_start, s[1].qualname))
    suspects = [
        Suspect(fn.file_path, fn.qualname, fn.line_start, fn.line_end, score) for score, fn in scored[:MAX_SUSPECTS]
    ]
    if not suspects and site is not None and site.line_start:
        suspects = [Suspect(site.file_path, site.qualname, site.line_start, site.line_end, FALLBACK_SCORE)]
    record.place_suspects(suspects)
    if not suspects and site is not None:
        record.ast_node_id = site.file_path
    return suspects


def locate_native_failures(
    records: list[TestFailureRecord],
    workspace: Path,
    *,
    store: Path | None = None,
) -> list[TestFailureRecord]:
    """Fill suspects / ast_node_id of every non-pytest failure in place; returns the records."""
    ws = Workspace(Path(workspace), store)
    sources_for: dict[str, set[str] | None] = {}
    commands = None
    compiled: set[str] | None = None  # every source the build's recorded compiles name (realpaths)
    if store is not None:
        _place_unnamed_ctest_failures(records, ws, store)
    for record in records:
        if not is_native(record) or record.suspects:
            continue
        try:
            allowed: set[str] | None = None
            if store is not None:
                test_rel = ws.find(record.file_path) if record.file_path else None
                if test_rel and family_of(test_rel) == "c":
                    if commands is None:
                        from .ccwrap_sources import load_commands

                        commands = load_commands(store)
                    key = str(ws.root / test_rel)
                    if key not in sources_for:
                        from .ccwrap_sources import binary_sources

                        sources_for[key] = binary_sources(commands, key)
                    allowed = sources_for[key]
                    if compiled is None:
                        from ..build.compdb import CompileDatabase

                        compiled = set(CompileDatabase.from_store(store).sources())
            locate_failure(record, ws, allowed, compiled)
        except Exception:  # noqa: BLE001 - locating is best effort; never break the pipeline
            continue
    ws.save()
    return records


def _place_unnamed_ctest_failures(records: list[TestFailureRecord], ws: Workspace, store: Path) -> None:
    """A ctest test that failed naming no file (a crash before its framework printed, a time-out) gets
    the source of its own code as its file, from ctest and the recorded build (:mod:`.ctest_sources`)."""
    # a gtest name (``Suite.Name``) is found by its TEST in the sources (locate_failure), not by its binary
    unnamed = [r for r in records if r.runner == "ctest" and not r.file_path and not r.suspects and r.test_name
               and not r.test_suite and not ("." in r.test_name and ws.gtest_file(*r.test_name.split(".", 1)))]
    if not unnamed:
        return
    try:
        from ..build.compdb import CompileDatabase
        from .ctest_sources import test_sources

        found = test_sources(CompileDatabase.from_store(store), ws.root, {r.test_name for r in unnamed})
    except Exception:  # noqa: BLE001 - locating is best effort
        return
    for record in unnamed:
        if record.test_name in found:
            record.file_path = found[record.test_name]
