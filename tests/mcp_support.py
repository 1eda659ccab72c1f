"""Shared pieces of the MCP tests: the synchronous client, the sample projects, the checks."""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import uuid
from pathlib import Path
from typing import Any

from anyio.from_thread import BlockingPortal
from mcp import ClientSession

from pytest_whetstone.records import MUTATION_TYPES, FixCandidate, rank_candidates

TOOL_NAMES = {
    "whetstone_parse_build_output": {"output"},
    "whetstone_suggest_build_fix": {"build_output"},
    "whetstone_run_build_iteration": {"session_id", "build_command", "workspace"},
    "whetstone_parse_test_output": {"output"},
    "whetstone_suggest_test_fix": {"test_output"},
    "whetstone_run_test_iteration": {"session_id", "test_command", "workspace"},
    "whetstone_start_feedback_loop": {"goal", "goal_type", "workspace"},
    "whetstone_step_feedback_loop": {"session_id"},
    "whetstone_run_feedback_loop": {"session_id"},
    "whetstone_apply_candidate": {"session_id", "candidate_id", "workspace"},
    "whetstone_report": {"workspace"},
    "whetstone_run": {"command", "workspace"},
}
# Optional inputs of the seeds; each must be in the schema too.
OPTIONAL_INPUTS = {
    "whetstone_parse_build_output": {"tool"},
    "whetstone_suggest_build_fix": {"session_id", "file", "line", "col", "workspace"},
    "whetstone_run_build_iteration": {"timeout_s"},
    "whetstone_parse_test_output": {"runner"},
    "whetstone_suggest_test_fix": {"session_id", "runner", "workspace"},
    "whetstone_run_test_iteration": {"timeout_s"},
    "whetstone_start_feedback_loop": {"build_command", "test_command", "max_attempts"},
    "whetstone_step_feedback_loop": set(),
    "whetstone_run_feedback_loop": {"max_wall_seconds", "include_audit"},
    "whetstone_apply_candidate": {"dry_run"},
    "whetstone_report": {"session_id", "format"},
    "whetstone_run": {"phase", "session_id", "timeout_s"},
}

BROKEN_C = """\
#include <stdio.h>

static int helper(void) { return 1; }

int main(void) {
    int total = 0;
    int count = 3;
    printf("%d\\n", totl);
    return count
}
"""

PROJECT_C_BROKEN = """\
#include <stdio.h>

int main(void) {
    int value = 41;
    printf("%d\\n", valeu + 1);
    return 0;
}
"""
PROJECT_C_FIXED = PROJECT_C_BROKEN.replace("valeu", "value")
MAKEFILE = "app: main.c\n\tgcc -Wall -o app main.c\n\nclean:\n\trm -f app\n"

CALC_BROKEN = """\
def add(a, b):
    return a - b


def mul(a, b):
    return a * b
"""
CALC_FIXED = CALC_BROKEN.replace("a - b", "a + b")
TEST_CALC = """\
from calc import add, mul


def test_add():
    assert add(2, 3) == 5


def test_add_negative():
    assert add(-1, -1) == -2


def test_mul():
    assert mul(2, 3) == 6
"""
# Third-party plugin autoload off: a bare pytest starts in a fraction of the time on a busy machine.
PYTEST_CMD = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {sys.executable} -m pytest -q -p no:cacheprovider test_calc.py"



def has(module: str, attr: str | None = None) -> bool:
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return False
    return attr is None or hasattr(mod, attr)


def parsers_ready() -> bool:
    try:
        from pytest_whetstone.parse import parse_text

        parse_text("x.c:1:1: error: y", "auto")
    except ImportError:
        return False
    return True


PARSE_READY = parsers_ready()

def server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WHETSTONE_", "PYTEST_"))}
    env["PYTHONUNBUFFERED"] = "1"
    return env


