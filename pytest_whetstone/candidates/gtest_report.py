"""What one GoogleTest run said, read from its XML report and its output: each test's verdict (a
failure's words without what changes from run to run), its time, and what a run stopped at its time
limit did finish (:mod:`.native_trial_cxx`)."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

from ..parse.gtest import test_progress


def last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return steady(lines[-1][:160]) if lines else ""


def steady(signature: str) -> str:
    """A failure's words without what changes from run to run: addresses (a position-independent binary
    is loaded elsewhere each time, and gtest prints the pointers it compared)."""
    return _ADDRESS.sub("0x…", signature)


_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


def passed_so_far(output: str) -> set[str]:
    """The tests gtest's own output says passed (it flushes each line as the test ends): what a run
    stopped at its time limit did finish.  Its XML report is written only at the end."""
    return {name for name, passed in test_progress(output)[0].items() if passed}


def gtest_results(report: Path, times: dict[str, float] | None = None) -> dict[str, str | None]:
    """{Suite.Name: None | first line of the first failure message} from a gtest XML report; ``times``
    gets each test's seconds."""
    try:
        root = ElementTree.parse(report).getroot()
    except (OSError, ElementTree.ParseError):
        return {}
    out: dict[str, str | None] = {}
    for case in root.iter("testcase"):
        if case.get("result", "completed") != "completed" and case.get("status") != "run":
            continue
        name = f"{case.get('classname', '')}.{case.get('name', '')}"
        if times is not None:
            try:
                times[name] = float(case.get("time", ""))
            except ValueError:
                pass
        failure = case.find("failure")
        if failure is None:
            out[name] = None
        else:
            message = failure.get("message") or failure.text or "failed"
            lines = [ln for ln in message.splitlines() if ln.strip()]
            # the first line names the file:line; what it compares follows
            out[name] = steady(" | ".join(lines[1:4] or lines[:1])[:240])
    return out
