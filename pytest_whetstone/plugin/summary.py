"""The plugin's lines in pytest's terminal summary (the verdict block itself is printed by the collector)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .collector import WhetstoneCollector


def summary_lines(collector: WhetstoneCollector) -> list[str]:
    """One line per failure (what failed, expected/actual, the top suspect), the search, the session."""
    if collector.agent:
        from ..report.agent import agent_lines

        return agent_lines([], collector.records, collector.candidates)
    lines = []
    for r in collector.records:
        label = "FLAKY" if r.flaky else r.failure_type.upper()
        name = r.node_id or f"{r.test_suite}::{r.test_name}"
        text = f"{label:<14} {name}"
        if r.expected_value or r.actual_value:
            text += f"  expected {_short(r.expected_value)} got {_short(r.actual_value)}"
        elif r.exception_type:
            text += f"  {r.exception_type}: {_short(r.message.splitlines()[0] if r.message else '')}"
        if r.suspects:
            s = r.suspects[0]
            text += f"  -> {s.file_path}:{s.line_start} {s.qualname}"
        lines.append(_one_line(text))
    spectra = collector.spectra_stats
    if spectra and spectra.get("modules"):
        text = (f"spectra: {spectra['failing']} failing / {spectra['passing_traced']} passing tests traced in "
                f"{spectra['elapsed_s']:.1f} s")
        if spectra.get("cut_short"):
            text += f" (cut short by the budget: {spectra['passing_planned'] - spectra['passing_traced']} not traced)"
        lines.append(text)
    search = collector.search_stats
    if search and search.get("tried"):
        lines.append(
            f"search: {search['tried']} edit(s) tried in {search.get('elapsed_s', 0):.1f} s, "
            f"{search.get('validated', 0)} validated (stopped: {search.get('stopped') or 'done'})"
        )
    elif collector.search_skipped and collector.records:
        lines.append(f"search: not run ({collector.search_skipped}; --whetstone-search=1 runs it in full)")
    if collector.session_path:
        lines.append(f"session: {collector.session_path}")
    return lines


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _one_line(text: str) -> str:
    return "".join(ch if ch.isprintable() else "?" for ch in text)