class Client:
    """A synchronous face on one live MCP ClientSession (event loop in a portal thread)."""

    def __init__(self, portal: BlockingPortal, session: ClientSession) -> None:
        self.portal = portal
        self.session = session

    def list_tools(self) -> list[Any]:
        return list(self.portal.call(self.session.list_tools).tools)

    def call(self, name: str, arguments: dict[str, Any], sink: list[tuple[float, str]] | None = None) -> Any:
        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            if sink is not None:
                sink.append((progress, message or ""))

        async def go() -> Any:
            return await self.session.call_tool(
                name, arguments, progress_callback=on_progress if sink is not None else None
            )

        return self.portal.call(go)

    def ok(
        self, name: str, arguments: dict[str, Any], progress: list[tuple[float, str]] | None = None
    ) -> dict[str, Any]:
        result = self.call(name, arguments, progress)
        text = " ".join(getattr(c, "text", "") for c in result.content)
        assert not result.is_error, f"{name} failed: {text}"
        assert isinstance(result.structured_content, dict), f"{name}: no structured content"
        return result.structured_content

    def error(self, name: str, arguments: dict[str, Any]) -> str:
        result = self.call(name, arguments)
        assert result.is_error, f"{name} should have failed: {result.structured_content}"
        return " ".join(getattr(c, "text", "") for c in result.content)


def new_sid() -> str:
    return "t-" + uuid.uuid4().hex[:10]


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("WHETSTONE_", "PYTEST_"))}


def count_lines(pattern: str, text: str) -> int:
    return len(re.findall(pattern, text, flags=re.MULTILINE))


def c_project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "main.c").write_text(PROJECT_C_BROKEN)
    (root / "Makefile").write_text(MAKEFILE)
    return root


def py_project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "calc.py").write_text(CALC_BROKEN)
    (root / "test_calc.py").write_text(TEST_CALC)
    return root


def assert_candidates(candidates: list[dict[str, Any]], target_ids: set[str]) -> None:
    """Seed floors: confidence and mutation on all, manual fallback per target, ranked."""
    assert candidates
    for cand in candidates:
        assert 0.0 <= cand["confidence"] <= 1.0
        assert cand["mutation_type"] in MUTATION_TYPES and isinstance(cand["mutation"], dict)
        assert cand["candidate_id"]
    manual_targets = {c["target_id"] for c in candidates if c["mutation_type"] == "manual"}
    assert target_ids <= manual_targets, "every error/failure needs a manual fallback"
    ranked = rank_candidates([FixCandidate.from_dict(c) for c in candidates])
    assert [c.candidate_id for c in ranked] == [c["candidate_id"] for c in candidates]
    unvalidated = [c["confidence"] for c in candidates if not c["validated"]]
    assert unvalidated == sorted(unvalidated, reverse=True)


def session_events(workspace: Path, sid: str) -> list[dict[str, Any]]:
    path = workspace / ".whetstone" / "sessions" / f"{sid}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def handshake_version() -> str:
    try:
        from mcp_types.version import LATEST_HANDSHAKE_VERSION
    except ImportError:  # pragma: no cover - older SDK layout
        return "2025-06-18"
    return str(LATEST_HANDSHAKE_VERSION)


NESTED_REPORTER = """\
import sys
import uuid
from pytest_whetstone.records import FixCandidate
from pytest_whetstone.store.sessions import find_store, open_session
session = open_session(find_store())  # joins $WHETSTONE_SESSION in $WHETSTONE_DIR, as the plugin does
cand = FixCandidate(target_id="Tnested", description="validated by a nested reporter", confidence=0.3,
                    mutation_type="replaceNode", source="search").ensure_id()
session.append("candidates", {"records": [cand.to_dict()]})
session.append("validated", {"candidate_id": cand.candidate_id})
print("x.c:1:1: error: boom", file=sys.stderr)
sys.exit(1)
"""


SHAPES = "def area(r):\n    return math.pi * r * r\n\n\ndef double(x):\n    return x * 2\n"
TEST_SHAPES = """\
from shapes import area, double


def test_area():
    assert round(area(1.0), 2) == 3.14


def test_double():
    assert double(2) == 4
"""


def stuck_project(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "main.c").write_text('#error "this needs a human"\nint main(void) { return 0; }\n')
    (root / "Makefile").write_text(MAKEFILE)
    return root


