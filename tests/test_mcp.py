"""The MCP server through a real MCP client session over stdio (seeds 000-002, steps 1365-1367,
1375-1377, 1395-1397): `python -m pytest_whetstone mcp` launched by the SDK's `stdio_client`,
driven by its `ClientSession`.  Inputs are real: gcc output of a broken C file, a failing pytest
run, a tiny C project with a Makefile.  The client validates every structured result against
the tool's output schema, so a shape drift fails the call itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the [mcp] extra is not installed")
from anyio.from_thread import start_blocking_portal  # noqa: E402
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402
from mcp_support import (  # noqa: E402
    BROKEN_C,
    CALC_BROKEN,
    CALC_FIXED,
    NESTED_REPORTER,
    OPTIONAL_INPUTS,
    PARSE_READY,
    PROJECT_C_BROKEN,
    PROJECT_C_FIXED,
    PYTEST_CMD,
    SHAPES,
    TEST_CALC,
    TEST_SHAPES,
    TOOL_NAMES,
    Client,
    assert_candidates,
    c_project,
    clean_env,
    count_lines,
    handshake_version,
    has,
    new_sid,
    py_project,
    server_env,
    session_events,
    stuck_project,
)

from pytest_whetstone.records import ERROR_TYPES, FAILURE_TYPES  # noqa: E402
from pytest_whetstone.verdict import parse_last  # noqa: E402

pytestmark = pytest.mark.timeout(120)

# --------------------------------------------------------------------------- dependencies

needs_parse = pytest.mark.skipif(not PARSE_READY, reason="pytest_whetstone.parse parsers not landed yet")
needs_candidates = pytest.mark.skipif(
    not has("pytest_whetstone.candidates", "generate"), reason="candidates.generate not landed yet"
)
needs_edits = pytest.mark.skipif(
    not has("pytest_whetstone.edits", "apply_candidate_by_id"), reason="edits.apply_candidate_by_id not landed yet"
)
needs_report = pytest.mark.skipif(
    not has("pytest_whetstone.report", "run_report"), reason="report.run_report not landed yet"
)
needs_loop = pytest.mark.skipif(
    not has("pytest_whetstone.orchestrate.loop", "FeedbackLoopOrchestrator"),
    reason="orchestrate.loop.FeedbackLoopOrchestrator not landed yet",
)
needs_gcc = pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("make")), reason="needs gcc and make")


# --------------------------------------------------------------------------- the client


@pytest.fixture(scope="module")
def server_cwd(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp-cwd")


@pytest.fixture(scope="module")
def client(server_cwd: Path) -> Iterator[Client]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "pytest_whetstone", "mcp"], env=server_env(), cwd=str(server_cwd)
    )
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(stdio_client(params)) as (read, write):
            with portal.wrap_async_context_manager(ClientSession(read, write)) as session:
                portal.call(session.initialize)
                yield Client(portal, session)


@pytest.fixture(scope="module")
def gcc_output(tmp_path_factory: pytest.TempPathFactory) -> str:
    """What gcc really prints for a file with an undeclared name and a missing semicolon."""
    if not shutil.which("gcc"):
        pytest.skip("needs gcc")
    work = tmp_path_factory.mktemp("gcc")
    (work / "broken.c").write_text(BROKEN_C)
    proc = subprocess.run(
        ["gcc", "-Wall", "-c", "broken.c", "-o", "broken.o", "-fdiagnostics-color=never"],
        cwd=work, capture_output=True, text=True, env=clean_env(), check=False,
    )
    assert proc.returncode != 0
    return proc.stderr


@pytest.fixture(scope="module")
def pytest_output(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A real failing pytest run: two failures, one pass."""
    work = tmp_path_factory.mktemp("pyfail")
    (work / "calc.py").write_text(CALC_BROKEN)
    (work / "test_calc.py").write_text(TEST_CALC)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_calc.py"],
        cwd=work, capture_output=True, text=True, env={**clean_env(), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "2 failed, 1 passed" in proc.stdout
    return proc.stdout


# --------------------------------------------------------------------------- registration


def test_all_tools_registered_with_schemas(client: Client) -> None:
    tools = {t.name: t for t in client.list_tools()}
    assert set(tools) == set(TOOL_NAMES)
    for name, required in TOOL_NAMES.items():
        schema = tools[name].input_schema
        assert schema["type"] == "object"
        assert set(schema.get("required", [])) == required, name
        assert required | OPTIONAL_INPUTS[name] <= set(schema["properties"]), name
        assert tools[name].output_schema is not None, f"{name} has no output schema"
        assert tools[name].description
    # output schemas come from the records: a BuildErrorRecord carries its seed fields
    out = json.dumps(tools["whetstone_parse_build_output"].output_schema)
    for field in ("error_id", "severity", "file_path", "context_lines", "ast_node_id", "error_type"):
        assert field in out


def test_missing_sdk_is_one_clear_line(tmp_path: Path) -> None:
    """Without the [mcp] extra, `whetstone mcp` says what to install, in one line, exit 2."""
    code = "import sys; sys.modules['mcp'] = None; from pytest_whetstone.cli import main; sys.exit(main(['mcp']))"
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env=server_env(), timeout=60, check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "whetstone[mcp]" in lines[0], proc.stderr


def test_malformed_input_is_a_structured_error(client: Client) -> None:
    assert "string" in client.error("whetstone_parse_build_output", {"output": 42}).lower()
    assert "output" in client.error("whetstone_parse_build_output", {})
    assert client.error("whetstone_parse_build_output", {"output": "", "tool": "fortran"})
    assert client.error("whetstone_parse_test_output", {"output": "", "runner": "nose"})
    assert client.error("whetstone_suggest_build_fix", {"build_output": "", "line": -3})
    # and the server is still alive afterwards
    assert len(client.list_tools()) == len(TOOL_NAMES)


def test_workspace_errors(client: Client, tmp_path: Path) -> None:
    args = {"session_id": new_sid(), "build_command": "true"}
    assert "does not exist" in client.error("whetstone_run_build_iteration", {**args, "workspace": str(tmp_path / "nope")})
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    assert "not a directory" in client.error("whetstone_run_build_iteration", {**args, "workspace": str(a_file)})
    assert "workspace" in client.error("whetstone_run_test_iteration", {
        "session_id": new_sid(), "test_command": "true", "workspace": ""})
    assert "invalid session id" in client.error("whetstone_run_build_iteration", {
        **args, "session_id": "../escape", "workspace": str(tmp_path)})
    assert "empty" in client.error("whetstone_run_build_iteration", {
        **args, "build_command": "  ", "workspace": str(tmp_path)})
    assert "timeout" in client.error("whetstone_run_build_iteration", {
        **args, "workspace": str(tmp_path), "timeout_s": 0}).lower()


def test_unknown_session_errors(client: Client, tmp_path: Path) -> None:
    sid = new_sid()
    assert "unknown session" in client.error("whetstone_apply_candidate", {
        "session_id": sid, "candidate_id": "C1", "workspace": str(tmp_path)})
    assert "unknown session" in client.error("whetstone_step_feedback_loop", {"session_id": sid})
    assert "unknown session" in client.error("whetstone_run_feedback_loop", {"session_id": sid})
    assert "unknown session" in client.error("whetstone_report", {"session_id": sid, "workspace": str(tmp_path)})


# --------------------------------------------------------------------------- build: parse and suggest


@needs_parse
def test_parse_build_output_counts_and_classification(client: Client, gcc_output: str) -> None:
    out = client.ok("whetstone_parse_build_output", {"output": gcc_output})
    assert out["error_count"] == count_lines(r"^[^:\n]+:\d+:\d+: error:", gcc_output) == 2
    assert out["warning_count"] == count_lines(r"^[^:\n]+:\d+:\d+: warning:", gcc_output) >= 1
    errors = [e for e in out["errors"] if e["severity"] == "error"]
    assert {e["tool"] for e in errors} == {"gcc"}
    assert all(e["error_type"] in ERROR_TYPES for e in out["errors"])
    undeclared = next(e for e in errors if "totl" in e["message"])
    assert undeclared["file_path"].endswith("broken.c") and undeclared["line"] == 8
    assert undeclared["error_type"] == "undefined_symbol"
    missing_semi = next(e for e in errors if "expected" in e["message"])
    assert missing_semi["error_type"] == "syntax_error"
    # deterministic: the same output gives the same bytes
    assert client.ok("whetstone_parse_build_output", {"output": gcc_output}) == out


@needs_parse
def test_parse_build_output_tool_respected_and_empty(client: Client, gcc_output: str) -> None:
    as_gcc = client.ok("whetstone_parse_build_output", {"output": gcc_output, "tool": "gcc"})
    assert as_gcc["error_count"] == 2
    as_cmake = client.ok("whetstone_parse_build_output", {"output": gcc_output, "tool": "cmake"})
    assert not any(e["tool"] == "gcc" for e in as_cmake["errors"])
    empty = client.ok("whetstone_parse_build_output", {"output": ""})
    assert empty == {"errors": [], "warning_count": 0, "error_count": 0}


@needs_parse
def test_suggest_build_fix_without_workspace(client: Client, gcc_output: str) -> None:
    """No sources to look at (missing AST): still ranked candidates and a manual fallback per error."""
    parsed = client.ok("whetstone_parse_build_output", {"output": gcc_output})
    error_ids = {e["error_id"] for e in parsed["errors"] if e["severity"] == "error"}
    out = client.ok("whetstone_suggest_build_fix", {"build_output": gcc_output})
    assert out["error_count"] == 2
    assert_candidates(out["candidates"], error_ids)
    assert client.ok("whetstone_suggest_build_fix", {"build_output": gcc_output}) == out
    empty = client.ok("whetstone_suggest_build_fix", {"build_output": ""})
    assert empty == {"candidates": [], "error_count": 0}


@needs_parse
@needs_gcc
def test_suggest_build_fix_focus_and_session(client: Client, tmp_path: Path) -> None:
    ws = c_project(tmp_path / "proj")
    (ws / "other.c").write_text("int f(void) { return undefined_thing; }\n")
    proc = subprocess.run("gcc -c main.c other.c", shell=True, cwd=ws, capture_output=True, text=True, check=False)
    sid = new_sid()
    out = client.ok("whetstone_suggest_build_fix", {
        "build_output": proc.stderr, "workspace": str(ws), "session_id": sid, "file": "main.c", "line": 5})
    assert out["error_count"] == 2
    assert out["candidates"] and all(c["target_id"] for c in out["candidates"])
    focused = {c["target_id"] for c in out["candidates"]}
    everything = client.ok("whetstone_suggest_build_fix", {"build_output": proc.stderr, "workspace": str(ws)})
    assert focused < {c["target_id"] for c in everything["candidates"]}
    # the candidates were recorded in the session (so apply can find them by id)
    recorded = [e for e in session_events(ws, sid) if e["event"] == "candidates"]
    assert {c["candidate_id"] for c in recorded[-1]["data"]["records"]} == {c["candidate_id"] for c in out["candidates"]}


# --------------------------------------------------------------------------- build: run iteration


@needs_parse
@needs_gcc
def test_run_build_iteration_fail_then_converge(client: Client, tmp_path: Path) -> None:
    ws = c_project(tmp_path / "proj")
    sid = new_sid()
    args = {"session_id": sid, "build_command": "make", "workspace": str(ws)}
    first = client.ok("whetstone_run_build_iteration", args)
    assert first["attempt_id"]
    assert first["error_count"] == 1
    assert first["session_status"] == "running"
    assert first["exit_code"] != 0 and first["timed_out"] is False
    assert first["failure"] == "compile-error"
    assert (first["status"], first["phase"], first["retry"]) == ("fail", "build", "fix-source")
    assert first["first_error"] == "main.c:" + first["first_error"].split(":")[-1]
    assert [(p["name"], p["status"]) for p in first["phases"]] == [("build", "fail")]
    events = session_events(ws, sid)
    errors = [e for e in events if e["event"] == "build_errors"][-1]["data"]["records"]
    assert_candidates(first["candidates"], {e["error_id"] for e in errors if e["severity"] == "error"})
    attempts = [e["data"]["attempt"] for e in events if e["event"] == "attempt"]
    assert attempts[-1]["attempt_id"] == first["attempt_id"] and attempts[-1]["outcome"] == "failure"
    assert attempts[-1]["gap_after"] == {"metric_type": "error_count", "current": 1, "target": 0}
    observation = [e["data"]["observation"] for e in events if e["event"] == "observation"][-1]
    assert "valeu" in observation["raw_text"]

    # deterministic shape: a second identical run gives the same keys, counts and candidates
    again = client.ok("whetstone_run_build_iteration", args)
    assert set(again) == set(first) and again["attempt_id"] != first["attempt_id"]
    assert again["error_count"] == first["error_count"]
    assert [c["candidate_id"] for c in again["candidates"]] == [c["candidate_id"] for c in first["candidates"]]

    (ws / "main.c").write_text(PROJECT_C_FIXED)
    done = client.ok("whetstone_run_build_iteration", args)
    assert done["error_count"] == 0 and done["exit_code"] == 0
    assert done["candidates"] == []
    assert done["session_status"] == "converged"
    last = [e["data"]["attempt"] for e in session_events(ws, sid) if e["event"] == "attempt"][-1]
    assert last["outcome"] == "success" and last["gap_after"]["current"] == 0


@needs_parse
def test_run_build_iteration_timeout_enforced(client: Client, tmp_path: Path) -> None:
    sid = new_sid()
    started = time.monotonic()
    out = client.ok("whetstone_run_build_iteration", {
        "session_id": sid, "build_command": "sleep 30", "workspace": str(tmp_path), "timeout_s": 1})
    assert time.monotonic() - started < 15
    assert out["timed_out"] is True and out["failure"] == "timeout"
    assert out["session_status"] != "converged"
    assert any(c["mutation_type"] == "manual" for c in out["candidates"])
    attempt = [e["data"]["attempt"] for e in session_events(tmp_path, sid) if e["event"] == "attempt"][-1]
    assert attempt["outcome"] == "timeout"


@needs_parse
def test_run_iteration_returns_candidates_reported_from_inside_the_command(client: Client, tmp_path: Path) -> None:
    """What the pytest plugin or ccwrap records into the session during the run comes back too."""
    (tmp_path / "reporter.py").write_text(NESTED_REPORTER)
    sid = new_sid()
    out = client.ok("whetstone_run_test_iteration", {
        "session_id": sid, "test_command": f"{sys.executable} reporter.py", "workspace": str(tmp_path)})
    top = out["candidates"][0]
    assert top["description"] == "validated by a nested reporter" and top["validated"] is True
    assert any(c["mutation_type"] == "manual" for c in out["candidates"][1:])


def test_default_timeout_is_120_seconds(client: Client) -> None:
    tools = {t.name: t for t in client.list_tools()}
    for name in ("whetstone_run_build_iteration", "whetstone_run_test_iteration"):
        assert tools[name].input_schema["properties"]["timeout_s"]["default"] == 120


def test_child_output_never_reaches_the_protocol_stream(tmp_path: Path) -> None:
    """Speak raw JSON-RPC: every line the server writes on stdout must be a protocol message."""
    version = handshake_version()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest_whetstone", "mcp"], cwd=tmp_path, env=server_env(),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "whetstone_run_build_iteration", "arguments": {
                "session_id": "raw", "workspace": str(tmp_path),
                "build_command": "echo LEAKED-TO-STDOUT; echo on-stderr >&2; printf 'x.c:1:1: error: boom\\n'; exit 2"}}},
    ]
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
        lines: list[str] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if json.loads(line).get("id") == 2:
                break
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert lines, proc.stderr.read() if proc.stderr else ""
    parsed = [json.loads(line) for line in lines]  # every line is JSON-RPC
    assert all(p.get("jsonrpc") == "2.0" for p in parsed)
    assert not any("LEAKED-TO-STDOUT" in line and '"id"' not in line for line in lines)
    response = parsed[-1]
    assert response["id"] == 2 and not response["result"].get("isError"), response
    assert response["result"]["structuredContent"]["exit_code"] == 2


