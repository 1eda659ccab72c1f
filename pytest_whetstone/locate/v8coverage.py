"""Which source lines a Node.js run executed, read from V8's own coverage (``NODE_V8_COVERAGE=dir``).

Node writes one JSON file per process at exit (test runners' worker processes included): per script,
per function, block ranges with execution counts, nested, the function's own range first.  A line
ran as often as the innermost range holding its first non-blank character says; no instrumentation,
no rebuild.  Only scripts under ``root`` are read (not ``node_modules``).
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlparse

from .callgrind import Executed

MAX_SCRIPT_BYTES = 2_000_000  # a bundle this large is not a project source worth a spectrum

LineCounts = dict[str, dict[int, int]]  # absolute path -> line -> times executed


def executed_in_workspace(counts: LineCounts, root: Path, workspace: Path) -> Executed:
    """Scratch-copy paths as the user's own (the suspects name the workspace's files)."""
    out = Executed()
    for path, lines in counts.items():
        try:
            rel = Path(path).relative_to(root.resolve())
        except ValueError:
            continue
        out.lines[str(workspace / rel)] = set(lines)
    return out


def read_dir(directory: Path, root: Path) -> LineCounts:
    """Per project script under ``root``, how often each line ran (summed over the processes)."""
    return read_reports(sorted(directory.glob("coverage-*.json")), root)


def read_reports(reports: list[Path], root: Path) -> LineCounts:
    """Per project script under ``root``, how often each line ran, summed over these coverage files."""
    out: LineCounts = {}
    root = root.resolve()
    for report in reports:
        try:
            data = json.loads(report.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a process killed while writing: the others still count
        for script in data.get("result", []) if isinstance(data, dict) else []:
            path = _script_path(str(script.get("url", "")))
            if path is None or "node_modules" in path.parts:
                continue
            try:
                path.relative_to(root)
            except ValueError:
                continue
            counts = _line_counts(path, script.get("functions", []))
            if counts:
                mine = out.setdefault(str(path), {})
                for line, n in counts.items():
                    mine[line] = mine.get(line, 0) + n
    return out


def _script_path(url: str) -> Path | None:
    if url.startswith("file://"):
        return Path(unquote(urlparse(url).path))
    if url.startswith("/"):
        return Path(url)  # a vm script named by its path (some runners)
    return None


def _line_counts(path: Path, functions: list[dict]) -> dict[int, int]:
    try:
        if path.stat().st_size > MAX_SCRIPT_BYTES:
            return {}
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    ranges: list[tuple[int, int, int]] = []  # (start, end, count)
    for fn in functions:
        for r in fn.get("ranges", []):
            try:
                ranges.append((int(r["startOffset"]), int(r["endOffset"]), int(r["count"])))
            except (KeyError, TypeError, ValueError):
                continue
    if not ranges:
        return {}
    # V8 offsets count UTF-16 units; for the ASCII sources this reads they are the string's indices.
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    # V8's ranges nest (a function inside the script, a block inside its function): one sweep with a
    # stack of the ranges holding the current offset; the top is the innermost.
    ranges.sort(key=lambda r: (r[0], -r[1]))
    stack: list[tuple[int, int, int]] = []
    nxt = 0
    counts: dict[int, int] = {}
    for line_no, start in enumerate(starts, 1):
        end = starts[line_no] if line_no < len(starts) else len(text)
        body = text[start:end]
        stripped = len(body) - len(body.lstrip())
        if stripped >= len(body.rstrip("\n")):
            continue  # a blank line runs nothing
        offset = start + stripped
        while nxt < len(ranges) and ranges[nxt][0] <= offset:
            while stack and stack[-1][1] <= ranges[nxt][0]:
                stack.pop()
            stack.append(ranges[nxt])
            nxt += 1
        while stack and stack[-1][1] <= offset:
            stack.pop()
        if stack and stack[-1][2] > 0:
            counts[line_no] = stack[-1][2]
    return counts


def counts_itself(line: str) -> bool:
    """Whether a line's count is that of the code on it.  A line is counted by the innermost block
    holding its first non-blank character: one that opens with the brace closing a block (``} else if
    (c) {``) or with a ``case``/``default`` label reads the count of the block before, though its
    condition or label ran."""
    text = line.lstrip()
    return bool(text) and not text.startswith(("}", ")", "]", "case ", "default"))


def difference(more: LineCounts, less: LineCounts) -> LineCounts:
    """Lines that ran more often in ``more`` than in ``less`` (a whole file's run less its failing tests:
    what the passing tests ran)."""
    out: LineCounts = {}
    for path, lines in more.items():
        base = less.get(path, {})
        extra = {line: n - base.get(line, 0) for line, n in lines.items() if n > base.get(line, 0)}
        if extra:
            out[path] = extra
    return out

