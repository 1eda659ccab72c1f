"""Small helpers the format modules share: one-line text, diffs, source context."""

from __future__ import annotations

import re
from pathlib import Path

from ..records import BuildErrorRecord, FixCandidate, TestFailureRecord, TextEdit

# C0 controls (but tab), DEL and C1 controls: a hostile message must not move a terminal's cursor.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MAX_SOURCE_BYTES = 2 << 20


def one_line(text: str, limit: int = 300, *, strip: bool = True) -> str:
    """Untrusted text as one printable line: newlines shown as ⏎, controls as \\xNN, cut at limit."""
    text = text.replace("\r\n", "\n").replace("\n", " ⏎ ").replace("\t", " ")
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    text = text.strip() if strip else text.rstrip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def printable(text: str) -> str:
    """Multi-line untrusted text with control characters made visible (newlines and tabs kept)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text.replace("\r\n", "\n").replace("\r", "\n"))


def location(path: str, line: int, col: int = 0) -> str:
    out = path or "<unknown>"
    if line > 0:
        out += f":{line}"
        if col > 0:
            out += f":{col}"
    return out


def failure_title(f: TestFailureRecord, sep: str = "::") -> str:
    """The test's name as a reader looks for it: ``suite::name`` (``sep`` between them), the name alone
    when the runner gave no suite or the suite already holds it (ctest's list)."""
    if f.test_suite and f.test_name and f.test_name not in f.test_suite:
        return f"{f.test_suite}{sep}{f.test_name}"
    return f.node_id or f.test_name or f.test_suite or f.failure_id


def expected_actual(f: TestFailureRecord, limit: int = 120) -> str:
    if not (f.expected_value or f.actual_value):
        return ""
    return f"expected {one_line(f.expected_value, limit)}, got {one_line(f.actual_value, limit)}"


def candidate_diff(candidate: FixCandidate, workspace: Path | None) -> str:
    """The unified diff the candidate would make now, or a plain listing of its edits.

    The edit engine refuses paths outside the workspace and files that changed;
    a report then still shows what the candidate says, just not as a diff.
    """
    if not candidate.edits:
        return ""
    if workspace is not None:
        try:
            from ..edits import candidate_diff as engine_diff  # lazily: floor 3 sibling

            text = engine_diff(candidate, workspace)
            if text:
                return text
        except Exception:  # noqa: BLE001 - any refusal falls back to the listing
            pass
    return "".join(_edit_listing(e) for e in candidate.edits)


def _edit_listing(edit: TextEdit) -> str:
    span = f"{edit.file_path}:{edit.start.line}:{edit.start.col}-{edit.end.line}:{edit.end.col}"
    if (edit.start.line, edit.start.col) == (edit.end.line, edit.end.col):
        return f"insert at {span.rsplit('-', 1)[0]}: {edit.new_text!r}\n"
    if not edit.new_text:
        return f"delete {span}\n"
    return f"replace {span} with {edit.new_text!r}\n"


def read_source(path: str, workspace: Path | None) -> list[str] | None:
    """The lines of a file inside the workspace (resolved, so no symlink escapes), else None."""
    if workspace is None or not path or "\x00" in path:
        return None
    root = workspace.resolve()
    try:
        target = (root / path).resolve()
        target.relative_to(root)
        if not target.is_file() or target.stat().st_size > _MAX_SOURCE_BYTES:
            return None
        return target.read_bytes().decode("utf-8", "replace").splitlines()
    except (OSError, ValueError):
        return None


def source_context(
    path: str, line: int, workspace: Path | None, fallback: list[str] | None = None, radius: int = 3
) -> list[tuple[int, str]]:
    """[(line number, text)] around line: from the file when readable, else the record's lines."""
    lines = read_source(path, workspace) if line > 0 else None
    if lines and line <= len(lines):
        lo, hi = max(1, line - radius), min(len(lines), line + radius)
        return [(n, lines[n - 1]) for n in range(lo, hi + 1)]
    return [(0, text) for text in (fallback or [])]


def error_line(e: BuildErrorRecord) -> str:
    return f"{location(e.file_path, e.line, e.col)}: {e.error_type}: {one_line(e.message)}"