# --------------------------------------------------------------------------- tests: parse, suggest, run


@needs_parse
def test_parse_test_output_counts(client: Client, pytest_output: str) -> None:
    out = client.ok("whetstone_parse_test_output", {"output": pytest_output, "runner": "pytest"})
    assert out["fail_count"] == 2 and out["pass_count"] == 1
    assert {f["test_name"] for f in out["failures"]} == {"test_add", "test_add_negative"}
    assert all(f["failure_type"] in FAILURE_TYPES for f in out["failures"])
    assert {f["failure_type"] for f in out["failures"]} == {"assertion"}
    assert client.ok("whetstone_parse_test_output", {"output": pytest_output}) == out  # auto, deterministic
    empty = client.ok("whetstone_parse_test_output", {"output": ""})
    assert empty == {"failures": [], "pass_count": 0, "fail_count": 0}
    as_gtest = client.ok("whetstone_parse_test_output", {"output": pytest_output, "runner": "gtest"})
    assert as_gtest["failures"] == [] and as_gtest["fail_count"] == 0


@needs_parse
def test_suggest_test_fix(client: Client, pytest_output: str, tmp_path: Path) -> None:
    parsed = client.ok("whetstone_parse_test_output", {"output": pytest_output})
    failure_ids = {f["failure_id"] for f in parsed["failures"]}
    bare = client.ok("whetstone_suggest_test_fix", {"test_output": pytest_output})  # no sources: graceful
    assert bare["fail_count"] == 2
    assert_candidates(bare["candidates"], failure_ids)
    ws = py_project(tmp_path / "py")
    located = client.ok("whetstone_suggest_test_fix", {"test_output": pytest_output, "workspace": str(ws)})
    assert located["fail_count"] == 2
    assert_candidates(located["candidates"], failure_ids)
    assert client.ok("whetstone_suggest_test_fix", {"test_output": pytest_output, "workspace": str(ws)}) == located


