"""`whetstone fix` end to end on real toolchains: make + gcc (through ccwrap when installed), pytest.

Converges on real fixable faults, escalates correctly (manual-only, worsening,
max attempts, requirements gap), and leaves whole edits only when killed mid-step.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_whetstone.orchestrate.loop import FeedbackLoopOrchestrator, run_phase, start_loop
from pytest_whetstone.records import FixCandidate, Position, TextEdit
from pytest_whetstone.store.sessions import find_store, load_session
from pytest_whetstone.verdict import BEGIN, parse_last

pytestmark = pytest.mark.skipif(not shutil.which("make") or not shutil.which("gcc"), reason="needs make and gcc")

CC = "ccwrap" if shutil.which("ccwrap") else "gcc"

CALC = """#include <stdio.h>

int sum_to(int n) {
    int total = 0;
    for (int i = 1; i <= n; i++) {
        totl += i;
    }
    return total;
}

int main(void) {
    bool ok = sum_to(4) == 10;
    printf("%d\\n", ok);
    return ok ? 0 : 1;
}
"""
MAKEFILE = """calc: calc.c
\t$(CC) -Wall -o calc calc.c
test: calc
\t@touch tests-started
\t@sleep $${SLOW:-0}
\t./calc
.PHONY: test
"""
FIXED = CALC.replace("#include <stdio.h>\n", "#include <stdio.h>\n#include <stdbool.h>\n").replace("totl +=", "total +=")


def _c_project(root: Path, source: str = CALC) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / ".git").mkdir()
    (root / "calc.c").write_text(source)
    (root / "Makefile").write_text(MAKEFILE)
    return root


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHETSTONE_")}
    env.update(extra)
    return env


def _fix(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest_whetstone", "fix", *args], cwd=cwd, env=_env(**env),
                          capture_output=True, text=True, timeout=240)


def _build_args() -> list[str]:
    return ["--build", f"make CC={CC}", "--test", "make test"]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_c_missing_include_and_misspelled_identifier_converge(tmp_path: Path) -> None:
    ws = _c_project(tmp_path / "c")
    proc = _fix(ws, *_build_args())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (ws / "calc.c").read_text() == FIXED
    assert proc.stdout.rstrip().endswith("===END-WHETSTONE-RESULT===")
    assert proc.stdout.count(BEGIN) == 1
    verdict = parse_last(proc.stdout)
    assert verdict is not None and verdict.status == "pass" and verdict.counts["kept"] == 2
    assert subprocess.run(["./calc"], cwd=ws).returncode == 0
    # the audit trail holds one entry per step, and the session agrees
    audits = list((ws / ".whetstone" / "audits").glob("*.jsonl"))
    assert len(audits) == 1
    rows = [json.loads(line) for line in audits[0].read_text().splitlines()]
    assert rows[-1]["session_status_after"] == "converged" and rows[0]["action_type"] == "probe_environment"


@pytest.mark.slow  # three pytest runs with the plugin's bounded search (~20 s each)
@pytest.mark.whetstone_search
def test_python_name_error_and_off_by_one_converge(tmp_path: Path) -> None:
    ws = tmp_path / "py"
    (ws / "mathx").mkdir(parents=True)
    (ws / "tests").mkdir()
    (ws / ".git").mkdir()
    (ws / "pyproject.toml").write_text('[project]\nname = "mathx"\nversion = "0"\n')
    (ws / "mathx" / "__init__.py").write_text(
        "def area(r):\n    return math.pi * r * r\n\n\ndef count_up(n):\n    return list(range(1, n))\n")
    (ws / "tests" / "test_mathx.py").write_text(
        "import pytest\n\nfrom mathx import area, count_up\n\n\ndef test_area():\n"
        "    assert area(1) == pytest.approx(3.14159, rel=1e-4)\n\n\ndef test_count_up():\n"
        "    assert count_up(3) == [1, 2, 3]\n")
    proc = _fix(ws, "--test", f"{sys.executable} -m pytest -q -p no:cacheprovider -p whetstone tests",
                PYTHONPATH=str(ws) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    source = (ws / "mathx" / "__init__.py").read_text()
    assert "import math" in source and "range(1, n + 1)" in source.replace("n+1", "n + 1")


def test_manual_only_escalates(tmp_path: Path) -> None:
    ws = _c_project(tmp_path / "m", CALC.replace("int sum_to", '#error "configure the project first"\nint sum_to'))
    before = _sha(ws / "calc.c")
    proc = _fix(ws, *_build_args())
    assert proc.returncode == 1
    assert "escalated (manual_required)" in proc.stdout or "escalated (all_auto_tried)" in proc.stdout
    verdict = parse_last(proc.stdout)
    assert verdict is not None and verdict.failure == "compile-error" and verdict.phase == "build"
    assert "next: Fix calc.c:" in proc.stdout
    assert _sha(ws / "calc.c") != before or "attempt" not in proc.stdout  # either something kept, or untouched


def test_max_attempts_escalates_and_keeps_the_improvement(tmp_path: Path) -> None:
    ws = _c_project(tmp_path / "a")
    proc = _fix(ws, *_build_args(), "--max-attempts", "1")
    assert proc.returncode == 1 and "escalated (max_attempts)" in proc.stdout
    text = (ws / "calc.c").read_text()
    assert text.count("#include") == 2 and "totl +=" in text  # the first fix kept, nothing half-done
    assert parse_last(proc.stdout).phase == "build"  # type: ignore[union-attr]


def test_requirements_gap_escalates_with_setup_script(tmp_path: Path) -> None:
    ws = _c_project(tmp_path / "r", "#include <zzwhetstone_missing.h>\n" + CALC)
    proc = _fix(ws, *_build_args())
    assert proc.returncode == 1 and "escalated (infra_gap)" in proc.stdout, proc.stdout
    scripts = list((ws / ".whetstone" / "setup").glob("*.sh"))
    assert len(scripts) == 1 and "zzwhetstone_missing.h" in scripts[0].read_text()
    assert scripts[0].name in proc.stdout
    verdict = parse_last(proc.stdout)
    assert verdict is not None and verdict.failure == "setup-error" and verdict.retry == "fix-env"


def test_missing_python_dependency_is_a_gap_before_any_build(tmp_path: Path) -> None:
    ws = _c_project(tmp_path / "d")
    (ws / "requirements.txt").write_text("zz-whetstone-not-a-real-package>=1\n")
    proc = _fix(ws, *_build_args())
    assert proc.returncode == 1 and "escalated (infra_gap)" in proc.stdout
    assert "pip install 'zz-whetstone-not-a-real-package>=1'" in next((ws / ".whetstone" / "setup").glob("*.sh")).read_text()
    assert _sha(ws / "calc.c") == hashlib.sha256(CALC.encode()).hexdigest()  # nothing was built or edited


def test_worsening_edits_are_reverted_and_escalate(tmp_path: Path) -> None:
    """A generator that proposes harmful edits: the real build judges them, the engine reverts them.
    (Plain gcc: no recorded commands, so no per-file gate refuses them first.)"""
    ws = _c_project(tmp_path / "w")
    original = _sha(ws / "calc.c")
    store = find_store(ws)
    sid = start_loop(store, build="make CC=gcc", test="make test", cwd=ws).session_id

    def bad_generator(phase, session, timeout, cwd, **_kw):  # type: ignore[no-untyped-def]
        out = run_phase(phase, session, timeout, cwd)
        errors = session.state().failing_errors()
        if errors:
            bad = [FixCandidate(target_id=errors[0].error_id, description=f"harmful edit {n}", confidence=0.99,
                                mutation_type="insertNode", source="heuristic",
                                edits=[TextEdit("calc.c", Position(3, 1), Position(3, 1), f"int x{n} = y{n} z;\n")])
                   .ensure_id() for n in range(3)]
            session.append("candidates", {"records": [c.to_dict() for c in bad]})
        return out

    result = FeedbackLoopOrchestrator(store, runner=bad_generator).run_to_completion(sid, 120)
    assert result.escalation is not None and result.escalation.escalation_reason == "worsening_trend"
    assert [s.outcome for s in result.escalation.attempts_summary] == ["reverted_worse", "reverted_worse"]
    assert _sha(ws / "calc.c") == original


@pytest.mark.skipif(CC != "ccwrap", reason="the gate needs the commands ccwrap records")
def test_the_per_file_gate_refuses_harmful_edits_without_a_build(tmp_path: Path) -> None:
    """Built through ccwrap, the loop re-checks each C edit with its recorded command before writing it."""
    ws = _c_project(tmp_path / "g")
    original = _sha(ws / "calc.c")
    store = find_store(ws)
    sid = start_loop(store, build=f"make CC={CC}", test="make test", cwd=ws).session_id
    builds = []

    def bad_then_good(phase, session, timeout, cwd, **_kw):  # type: ignore[no-untyped-def]
        builds.append(phase.name)
        out = run_phase(phase, session, timeout, cwd)
        errors = session.state().failing_errors()
        if errors and len(builds) == 1:
            # claimed as validated, so they outrank the real fixes: only the gate stands in their way
            bad = [FixCandidate(target_id=errors[0].error_id, description=f"harmful edit {n}", confidence=0.99,
                                mutation_type="insertNode", source="heuristic", validated=True,
                                edits=[TextEdit("calc.c", Position(3, 1), Position(3, 1), f"int x{n} = y{n} z;\n")])
                   .ensure_id() for n in range(3)]
            session.append("candidates", {"records": [c.to_dict() for c in bad]})
        return out

    result = FeedbackLoopOrchestrator(store, runner=bad_then_good).run_to_completion(sid, 180)
    events = load_session(store, sid).events()
    refused = [e["data"] for e in events if e["event"] == "loop_skipped" and e["data"].get("by") == "gate"]
    assert len(refused) == 3 and all("per-file gate" in r["reason"] for r in refused)
    assert not [e for e in events if e["event"] == "reverted"]  # nothing harmful was ever written
    assert result.final_status == "converged" and _sha(ws / "calc.c") != original


LINT_ONLY = """#include <stdio.h>

