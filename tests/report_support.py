"""A realistic session for the report tests: real gcc output, a failing pytest test, a loop.

The build half compiles a small C file with the real gcc and parses its
output with the real parser; the test half is a TestFailureRecord as the
plugin writes it (built directly: the plugin runs in its own tests).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from pytest_whetstone.parse import parse_text
from pytest_whetstone.records import (
    AttemptRecord,
    AuditEntry,
    FixCandidate,
    GapModel,
    Position,
    Suspect,
    TestFailureRecord,
    TextEdit,
    dumps,
)
from pytest_whetstone.store.sessions import Session, find_store, open_session

C_SOURCE = """#include <stdlib.h>
int main(void) {
    int unused = 3;
    char *p = malloc(10);
    printf("%s\\n", p);
    return undefined_thing;
}
"""

PY_SOURCE = """def mean(values):
    total = 0
    for v in values:
        total += v
    return total / (len(values) + 1)


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]
"""

PY_TEST = """from stats import mean


def test_mean():
    assert mean([1, 2, 3]) == 2
"""

HAVE_GCC = shutil.which("gcc") is not None


def gcc_output(workspace: Path) -> str:
    (workspace / "src").mkdir(exist_ok=True)
    (workspace / "src" / "calc.c").write_text(C_SOURCE)
    proc = subprocess.run(
        ["gcc", "-Wall", "-fdiagnostics-parseable-fixits", "-fno-diagnostics-color", "-c", "src/calc.c",
         "-o", "/dev/null"],
        cwd=workspace, capture_output=True, text=True, check=False,
    )
    return proc.stderr


def make_workspace(root: Path, *, hostile: str = "") -> tuple[Session, Path]:
    """A workspace with a store and one session holding a realistic mixed failure.

    hostile, when given, is put into messages and test names (escaping tests).
    """
    workspace = root
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "pyproject.toml").write_text("[project]\nname='demo'\n")
    store = find_store(workspace)
    session = open_session(store, meta={"workspace": str(workspace), "target": "ci"})

    parsed = parse_text(gcc_output(workspace), tool="gcc", cwd=str(workspace))
    errors = parsed.build_errors
    assert errors, "gcc printed no diagnostics"
    if hostile:
        errors[0].message += hostile
    session.append("build_errors", {
        "origin": f"tu:{workspace / 'src' / 'calc.c'}",
        "records": [e.to_dict() for e in errors],
    })

    (workspace / "stats.py").write_text(PY_SOURCE)
    (workspace / "tests").mkdir(exist_ok=True)
    (workspace / "tests" / "test_stats.py").write_text(PY_TEST)
    failure = TestFailureRecord(
        runner="pytest",
        test_suite="tests/test_stats.py",
        test_name="test_mean" + hostile,
        failure_type="assertion",
        expected_value="2",
        actual_value="1.5",
        file_path=str(workspace / "tests" / "test_stats.py"),
        line=5,
        message="assert 1.5 == 2" + hostile,
        node_id="tests/test_stats.py::test_mean",
        exception_type="AssertionError",
        impl_file=str(workspace / "stats.py"),
        impl_line=5,
        suspects=[
            Suspect(str(workspace / "stats.py"), "mean", 1, 5, 0.93),
            Suspect(str(workspace / "stats.py"), "median", 8, 10, 0.12),
        ],
    ).ensure_id()
    failure.ast_node_id = "stats.py::mean"
    flaky = TestFailureRecord(
        runner="pytest", test_suite="tests/test_stats.py", test_name="test_timing", failure_type="assertion",
        file_path=str(workspace / "tests" / "test_stats.py"), line=9, message="took 2.1s > 2s",
        node_id="tests/test_stats.py::test_timing", flaky=True,
    ).ensure_id()
    session.append("test_failures", {"origin": "pytest", "records": [failure.to_dict(), flaky.to_dict()]})

    fixit_error = next(e for e in errors if e.fixits)
    undeclared = next(e for e in errors if e.error_type == "undefined_symbol")
    candidates = [
        FixCandidate(
            target_id=fixit_error.error_id, description="add #include <stdio.h>", confidence=0.9,
            mutation_type="addImport", edits=list(fixit_error.fixits), source="compiler-fixit",
        ).ensure_id(),
        FixCandidate(
            target_id=failure.failure_id, description="remove the + 1 from the divisor in mean()",
            confidence=0.6, mutation_type="replaceNode", source="search",
            edits=[TextEdit(str(workspace / "stats.py"), Position(5, 12), Position(5, 37),
                            "total / len(values)")],
        ).ensure_id(),
        FixCandidate(
            target_id=undeclared.error_id, description="declare undefined_thing" + hostile, confidence=0.2,
            mutation_type="manual", source="heuristic",
        ).ensure_id(),
    ]
    session.append("candidates", {"records": [c.to_dict() for c in candidates]})
    session.append("validated", {"candidate_id": candidates[1].candidate_id})

    gaps = [(5, 4), (4, 3), (3, 3)]
    audit_lines = []
    for i, (before, after) in enumerate(gaps):
        attempt = AttemptRecord(
            attempt_id=f"A{i}", session_id=session.session_id, action="build", phase="build",
            command="make", exit_code=2, outcome="failure",
            gap_before=GapModel("error_count", before, 0), gap_after=GapModel("error_count", after, 0),
        )
        session.append("attempt", {"attempt": attempt.to_dict()})
        audit_lines.append(AuditEntry(
            step_index=i, action_type="build_iteration", action_description=f"apply candidate {i}",
            candidate_applied=candidates[0].candidate_id if i == 0 else None,
            gap_before=GapModel("error_count", before, 0), gap_after=GapModel("error_count", after, 0),
            session_status_after="running", duration_ms=120 + i,
        ).to_json())
    session.audit_path.write_text("\n".join(audit_lines) + "\n")
    session.append("verdict", {"target": "ci", "status": "fail", "failure": "compile-error", "phase": "build"})
    return session, workspace


def write_events(path: Path, events: list[dict]) -> None:
    path.write_text("".join(dumps(e) + "\n" for e in events))