@needs_parse
def test_run_test_iteration_fail_then_converge(client: Client, tmp_path: Path) -> None:
    ws = py_project(tmp_path / "py")
    sid = new_sid()
    args = {"session_id": sid, "test_command": PYTEST_CMD, "workspace": str(ws)}
    first = client.ok("whetstone_run_test_iteration", args)
    assert first["attempt_id"] and first["fail_count"] == 2
    assert first["session_status"] == "running" and first["failure"] == "test-failure"
    assert any(c["mutation_type"] == "manual" for c in first["candidates"])
    attempts = [e["data"]["attempt"] for e in session_events(ws, sid) if e["event"] == "attempt"]
    assert attempts[-1]["gap_after"]["metric_type"] == "test_failure_count"
    assert attempts[-1]["gap_after"]["current"] == 2 and attempts[-1]["outcome"] == "failure"

    (ws / "calc.py").write_text(CALC_FIXED)
    done = client.ok("whetstone_run_test_iteration", args)
    assert set(done) == set(first)
    assert done["fail_count"] == 0 and done["candidates"] == []
    assert done["session_status"] == "converged"


@needs_parse
def test_run_test_iteration_timeout(client: Client, tmp_path: Path) -> None:
    out = client.ok("whetstone_run_test_iteration", {
        "session_id": new_sid(), "test_command": f"{sys.executable} -c 'import time; time.sleep(30)'",
        "workspace": str(tmp_path), "timeout_s": 1})
    assert out["timed_out"] is True and out["session_status"] != "converged"


