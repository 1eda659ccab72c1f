#!/usr/bin/env python3
"""Does a log read the same whichever way its two streams were interleaved?

``whetstone run`` and CI runners read a command's stdout and stderr through two pipes; the order in
which lines of the two streams reach the log is not the order the tool wrote them.  Each run here is
a real command (cmake configure errors, make and ninja builds with a compile fault, ``make test``
over a gtest binary, ctest with failing tests, gtest binaries that crash, ``node --test``, Jest, and a
sample of bench/crosscheck_builds.py's builds: links, LTO, CMake, libtool, pip), run ONCE
with both streams read through a selector, each line remembered with its stream.  Four logs are
parsed from it:

* ``arrival``: the lines in the order they arrived (what one reader of both pipes sees);
* ``stdout_first`` / ``stderr_first``: one stream whole, then the other;
* ``random0``...: seeded interleaves (``--randoms``) that keep each stream's own line order.

Counts (errors, warnings, failed / passed / skipped tests) and record sets (tool, severity, file,
line, test name) of the four must agree; every disagreement is listed.

Usage: python bench/crosscheck_streams.py [--max-minutes 10] [--only NAME,...] [--seed 0] [--randoms 5] [--builds 24]
                                          [--save DIR] [--replay DIR] [--write bench/results/crosscheck_streams.md]

``--save DIR`` keeps each run's streams and arrival order; ``--replay DIR`` parses them again (another
parser, the same bytes) without running anything.
"""

from __future__ import annotations

import argparse
import os
import random
import selectors
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

sys.path.insert(0, str(HERE))

from crosscheck_builds import (  # noqa: E402
    ALL_SHAPES,
    BuildJob,
    code_bases,
    job_root,
    plan,
    prepare_build,
    seeded,
    shape_jobs,
)

from pytest_whetstone.parse import parse_text  # noqa: E402
from pytest_whetstone.parse.base import ParseResult  # noqa: E402

SCRATCH = Path("/tmp/whetstone-crosscheck-streams")
GTEST_SRC = HERE.parent / "tests" / "fixtures" / "tests" / "src" / "gtest"
JEST_SRC = HERE.parent / "tests" / "fixtures" / "native_projects" / "jest_cart"
ENV = dict(os.environ, LC_ALL="C", LANG="C", TERM="dumb", NO_COLOR="1", CLICOLOR="0")
Line = tuple[str, str]  # (stream, text with its newline)


# --------------------------------------------------------------------------- capturing


def run_split(cmd: str, cwd: Path, timeout: float = 300, env: dict[str, str] | None = None) -> list[Line]:
    """Run ``cmd`` once; its lines in arrival order, each with the stream it came on."""
    proc = subprocess.Popen(["sh", "-c", cmd], cwd=cwd, env=env or ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    assert proc.stdout is not None and proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "stdout")
    sel.register(proc.stderr, selectors.EVENT_READ, "stderr")
    partial = {"stdout": b"", "stderr": b""}
    lines: list[Line] = []
    deadline = time.monotonic() + timeout
    while sel.get_map() and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=1):
            name = key.data
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                if partial[name]:
                    lines.append((name, partial[name].decode("utf-8", "replace") + "\n"))
                continue
            *whole, partial[name] = (partial[name] + chunk).split(b"\n")
            lines.extend((name, w.decode("utf-8", "replace") + "\n") for w in whole)
    proc.kill()
    proc.wait()
    return lines


def random_interleave(out: list[str], err: list[str], rng: random.Random) -> str:
    """The two streams' lines in a random order that keeps each stream's own."""
    picks = ["stdout"] * len(out) + ["stderr"] * len(err)
    rng.shuffle(picks)
    queues = {"stdout": iter(out), "stderr": iter(err)}
    return "".join(next(queues[p]) for p in picks)


def interleaves(lines: list[Line], seed: int, randoms: int = 5) -> dict[str, str]:
    """The logs of one run (module docstring): arrival order, each stream first, ``randoms`` random ones."""
    out = [t for s, t in lines if s == "stdout"]
    err = [t for s, t in lines if s == "stderr"]
    logs = {"arrival": "".join(t for _, t in lines), "stdout_first": "".join(out + err), "stderr_first": "".join(err + out)}
    rng = random.Random(seed)
    for k in range(randoms):
        logs[f"random{k}"] = random_interleave(out, err, rng)
    return logs


