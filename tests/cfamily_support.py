"""Compile small programs with the real gcc/clang and turn their output into records.

Uses ``pytest_whetstone.parse.parse_text`` when the gcc/linker parsers exist;
until then a minimal reader of the exact compiler lines (diagnostics, notes,
``fix-it:`` lines, GNU ld / lld undefined references) stands in, so the
generators are always fed real compiler output.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

from pytest_whetstone.classify import classify_build
from pytest_whetstone.locate.cfamily import byte_to_char_col
from pytest_whetstone.records import BuildErrorRecord, Position, TextEdit

_DIAG = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?:(?P<col>\d+):)? (?P<sev>fatal error|error|warning|note): (?P<msg>.*)$")
_FIXIT = re.compile(r'^fix-it:"(?P<file>[^"]+)":\{(\d+):(\d+)-(\d+):(\d+)\}:"(?P<text>.*)"$')
_LD_FUNC = re.compile(r"^(?:/usr/bin/ld|ld|[\w./-]*ld(?:\.\w+)?): (?P<obj>.*?): in function [`'](?P<fn>[^']+)'")
_LD_UNDEF = re.compile(r"^(?:(?:/usr/bin/ld|ld): )?(?P<src>[^:\s]+):\((?:[^)]*)\): undefined reference to [`'](?P<sym>[^']+)'")
_LLD_UNDEF = re.compile(r"^ld\.lld: error: undefined symbol: (?P<sym>.+)$")
_LLD_REF = re.compile(r"^>>> +(?:referenced by )?(?P<obj>[^:\s]+):\((?P<fn>[^)]+)\)")


def have_real_parser() -> bool:
    return importlib.util.find_spec("pytest_whetstone.parse.gcc") is not None


def _unescape(text: str) -> str:
    return text.encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1").decode("utf-8", "replace")


def minimal_parse(text: str, tool: str) -> list[BuildErrorRecord]:
    records: list[BuildErrorRecord] = []
    current: BuildErrorRecord | None = None
    function = ""
    for line in text.splitlines():
        m = _DIAG.match(line)
        if m:
            sev = "error" if m["sev"] == "fatal error" else m["sev"]
            if sev == "note" and current is not None:
                current.notes.append(m["msg"])
                continue
            flag = re.search(r"\[(-W[\w=+-]+|-fpermissive)\]$", m["msg"])
            current = BuildErrorRecord(
                tool=tool,
                severity=sev,
                file_path=m["file"],
                line=int(m["line"]),
                col=int(m["col"] or 0),
                message=m["msg"][: flag.start()].rstrip() if flag else m["msg"],
                error_code=flag.group(1) if flag else "",
            )
            records.append(current)
            continue
        m = _FIXIT.match(line)
        if m and current is not None:
            g = m.groups()
            current.fixits.append(
                TextEdit(file_path=m["file"], start=Position(int(g[1]), int(g[2])), end=Position(int(g[3]), int(g[4])), new_text=_unescape(m["text"]))
            )
            continue
        m = _LD_FUNC.match(line)
        if m:
            function = m["fn"]
            continue
        m = _LD_UNDEF.match(line)
        if m:
            current = BuildErrorRecord(tool="linker", severity="error", message=f"undefined reference to `{m['sym']}'", symbol=m["sym"], function=function, translation_unit=m["src"])
            records.append(current)
            continue
        m = _LLD_UNDEF.match(line)
        if m:
            current = BuildErrorRecord(tool="linker", severity="error", message=f"undefined symbol: {m['sym']}", symbol=m["sym"])
            records.append(current)
            continue
        m = _LLD_REF.match(line)
        if m and current is not None and current.tool == "linker":
            current.function = m["fn"]
    for record in records:
        for fix in record.fixits:  # byte columns -> characters, as the real parser does
            try:
                lines = Path(fix.file_path).read_text().split("\n")
            except OSError:
                continue
            for pos in (fix.start, fix.end):
                if 0 < pos.line <= len(lines):
                    pos.col = byte_to_char_col(lines[pos.line - 1], pos.col)
        if not record.symbol:
            s = re.search("[\u2018'`]([\\w:]+)[\u2019'] undeclared|undeclared identifier '(\\w+)'", record.message)
            if s:
                record.symbol = s.group(1) or s.group(2)
        classify_build(record)
        record.ensure_id()
    return records


def parse_build_output(text: str, tool: str, cwd: Path) -> list[BuildErrorRecord]:
    if have_real_parser():
        from pytest_whetstone.parse import parse_text

        return parse_text(text, "gcc" if tool == "gcc" else "clang", cwd=str(cwd)).build_errors
    return minimal_parse(text, tool)


def compile_output(cwd: Path, argv: list[str]) -> tuple[int, str]:
    """Run a real compiler command in cwd with parseable fix-its; (exit code, stderr+stdout)."""
    proc = subprocess.run(
        argv[:1] + ["-fdiagnostics-parseable-fixits", "-fno-diagnostics-color"] + argv[1:],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"},
    )
    return proc.returncode, proc.stderr + proc.stdout


def build_records(cwd: Path, argv: list[str]) -> tuple[int, list[BuildErrorRecord]]:
    tool = "clang" if "clang" in argv[0] else "gcc"
    code, out = compile_output(cwd, argv)
    return code, parse_build_output(out, tool, cwd)