# --------------------------------------------------------------------------- apply and report


@needs_parse
@needs_gcc
@needs_candidates
@needs_edits
def test_apply_top_candidate_then_build_passes(client: Client, tmp_path: Path) -> None:
    """Seed 1368 end to end: failing build -> apply the top candidate -> build again -> fewer errors."""
    ws = c_project(tmp_path / "proj")
    sid = new_sid()
    args = {"session_id": sid, "build_command": "make", "workspace": str(ws)}
    first = client.ok("whetstone_run_build_iteration", args)
    top = next(c for c in first["candidates"] if c["mutation_type"] != "manual")
    preview = client.ok("whetstone_apply_candidate", {
        "session_id": sid, "candidate_id": top["candidate_id"], "workspace": str(ws), "dry_run": True})
    assert preview["applied"] is False and "valeu" in preview["diff"]
    assert (ws / "main.c").read_text() == PROJECT_C_BROKEN
    applied = client.ok("whetstone_apply_candidate", {
        "session_id": sid, "candidate_id": top["candidate_id"], "workspace": str(ws)})
    assert applied["applied"] is True and applied["journal_id"]
    assert "valeu" not in (ws / "main.c").read_text()
    again = client.ok("whetstone_run_build_iteration", args)
    assert again["error_count"] < first["error_count"]
    assert again["session_status"] == "converged"