def summary(result: ParseResult) -> tuple[dict[str, int], set[tuple[object, ...]]]:
    counts = {"errors": result.reported_error_count, "warnings": result.warning_count,
              "failed": result.fail_count, "passed": result.pass_count, "skipped": result.skip_count}
    records: set[tuple[object, ...]] = {(r.tool, r.severity, r.file_path, r.line) for r in result.build_errors}
    records |= {(r.runner, "test", r.test_suite, r.test_name) for r in result.test_failures}
    return counts, records


def disagreements(logs: dict[str, str]) -> list[str]:
    """How each interleave's parse differs from the arrival order's."""
    base_counts, base_records = summary(parse_text(logs["arrival"], "auto"))
    problems: list[str] = []
    for name, text in logs.items():
        if name == "arrival":
            continue
        counts, records = summary(parse_text(text, "auto"))
        for key, value in counts.items():
            if value != base_counts[key]:
                problems.append(f"{name}: {key} {value} (arrival {base_counts[key]})")
        for rec in sorted(records - base_records, key=str):
            problems.append(f"{name}: extra record {rec}")
        for rec in sorted(base_records - records, key=str):
            problems.append(f"{name}: missing record {rec}")
    return problems


# --------------------------------------------------------------------------- the runs


@dataclass
class Run:
    name: str
    cmd: str
    setup: dict[str, str] = field(default_factory=dict)  # files written into a fresh scratch dir
    needs: str = ""  # a program that must be on PATH
    gtest: bool = False  # runs in the built copy of the gtest fixture project
    jest: bool = False  # runs in a copy of the Jest fixture project, jest installed there
    job: BuildJob | None = None  # one of bench/crosscheck_builds.py's builds


MAIN_C = "#include <stdio.h>\nint helper(int);\nint main(void) { printf(\"%d\\n\", helper(2)); return 0; }\n"
BAD_C = "int helper(int x) {\n    int unused;\n    return x + undeclared_name;\n}\n"
WARN_C = "int other(int x) {\n    int unused;\n    return x;\n}\n"
MAKEFILE = ("CFLAGS = -Wall\nall: prog\nprog: main.o bad.o warn.o\n\tgcc $^ -o $@\n"
            "%.o: %.c\n\tgcc $(CFLAGS) -c $< -o $@\n")
LINK_C = "int helper(int x);\nint other(int x) { return helper(x); }\n"
CMAKE_HEAD = "cmake_minimum_required(VERSION 3.16)\nproject(demo C)\n"
GTEST_TEST_MK = "test:\n\tcd build && ./multi_test\n\ncheck: test\n\tcd build && ./crash_test\n"
NODE_TEST = ("const test = require('node:test');\nconst assert = require('node:assert');\n"
             "test('adds', () => { assert.strictEqual(1 + 1, 2); });\n"
             "test('subtracts', () => { console.error('noise on stderr'); assert.strictEqual(3 - 1, 1); });\n")


