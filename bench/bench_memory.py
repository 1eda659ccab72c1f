"""Cost of the repository memory per loop step as the store grows (run by hand).

    python bench/bench_memory.py            # or: python bench/bench_loop.py --memory-scale

A real loop session is recorded once: the -Werror lint-only C program of
tests/test_loop_e2e.py, built with the real make + gcc and fixed by the loop.
Its log is then copied N times (N = 20, 200, 1000; ids and workspace path
rewritten) into a fresh store, as if N earlier sessions had run there, and:

* cold: the first fold of all N logs into the index (once per store);
* step, new process: what each `whetstone step` pays (index + state read, one
  stat per log, nothing new to fold);
* step, in process, +10 events: what each step of `whetstone fix` pays after
  the running session appended 10 events;
* naive: re-reading and folding every log (what a memory without an index
  would cost on every step);

then the seeded fault is fixed again by the loop with the N earlier sessions
in the store, against an empty store.  Results: bench/results/loop_memory_scale.md.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

from pytest_whetstone.orchestrate.loop import FeedbackLoopOrchestrator, start_loop  # noqa: E402
from pytest_whetstone.orchestrate.memory import RepositoryMemory  # noqa: E402
from pytest_whetstone.orchestrate.state import loop_fold  # noqa: E402
from pytest_whetstone.store.sessions import find_store, load_session, read_jsonl  # noqa: E402

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
MAKEFILE = "t: t.c\n\t$(CC) -Wall -Wextra -Werror -o t t.c\n"
SIZES = (20, 200, 1000)


def _project(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "t.c").write_text(LINT_ONLY)
    (root / "Makefile").write_text(MAKEFILE)
    return root


def _fix(root: Path) -> tuple[str, int, int, float]:
    """One real loop run on the seeded fault: (status, steps, attempts, seconds)."""
    (root / "t.c").write_text(LINT_ONLY)
    store = find_store(root)
    t0 = time.monotonic()
    sid = start_loop(store, build="make -s CC=gcc", test="./t", cwd=root).session_id
    result = FeedbackLoopOrchestrator(store).run_to_completion(sid, 120)
    seconds = time.monotonic() - t0
    state = loop_fold(load_session(store, sid).events())
    return result.final_status, result.steps_taken, state.fix_attempts, seconds


def _median(fn, runs: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    base = Path(tempfile.mkdtemp(prefix="whetstone-bench-memory-"))
    os.environ.pop("WHETSTONE_DIR", None)
    os.environ.pop("WHETSTONE_SESSION", None)
    try:
        template_root = _project(base / "template")
        status, *_ = _fix(template_root)
        assert status == "converged", status
        store = find_store(template_root)
        template_sid = load_session(store).session_id
        template = load_session(store, template_sid).path.read_text(encoding="utf-8")
        events = len(template.splitlines())
        rows = []
        cold_store_run = _fix(_project(base / "empty"))
        for n in SIZES:
            root = _project(base / f"ws{n}")
            store = find_store(root)
            (store / "sessions").mkdir(parents=True, exist_ok=True)
            for i in range(n):
                sid = f"20260101T000000Z-{i:06d}"
                text = template.replace(template_sid, sid).replace(str(template_root.resolve()), str(root.resolve()))
                (store / "sessions" / f"{sid}.jsonl").write_text(text, encoding="utf-8")
            t0 = time.perf_counter()
            RepositoryMemory(store).refresh()
            cold = time.perf_counter() - t0
            fresh_process = _median(lambda s=store: RepositoryMemory(s).refresh(), 21)
            running = RepositoryMemory(store)
            running.refresh()
            newest = store / "sessions" / f"20260101T000000Z-{n - 1:06d}.jsonl"
            lines = template.splitlines(keepends=True)[-10:]

            def step(m: RepositoryMemory = running, path: Path = newest, more: list[str] = lines) -> None:
                with open(path, "a", encoding="utf-8") as handle:
                    handle.writelines(more)
                m.refresh()
                assert m.folded_events == 10, m.folded_events

            in_process = _median(step, 21)
            files = sorted((store / "sessions").glob("*.jsonl"))
            naive = _median(lambda fs=files: [loop_fold(list(read_jsonl(f))) for f in fs], 3)
            index = (store / "memory" / "index.jsonl").stat().st_size
            fix = _fix(root) if n == 200 else None
            rows.append((n, cold, fresh_process, in_process, naive, index, fix))
            print(f"N={n}: cold {cold * 1000:.1f} ms, step (new process) {fresh_process * 1000:.2f} ms, "
                  f"step (+10 events) {in_process * 1000:.2f} ms, naive {naive * 1000:.1f} ms", flush=True)
        write_report(rows, events, cold_store_run)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


def write_report(rows: list, events: int, cold_run: tuple[str, int, int, float]) -> None:  # type: ignore[type-arg]
    lines = [
        "# Repository memory: cost per loop step as the store grows (bench/bench_memory.py)",
        "",
        f"Each earlier session is a copy of one real loop session ({events} events: the -Werror lint-only C program, "
        "make + gcc 12, three fixes kept). Medians of 21 runs (naive: 3).",
        "",
        "| earlier sessions | cold fold (once) | step, new process | step, in process, +10 events | naive re-read per step | index size |",
        "|---|---|---|---|---|---|",
    ]
    for n, cold, fresh, in_process, naive, index, _ in rows:
        lines.append(f"| {n} | {cold * 1000:.1f} ms | {fresh * 1000:.2f} ms | {in_process * 1000:.2f} ms | "
                     f"{naive * 1000:.1f} ms | {index / 1024:.1f} KiB |")
    fix = next(r[6] for r in rows if r[6] is not None)
    lines += [
        "",
        "The same fault fixed by the loop (real make + gcc):",
        "",
        "| store | status | steps | fix attempts | wall time |",
        "|---|---|---|---|---|",
        f"| empty (cold) | {cold_run[0]} | {cold_run[1]} | {cold_run[2]} | {cold_run[3]:.2f} s |",
        f"| 200 earlier sessions (memory) | {fix[0]} | {fix[1]} | {fix[2]} | {fix[3]:.2f} s |",
    ]
    out = HERE / "results" / "loop_memory_scale.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())


if __name__ == "__main__":
    sys.exit(main())