@needs_parse
@needs_candidates
@needs_edits
def test_apply_top_test_candidate_then_tests_pass(client: Client, tmp_path: Path) -> None:
    """Seed 1378 end to end: failing tests -> apply the top candidate -> run again -> fewer failures."""
    ws = tmp_path / "shapes"
    ws.mkdir()
    (ws / "shapes.py").write_text(SHAPES)
    (ws / "test_shapes.py").write_text(TEST_SHAPES)
    sid = new_sid()
    args = {"session_id": sid, "workspace": str(ws), "test_command": PYTEST_CMD.replace("test_calc.py", "test_shapes.py")}
    first = client.ok("whetstone_run_test_iteration", args)
    assert first["fail_count"] == 1
    top = first["candidates"][0]
    assert top["mutation_type"] != "manual" and top["edits"], first["candidates"]
    applied = client.ok("whetstone_apply_candidate", {
        "session_id": sid, "candidate_id": top["candidate_id"], "workspace": str(ws)})
    assert applied["applied"] is True and "import math" in applied["diff"]
    again = client.ok("whetstone_run_test_iteration", args)
    assert again["fail_count"] == 0 < first["fail_count"]
    assert again["session_status"] == "converged"


@needs_parse
@needs_gcc
@needs_edits
def test_apply_manual_candidate_is_refused(client: Client, tmp_path: Path) -> None:
    ws = c_project(tmp_path / "proj")
    sid = new_sid()
    first = client.ok("whetstone_run_build_iteration", {"session_id": sid, "build_command": "make", "workspace": str(ws)})
    manual = next(c for c in first["candidates"] if c["mutation_type"] == "manual")
    assert "manual" in client.error("whetstone_apply_candidate", {
        "session_id": sid, "candidate_id": manual["candidate_id"], "workspace": str(ws)})
    assert client.error("whetstone_apply_candidate", {
        "session_id": sid, "candidate_id": "Cdoesnotexist", "workspace": str(ws)})
    assert (ws / "main.c").read_text() == PROJECT_C_BROKEN