def runs() -> list[Run]:
    build = {"main.c": MAIN_C, "bad.c": BAD_C, "warn.c": WARN_C}
    return [
        Run("cmake-find-package", "cmake -S . -B build", {"CMakeLists.txt": CMAKE_HEAD + "find_package(Frobnicator REQUIRED)\n"
                                                          "add_executable(app main.c)\n", "main.c": MAIN_C}),
        Run("cmake-two-errors", "cmake -S . -B build",
            {"CMakeLists.txt": CMAKE_HEAD + "message(SEND_ERROR \"first\")\nmessage(WARNING \"slow\")\n"
             "add_executable(app main.c nothere.c)\n", "main.c": MAIN_C}),
        Run("make-compile", "make -k", {**build, "Makefile": MAKEFILE}),
        Run("make-j2-compile", "make -k -j2", {**build, "Makefile": MAKEFILE}),
        Run("make-link", "make -k", {"main.c": MAIN_C, "bad.c": LINK_C, "warn.c": WARN_C, "Makefile": MAKEFILE}),
        Run("cmake-make-compile", "cmake -S . -B build -G 'Unix Makefiles' > /dev/null && cmake --build build -- -k",
            {**build, "CMakeLists.txt": CMAKE_HEAD + "add_executable(app main.c bad.c warn.c)\n"}),
        Run("cmake-ninja-compile", "cmake -S . -B build -G Ninja > /dev/null && cmake --build build -- -k 0",
            {**build, "CMakeLists.txt": CMAKE_HEAD + "add_executable(app main.c bad.c warn.c)\n"}, needs="ninja"),
        Run("cmake-ninja-configure-then-compile", "cmake -S . -B build -G Ninja && cmake --build build",
            {**build, "CMakeLists.txt": CMAKE_HEAD + "add_executable(app main.c bad.c)\n"}, needs="ninja"),
        Run("gtest-multi", "./build/multi_test", gtest=True),
        Run("gtest-crash", "./build/crash_test", gtest=True),
        Run("gtest-abort", "./build/abort_test", gtest=True),
        Run("make-test-gtest", "make -f test.mk test", {"test.mk": GTEST_TEST_MK}, gtest=True),
        Run("make-check-gtest", "make -k -f test.mk check", {"test.mk": GTEST_TEST_MK}, gtest=True),
        Run("ctest-default", "cd build && ctest -E sleeper", gtest=True),
        Run("ctest-output-on-failure", "cd build && ctest --output-on-failure -R '^(basic|multi|allpass|crash)$'", gtest=True),
        Run("node-test", "node --test", {"math.test.js": NODE_TEST}, needs="node"),
        Run("jest", "npx jest --ci", jest=True, needs="npx"),
        Run("jest-verbose", "npx jest --ci --verbose", jest=True, needs="npx"),
    ]


def build_runs(count: int, seed: int) -> list[Run]:
    """A deterministic sample of bench/crosscheck_builds.py's builds (every shape it plans), ``count`` at most."""
    if count <= 0:
        return []
    jobs = [*plan(code_bases(), ALL_SHAPES, random.Random(16), 1), *shape_jobs()]
    by_shape: dict[str, list[BuildJob]] = {}
    for job in jobs:
        by_shape.setdefault(job.shape, []).append(job)
    rng = random.Random(seed)
    for group in by_shape.values():
        rng.shuffle(group)
    picked: list[BuildJob] = []
    while len(picked) < count and any(by_shape.values()):
        for group in by_shape.values():  # round robin over the shapes
            if group and len(picked) < count:
                picked.append(group.pop())
    return [Run(f"build-{job.key}", "", job=job) for job in picked]


def jest_project() -> Path | None:
    """The Jest fixture project with jest@29 installed (from npm's cache when offline)."""
    root = SCRATCH / "jest"
    if not (root / "node_modules" / ".bin" / "jest").exists():
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(JEST_SRC, root)
        try:
            subprocess.run(["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefer-offline", "jest@29"],
                           cwd=root, capture_output=True, timeout=240)
        except subprocess.TimeoutExpired:
            return None
    return root if (root / "node_modules" / ".bin" / "jest").exists() else None


def gtest_project() -> Path | None:
    """The test-runner fixtures' gtest project, configured and built once (Ninja when there)."""
    root = SCRATCH / "gtest"
    if (root / "build" / "multi_test").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(GTEST_SRC, root)
    gen = "-G Ninja" if shutil.which("ninja") else ""
    done = subprocess.run(f"cmake -S . -B build {gen} && cmake --build build", shell=True, cwd=root, env=ENV,
                          capture_output=True)
    return root if done.returncode == 0 else None


def capture(run: Run) -> list[Line] | None:
    if run.needs and not shutil.which(run.needs):
        return None
    if run.job is not None:
        root = job_root(run.job, SCRATCH / "builds")
        with seeded(run.job, root):
            cmd, env = prepare_build(root, run.job, "")
            return run_split(cmd, root, 600, env)
    if run.gtest or run.jest:
        found = gtest_project() if run.gtest else jest_project()
        if found is None:
            return None
        root = found
    else:
        root = SCRATCH / run.name
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
    for name, text in run.setup.items():
        (root / name).write_text(text)
    return run_split(run.cmd, root)


