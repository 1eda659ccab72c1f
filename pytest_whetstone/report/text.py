"""`--format text` (the default): compact enough to survive a tail, verdict block last.

Layout: a headline and a counts line, then the build diagnostics grouped by
file (the first error's file first, one line each), one line per test
failure, the top candidates with their diffs, and the verdict block as the
very last lines.  Every untrusted string is flattened to one printable line.
"""

from __future__ import annotations

from ..verdict import render as render_verdict
from .common import candidate_diff, error_line, expected_actual, failure_title, location, one_line
from .model import ReportModel

MAX_DIAGNOSTICS = 40
MAX_FAILURES = 30
MAX_CANDIDATES = 3
MAX_DIFF_LINES = 24


def render(model: ReportModel) -> str:
    out: list[str] = [_headline(model), _counts_line(model)]
    _diagnostics(model, out)
    _failures(model, out)
    _candidates(model, out)
    if model.escalation is not None:
        out += ["", f"escalated: {model.escalation.escalation_reason or 'unknown reason'}"]
        if model.escalation.recommended_next_step:
            out.append(f"  next step: {one_line(model.escalation.recommended_next_step)}")
    out.append("")
    return "\n".join(out) + "\n" + render_verdict(model.verdict)


def _headline(model: ReportModel) -> str:
    what = model.status + (f" ({model.failure})" if model.failure else "")
    merged = f" · merged from {len(model.sources)} sessions" if len(model.sources) > 1 else ""
    return f"whetstone report · session {model.session_id}{merged} · {what}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _counts_line(model: ReportModel) -> str:
    c = model.counts
    parts = [_plural(c["errors"], "error"), _plural(c["warnings"], "warning")]
    if c["lint"]:
        parts.append(f"{c['lint']} lint")
    failures = _plural(c["test_failures"], "test failure")
    if c["flaky"]:
        failures += f" (+{c['flaky']} flaky)"
    parts.append(failures)
    if "passed" in c:
        parts.append(f"{c['passed']} passed")
    cands = _plural(c["candidates"], "candidate")
    if c["validated"]:
        cands += f" ({c['validated']} validated)"
    parts.append(cands)
    return ", ".join(parts)


def _diagnostics(model: ReportModel, out: list[str]) -> None:
    shown = [e for e in model.build_errors if e.severity != "note"]
    if not shown:
        return
    groups: dict[str, list[str]] = {}
    for e in shown[:MAX_DIAGNOSTICS]:
        # Insertion order: the file of the first (most severe, earliest) error comes first.
        groups.setdefault(e.file_path or "<no file>", []).append(error_line(e))
    out.append("")
    for path, lines in groups.items():
        out.append(one_line(path))
        out += [f"  {line}" for line in lines]
    if len(shown) > MAX_DIAGNOSTICS:
        out.append(f"  … and {len(shown) - MAX_DIAGNOSTICS} more (whetstone report --format json)")


def _failures(model: ReportModel, out: list[str]) -> None:
    if not model.test_failures:
        return
    ordered = sorted(model.test_failures, key=lambda f: f.flaky)  # real failures before flaky ones
    out += ["", "test failures:"]
    for f in ordered[:MAX_FAILURES]:
        parts = [f"  {'FLAKY' if f.flaky else 'FAILED'} {one_line(failure_title(f), 160)} [{f.failure_type}]"]
        ea = expected_actual(f)
        parts.append(ea if ea else one_line(f.message, 160))
        if f.suspects:
            top = f.suspects[0]
            text = f"suspect {location(top.file_path, top.line_start)} {one_line(top.qualname, 80)}"
            parts.append(f"{text} ({one_line(top.evidence, 120)})" if top.evidence else text)
        elif f.impl_file:
            parts.append(f"at {location(f.impl_file, f.impl_line)}")
        out.append(" · ".join(p for p in parts if p))
    if len(ordered) > MAX_FAILURES:
        out.append(f"  … and {len(ordered) - MAX_FAILURES} more")


def _candidates(model: ReportModel, out: list[str]) -> None:
    if not model.candidates:
        return
    top = model.candidates[:MAX_CANDIDATES]
    out += ["", f"candidates (top {len(top)} of {len(model.candidates)}; apply with `whetstone apply ID`):"]
    for c in top:
        flag = " validated" if c.validated else ""
        out.append(f"  {c.candidate_id} {c.confidence:.2f}{flag} {c.mutation_type}: {one_line(c.description, 160)}")
        diff = candidate_diff(c, model.workspace)
        lines = diff.splitlines()
        for line in lines[:MAX_DIFF_LINES]:
            out.append("    " + one_line(line, 200, strip=False))
        if len(lines) > MAX_DIFF_LINES:
            out.append(f"    … {len(lines) - MAX_DIFF_LINES} more diff lines")