@needs_parse
@needs_gcc
@needs_report
def test_report_formats(client: Client, tmp_path: Path) -> None:
    ws = c_project(tmp_path / "proj")
    sid = new_sid()
    client.ok("whetstone_run_build_iteration", {"session_id": sid, "build_command": "make", "workspace": str(ws)})
    text = client.ok("whetstone_report", {"workspace": str(ws), "session_id": sid})["report"]
    assert "valeu" in text
    as_json = json.loads(client.ok("whetstone_report", {"workspace": str(ws), "format": "json"})["report"])
    assert as_json["session_id"] == sid and as_json["build_errors"]
    assert client.error("whetstone_report", {"workspace": str(ws), "format": "pdf"})
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no session" in client.error("whetstone_report", {"workspace": str(empty)})


# --------------------------------------------------------------------------- the feedback loop


@needs_parse
@needs_gcc
@needs_loop
def test_start_feedback_loop(client: Client, tmp_path: Path) -> None:
    ws = c_project(tmp_path / "proj")
    out = client.ok("whetstone_start_feedback_loop", {
        "goal": "the app builds", "goal_type": "build", "workspace": str(ws), "build_command": "make",
        "test_command": "./app", "max_attempts": 3})
    assert out["status"] == "pending" and out["session_id"]
    events = session_events(ws, out["session_id"])
    started = [e for e in events if e["event"] == "loop_started"]
    assert started, [e["event"] for e in events]
    stored = json.dumps(started[-1]["data"])
    assert '"make"' in stored and "./app" in stored
    again = client.ok("whetstone_start_feedback_loop", {
        "goal": "the app builds", "goal_type": "build", "workspace": str(ws), "build_command": "make"})
    assert set(again) == set(out) and again["session_id"] != out["session_id"]
    assert "does not exist" in client.error("whetstone_start_feedback_loop", {
        "goal": "g", "goal_type": "build", "workspace": str(tmp_path / "missing"), "build_command": "make"})
    assert client.error("whetstone_start_feedback_loop", {
        "goal": "g", "goal_type": "build", "workspace": str(ws)})  # no command at all