static int add(int a, int b, int unused_param) {
    int tmp = 3;
    return a + b;
}

int main(void) {
    unsigned n = 3;
    int i;
    for (i = 0; i < n; i++)
        printf("%d\\n", add(i, 1, 0));
    return 0;
}
"""
WERROR_MAKEFILE = "t: t.c\n\t$(CC) -Wall -Wextra -Werror -o t t.c\n"


@pytest.mark.parametrize("compiler", sorted({"gcc", CC}))
def test_werror_lint_only_build_converges_and_runs_the_binary_it_builds(tmp_path: Path, compiler: str) -> None:
    """Only -Werror'd lint fails the build; `--test ./t` names a binary the build makes (not a gap)."""
    root = tmp_path / "p"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "t.c").write_text(LINT_ONLY)
    (root / "Makefile").write_text(WERROR_MAKEFILE)
    proc = _fix(root, "--build", f"make CC={compiler}", "--test", "./t", "--max-wall", "120")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "without a diagnostic" not in proc.stdout and "infra_gap" not in proc.stdout
    assert parse_last(proc.stdout).status == "pass"
    fixed = (root / "t.c").read_text()
    assert "(void)unused_param;" in fixed or "__attribute__((unused))" in fixed
    assert "int tmp = 3;" not in fixed or "(void)tmp;" in fixed
    clean = subprocess.run(["gcc", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "t.c"], cwd=root,
                           capture_output=True, text=True)
    assert clean.returncode == 0, clean.stderr
    if compiler == "ccwrap":  # the command is recorded: every kept fix was checked by the compiler first
        assert proc.stdout.count("validated") >= 3, proc.stdout


