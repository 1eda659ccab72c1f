"""`whetstone run`: real commands, streamed output, recorded attempts, the verdict last."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_whetstone.store.sessions import load_session
from pytest_whetstone.verdict import BEGIN, END, parse_last

WHETSTONE = [sys.executable, "-m", "pytest_whetstone"]


def run(args: list[str], cwd: Path, **env_extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHETSTONE_")}
    env.update(env_extra)
    return subprocess.run([*WHETSTONE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


def test_passing_command_passes_and_verdict_is_last(project: Path) -> None:
    proc = run(["run", "--", sys.executable, "-c", "print('hello')"], project)
    assert proc.returncode == 0
    assert proc.stdout.startswith("hello\n")
    assert proc.stdout.rstrip("\n").splitlines()[-1] == END
    verdict = parse_last(proc.stdout)
    assert verdict is not None and verdict.status == "pass" and verdict.failure is None


def test_exit_status_is_the_commands(project: Path) -> None:
    proc = run(["run", "--", sys.executable, "-c", "import sys; sys.exit(3)"], project)
    assert proc.returncode == 3
    verdict = parse_last(proc.stdout)
    assert verdict is not None and verdict.status == "fail"


def test_compile_error_is_recorded_and_pointed_at(project: Path) -> None:
    (project / "bad.c").write_text("int main(void) {\n    return undefined_thing;\n}\n")
    proc = run(["run", "--phase", "build", "--", "gcc", "-c", "bad.c", "-o", "bad.o"], project)
    assert proc.returncode == 1
    assert "undefined_thing" in proc.stderr  # the compiler's own output streams through unchanged
    verdict = parse_last(proc.stdout)
    assert verdict is not None
    assert (verdict.failure, verdict.phase, verdict.retry) == ("compile-error", "build", "fix-source")
    assert verdict.first_error == "bad.c:2"
    session = load_session(project / ".whetstone")
    state = session.state()
    assert [e.error_type for e in state.failing_errors()] == ["undefined_symbol"]
    assert state.attempts[-1].gap_after is not None and state.attempts[-1].gap_after.current == 1


def test_missing_command_is_setup_error(project: Path) -> None:
    proc = run(["run", "--", "definitely-not-a-command-xyz"], project)
    assert proc.returncode == 127
    verdict = parse_last(proc.stdout)
    assert verdict is not None and verdict.failure == "setup-error" and verdict.retry == "fix-env"


def test_timeout_kills_the_process_group(project: Path) -> None:
    proc = run(["run", "--timeout", "1", "--shell", "--", "sleep 30 & sleep 30; wait"], project)
    verdict = parse_last(proc.stdout)
    assert verdict is not None and verdict.failure == "timeout"
    assert proc.returncode == 124


def test_oom_marker_reports_oom(project: Path) -> None:
    code = "import sys; sys.stderr.write('cc1: out of memory allocating 65536 bytes\\n'); sys.exit(1)"
    proc = run(["run", "--", sys.executable, "-c", code], project)
    verdict = parse_last(proc.stdout)
    assert verdict is not None and verdict.failure == "oom" and verdict.retry == "escalate"


def test_nested_run_reports_into_outer_without_its_own_sentinel(project: Path) -> None:
    inner = f"{sys.executable} -m pytest_whetstone run --phase inner -- {sys.executable} -c 'print(1)'"
    proc = run(["run", "--shell", "--", inner], project)
    assert proc.stdout.count(BEGIN) == 1
    state = load_session(project / ".whetstone").state()
    assert sorted(a.phase for a in state.attempts) == ["inner", "run"]


def test_usage_errors_exit_2(project: Path) -> None:
    assert run(["run"], project).returncode == 2
    assert run(["run", "--timeout", "0", "--", "true"], project).returncode == 2
    assert run(["parse", "no-such-file.log"], project).returncode == 2
    proc = run(["parse", "--tool", "nope", "-"], project)
    assert proc.returncode == 2


def test_parse_command_prints_json(project: Path) -> None:
    log = project / "b.log"
    log.write_text("x.c:1:2: error: expected ';' before '}' token\n")
    proc = run(["parse", str(log)], project)
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert data["error_count"] == 1 and data["build_errors"][0]["error_type"] == "syntax_error"


def test_ccwrap_under_run_reports_each_diagnostic_once(project: Path) -> None:
    import shutil

    ccwrap = Path(sys.executable).with_name("ccwrap")
    if not ccwrap.exists():
        ccwrap_path = shutil.which("ccwrap")
        if ccwrap_path is None:
            pytest.skip("ccwrap is not installed")
        ccwrap = Path(ccwrap_path)
    src = project / "src"
    src.mkdir()
    (src / "a.c").write_text("int a(void) { return missing_a; }\n")
    (src / "b.c").write_text("int b(void) { return 0 }\n")
    (project / "Makefile").write_text(
        "all: src/a.o src/b.o\n\nsrc/%.o: src/%.c\n\t$(CC) -c $< -o $@\n"
    )
    proc = run(["run", "--phase", "build", "--", "make", "-k", "-j2", f"CC={ccwrap}"], project)
    assert proc.returncode != 0
    state = load_session(project / ".whetstone").state()
    failing = state.failing_errors()
    assert sorted((e.file_path, e.line) for e in failing) == [("src/a.c", 1), ("src/b.c", 1)]
    verdict = parse_last(proc.stdout)
    assert verdict is not None and verdict.counts["errors"] == 2


def test_the_summary_names_a_test_without_a_stray_separator(project: Path) -> None:
    """A ctest list names each test whole, with no suite of its own; gtest's own lines give both."""
    log = Path(__file__).parent / "fixtures" / "tests" / "ctest" / "not_run.log"
    proc = run(["run", "--", "sh", "-c", f"cat {log}; exit 8"], project)
    summary = proc.stderr[proc.stderr.index("whetstone: "):]
    assert ": ." not in summary, summary
    log = Path(__file__).parent / "fixtures" / "tests" / "ctest" / "discovered.log"
    proc = run(["run", "--", "sh", "-c", f"cat {log}; exit 8"], project)
    summary = proc.stderr[proc.stderr.index("whetstone: "):]
    assert "  assertion: TypedAdd/0.Sum expected '20' got '21'" in summary, summary