@needs_parse
@needs_gcc
@needs_loop
@needs_candidates
@needs_edits
def test_step_and_run_feedback_loop_converge(client: Client, tmp_path: Path) -> None:
    """Seed 1398 end to end: start -> step (probe, build iteration with candidates) -> run -> converged."""
    ws = c_project(tmp_path / "proj")
    start = client.ok("whetstone_start_feedback_loop", {
        "goal": "the app builds", "goal_type": "build", "workspace": str(ws), "build_command": "make",
        "max_attempts": 4})
    sid = start["session_id"]
    steps = [client.ok("whetstone_step_feedback_loop", {"session_id": sid}) for _ in range(2)]
    for step in steps:
        assert step["action_taken"] and step["session_status"] in ("pending", "running")
        assert set(step["gap"]) == {"metric_type", "current", "target"}
    build_step = steps[-1]
    assert build_step["action_taken"] == "build_iteration"
    assert build_step["gap"] == {"metric_type": "error_count", "current": 1, "target": 0}
    assert build_step["candidates"][0]["mutation_type"] != "manual"  # the loop has something to apply
    assert any(c["mutation_type"] == "manual" for c in build_step["candidates"])
    assert "escalation" not in build_step

    progress: list[tuple[float, str]] = []
    done = client.ok(
        "whetstone_run_feedback_loop", {"session_id": sid, "include_audit": True, "max_wall_seconds": 60}, progress
    )
    assert done["final_status"] == "converged", done
    # one progress notification per step the run took, numbered by step, naming the action
    assert len(progress) == done["steps_taken"]
    assert [p[0] for p in progress] == [float(len(steps) + i + 1) for i in range(done["steps_taken"])]
    assert "converged" in progress[-1][1]
    assert done["final_gap"]["current"] == 0
    assert "escalation" not in done
    assert done["steps_taken"] >= 1
    audit = done["audit_log"]
    assert len(audit) == done["steps_taken"] + len(steps)  # one audit entry per step, stepped or run
    assert [a["step_index"] for a in audit] == list(range(len(audit)))
    assert audit[-1]["session_status_after"] == "converged"
    assert "valeu" not in (ws / "main.c").read_text()
    assert "converged" in client.error("whetstone_step_feedback_loop", {"session_id": sid})
    # a finished loop answers run with its final state and no new steps
    again = client.ok("whetstone_run_feedback_loop", {"session_id": sid})
    assert again["final_status"] == "converged" and again["steps_taken"] == 0 and "audit_log" not in again