def test_wall_time_spent_escalates_max_wall_with_the_measured_gap(tmp_path: Path) -> None:
    """A phase the wall-time budget cuts short measured nothing: max_wall, the last real gap, a pasteable next."""
    root = _c_project(tmp_path / "p", CALC)
    (root / "Makefile").write_text(MAKEFILE.replace("\t@sleep $${SLOW:-0}\n", "\t@sleep 60\n"))
    proc = _fix(root, "--build", f"make CC={CC}", "--test", "make test", "--max-wall", "8")
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "escalated (max_wall)" in out, out
    assert "all_auto_tried" not in out and "1000000" not in out
    gap = next(line for line in out.splitlines() if line.strip().startswith("gap left:"))
    assert gap.strip() in ("gap left: 1 (error_count)", "gap left: 0 (error_count)", "gap left: 2 (error_count)"), out
    nxt = next(line for line in out.splitlines() if line.strip().startswith("next:"))
    assert f"`whetstone fix --build 'make CC={CC}' --test 'make test' --max-wall 60`" in nxt, nxt


def _session_attempts(root: Path, out: str) -> tuple[str, list[tuple[str, str]]]:
    from pytest_whetstone.orchestrate.state import loop_fold
    from pytest_whetstone.store.sessions import load_session

    sid = next(line.split()[-1] for line in out.splitlines() if line.startswith("whetstone fix: session "))
    state = loop_fold(load_session(root / ".whetstone", sid).events())
    return sid, [(a.fingerprint, a.status) for a in state.attempts]


def test_the_same_fault_twice_starts_from_what_the_first_run_kept(tmp_path: Path) -> None:
    """Real make + gcc: the second `whetstone fix` applies first what the first kept, and shows the memory."""
    root = tmp_path / "p"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "t.c").write_text(LINT_ONLY)
    (root / "Makefile").write_text(WERROR_MAKEFILE)
    first = _fix(root, "--build", "make CC=gcc", "--test", "./t")
    assert first.returncode == 0, first.stdout
    _, tried_first = _session_attempts(root, first.stdout)
    kept = [f for f, status in tried_first if status == "kept"]
    reverted = {f for f, status in tried_first if status != "kept"}
    (root / "t.c").write_text(LINT_ONLY)  # the same fault, seeded again
    second = _fix(root, "--build", "make CC=gcc", "--test", "./t")
    assert second.returncode == 0, second.stdout
    sid, tried_second = _session_attempts(root, second.stdout)
    assert tried_second[0][0] == kept[0]  # the first application is the fix that worked first
    assert not reverted & {f for f, _ in tried_second}
    assert "fix(es) that worked before (earlier sessions in this workspace)" in second.stdout
    status = subprocess.run([sys.executable, "-m", "pytest_whetstone", "status", sid], cwd=root, env=_env(),
                            capture_output=True, text=True, timeout=60)
    memory = json.loads(status.stdout)["loop"]["memory"]
    assert memory["fixes_that_worked"] >= 3 and memory["carried_over"]