# --------------------------------------------------------------------------- main


def save(folder: Path, name: str, lines: list[Line]) -> None:
    """``<name>.stdout`` / ``.stderr`` (exact lines) and ``.order`` (one o or e a line, as they arrived)."""
    folder.mkdir(parents=True, exist_ok=True)
    for stream in ("stdout", "stderr"):
        (folder / f"{name}.{stream}").write_text("".join(t for s, t in lines if s == stream))
    (folder / f"{name}.order").write_text("".join(s[-3] for s, _ in lines))  # stdout -> o, stderr -> e


def load(folder: Path, name: str) -> list[Line]:
    """The lines ``save`` wrote, in their arrival order."""
    queues = {"stdout": iter((folder / f"{name}.stdout").read_text().splitlines(True)),
              "stderr": iter((folder / f"{name}.stderr").read_text().splitlines(True))}
    streams = {"o": "stdout", "e": "stderr"}
    return [(streams[c], next(queues[streams[c]])) for c in (folder / f"{name}.order").read_text()]


def differing(problems: list[str]) -> set[str]:
    """The interleaves named in ``disagreements``'s lines."""
    return {p.split(":", 1)[0] for p in problems}


def report(rows: list[tuple[str, int, list[str]]], elapsed: float, randoms: int) -> str:
    bad = [r for r in rows if r[2]]
    out = ["# Stream reorder cross-check", "",
           f"{len(rows)} real runs, each captured once with stdout and stderr apart; {2 + randoms} interleaves of "
           f"each (stdout first, stderr first, {randoms} seeded random ones) parsed against the arrival order. "
           f"Runs whose parses disagree: {len(bad)}. ({elapsed:.0f} s)", "",
           f"Interleaves that read differently: {sum(len(differing(p)) for _, _, p in rows)} of {len(rows) * (2 + randoms)}.", "",
           "| run | lines | interleaves differing | differences |", "|---|---|---|---|"]
    for name, n, problems in rows:
        out.append(f"| {name} | {n} | {len(differing(problems))} | {len(problems)} |")
    for name, _, problems in bad:
        out += ["", f"## {name}", ""] + [f"- {p}" for p in problems[:20]]
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-minutes", type=float, default=10)
    ap.add_argument("--only", default="", help="comma-separated run names")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--randoms", type=int, default=5, help="random interleaves of each run")
    ap.add_argument("--builds", type=int, default=24, help="how many of bench/crosscheck_builds.py's builds to add")
    ap.add_argument("--save", type=Path, help="write each run's <name>.stdout / <name>.stderr here")
    ap.add_argument("--write", type=Path, help="write the markdown report here")
    ap.add_argument("--replay", type=Path, help="parse the runs --save wrote there again; run nothing")
    args = ap.parse_args()
    wanted = set(filter(None, args.only.split(",")))
    start = time.monotonic()
    rows: list[tuple[str, int, list[str]]] = []
    planned = sorted(p.stem for p in args.replay.glob("*.order")) if args.replay else \
        [*runs(), *build_runs(args.builds, args.seed)]
    for run in planned:
        if isinstance(run, str):
            run = Run(run, "")
        if wanted and run.name not in wanted:
            continue
        if time.monotonic() - start > args.max_minutes * 60:
            print(f"time budget spent: {run.name} and later runs skipped", file=sys.stderr)
            break
        lines = load(args.replay, run.name) if args.replay else capture(run)
        if lines is None:
            print(f"{run.name}: skipped (tool missing or project did not build)", file=sys.stderr)
            continue
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            save(args.save, run.name, lines)
        problems = disagreements(interleaves(lines, args.seed, args.randoms))
        rows.append((run.name, len(lines), problems))
        print(f"{run.name}: {len(lines)} lines, {len(problems)} disagreements", file=sys.stderr)
        for p in problems:
            print(f"    {p}", file=sys.stderr)
    text = report(rows, time.monotonic() - start, args.randoms)
    if args.write:
        args.write.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