@needs_parse
@needs_gcc
@needs_loop
def test_feedback_loop_escalates(client: Client, tmp_path: Path) -> None:
    start = {"goal": "builds", "goal_type": "build", "build_command": "make", "max_attempts": 2}
    ws = stuck_project(tmp_path / "stepped")
    sid = client.ok("whetstone_start_feedback_loop", {**start, "workspace": str(ws)})["session_id"]
    steps: list[dict[str, Any]] = []
    for _ in range(10):  # bounded: the policy must end a hopeless loop well before this
        steps.append(client.ok("whetstone_step_feedback_loop", {"session_id": sid}))
        if steps[-1]["session_status"] in ("converged", "escalated"):
            break
    assert steps[-1]["session_status"] == "escalated"
    assert steps[-1]["escalation"]["escalation_reason"]
    assert steps[-1]["escalation"]["recommended_next_step"]
    assert all("escalation" not in s for s in steps[:-1])
    assert "escalated" in client.error("whetstone_step_feedback_loop", {"session_id": sid, "workspace": str(ws)})

    ws2 = stuck_project(tmp_path / "run")
    sid2 = client.ok("whetstone_start_feedback_loop", {**start, "workspace": str(ws2)})["session_id"]
    done = client.ok("whetstone_run_feedback_loop", {"session_id": sid2, "max_wall_seconds": 60})
    assert done["final_status"] == "escalated", done
    assert done["escalation"]["escalation_reason"] and done["escalation"]["session_id"] == sid2
    assert done["steps_taken"] <= len(steps) + 1
    assert "audit_log" not in done
    assert set(done) == {"final_status", "steps_taken", "final_gap", "escalation"}


@needs_parse
@needs_loop
def test_run_feedback_loop_respects_wall_time(client: Client, tmp_path: Path) -> None:
    sid = client.ok("whetstone_start_feedback_loop", {
        "goal": "tests pass", "goal_type": "test", "workspace": str(tmp_path),
        "test_command": "sleep 20"})["session_id"]
    started = time.monotonic()
    done = client.ok("whetstone_run_feedback_loop", {"session_id": sid, "max_wall_seconds": 2})
    assert time.monotonic() - started < 15
    assert done["final_status"] in ("escalated", "running", "pending")
    assert done["final_status"] != "converged"


@needs_parse
def test_whetstone_run_returns_exactly_the_verdict_block(client: Client, tmp_path: Path) -> None:
    ws = c_project(tmp_path / "proj")
    out = client.ok("whetstone_run", {"command": "make", "workspace": str(ws), "phase": "build"})
    proc = subprocess.run([sys.executable, "-m", "pytest_whetstone", "run", "--phase", "build", "--", "make"],
                          cwd=ws, capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in os.environ.items() if not k.startswith("WHETSTONE_")})
    block = parse_last(proc.stdout)
    assert block is not None
    keys = ("status", "failure", "phase", "first_error", "retry", "target")
    assert {k: out["verdict"][k] for k in keys} == {k: getattr(block, k) for k in keys}
    assert out["verdict"]["failure"] == "compile-error" and out["exit_code"] == proc.returncode != 0
    assert out["build_errors"] and out["candidates"] and out["phases"][0]["name"] == "build"
