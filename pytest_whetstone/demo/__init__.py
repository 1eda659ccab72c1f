"""``whetstone demo``: the whole story on example projects shipped inside the package.

The examples are copied to a temporary directory (the package is never
touched). The C half builds a small library with ``CC=ccwrap make`` (it fails:
a missing header, a misspelled identifier, a missing ``-lm``), shows the report,
then lets ``whetstone fix`` converge. The Python half runs ``pytest -p whetstone``
on a package with a NameError and an off-by-one, shows the suspects and
candidates, then lets the loop converge. It ends with the verdict.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..records import Verdict
from ..verdict import emit, make_verdict

HERE = Path(__file__).resolve().parent


def _say(text: str) -> None:
    sys.stdout.write(f"\n\033[1m== {text}\033[0m\n" if sys.stdout.isatty() else f"\n== {text}\n")
    sys.stdout.flush()


def _whetstone() -> list[str]:
    return [sys.executable, "-m", "pytest_whetstone"]


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> int:
    sys.stdout.write("$ " + " ".join(cmd[2:] if cmd[:3] == _whetstone() else cmd) + "\n")
    sys.stdout.flush()
    return subprocess.call(cmd, cwd=str(cwd), env=env)


def _compiler() -> str | None:
    """ccwrap when installed, else the plain compiler (the story still works, minus capture at source)."""
    for name in ("ccwrap",):
        if shutil.which(name):
            return name
    return None


def run_demo(keep: bool = False) -> int:
    missing = [tool for tool in ("make",) if shutil.which(tool) is None]
    has_cc = any(shutil.which(c) for c in ("cc", "gcc", "clang"))
    workdir = Path(tempfile.mkdtemp(prefix="whetstone-demo-"))
    results: list[tuple[str, int]] = []
    try:
        if missing or not has_cc:
            need = ", ".join(missing + ([] if has_cc else ["a C compiler (gcc or clang)"]))
            sys.stdout.write(f"whetstone demo: skipping the C half: {need} not found on PATH\n")
        else:
            results.append(("build", _c_half(workdir)))
        results.append(("tests", _python_half(workdir)))
    finally:
        if keep:
            sys.stdout.write(f"\nthe example projects are kept in {workdir}\n")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    failed = [name for name, code in results if code != 0]
    verdict: Verdict = make_verdict(
        "whetstone demo",
        None if not failed else ("compile-error" if failed[0] == "build" else "test-failure"),
        phase=failed[0] if failed else "tests",
        counts={"phases": len(results), "converged": len(results) - len(failed)},
    )
    _say("demo finished: " + ("every example converged" if not failed else f"not converged: {failed}"))
    emit(verdict, force=True)
    return 0 if not failed else 1


def _env(workdir: Path, name: str) -> dict[str, str]:
    env = dict(os.environ)
    for key in ("WHETSTONE_SESSION", "WHETSTONE_NESTED", "WHETSTONE_DIR"):
        env.pop(key, None)
    env["WHETSTONE_DIR"] = str(workdir / name / ".whetstone")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _c_half(workdir: Path) -> int:
    project = workdir / "cproject"
    shutil.copytree(HERE / "cproject", project)
    env = _env(workdir, "cproject")
    cc = _compiler() or "cc"
    build = f"make CC={cc}"
    _say(f"C: building with {build} (it fails)")
    _run([*_whetstone(), "run", "--phase", "build", "--", "make", f"CC={cc}"], project, env)
    _say("C: the report")
    _run([*_whetstone(), "report"], project, env)
    _say("C: the loop fixes it")
    code = _run([*_whetstone(), "fix", "--build", build, "--max-attempts", "8"], project, env)
    if code == 0:
        _say("C: the fixed program runs")
        _run(["./stats"], project, env)
    return code


def _python_half(workdir: Path) -> int:
    project = workdir / "pyproject"
    shutil.copytree(HERE / "pyproject", project)
    env = _env(workdir, "pyproject")
    test = f"{sys.executable} -m pytest -p whetstone -q"
    _say("Python: pytest -p whetstone (it fails)")
    _run([sys.executable, "-m", "pytest", "-p", "whetstone", "-q"], project, env)
    _say("Python: the loop fixes it")
    return _run([*_whetstone(), "fix", "--test", test, "--max-attempts", "8"], project, env)
