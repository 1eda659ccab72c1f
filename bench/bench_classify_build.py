"""Classification of seeded compile faults, many per kind (not a test; run by hand).

    python bench/bench_classify_build.py [--projects brotli,lmdb,leveldb,snappy] [--per-kind N] [--compilers gcc,clang]

The full build bench (bench_fix_build.py) builds, fixes and loops, so it sees a few faults per kind;
this one only asks "what class does the first error get?" and so sees many: every fault kind that a
compiler (not the linker) reports is seeded as bench_fix_build.py seeds it, in the same code bases
downloaded at bench time (plus snappy, C++, from the same leveldown package as LevelDB), and one
translation unit (the file, or for a header a source that includes it) is compiled with
``-fsyntax-only``.  The first failing record's ``error_type`` is checked against the kind, as the
build bench checks it.  Results: bench/results/classify_build.md (``--out`` for another file).
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from bench_fix_build import EXPECTED, PROJECTS, WORK, Fault, Project, fetch, seed  # noqa: E402
from cfamily_support import parse_build_output  # noqa: E402
from fix_build_seed import seed_new  # noqa: E402

LINK_KINDS = {"undefined reference", "renamed definition", "dropped source", "missing -lm"}


def snappy() -> Project:
    root = WORK / "snappy"
    if not root.exists():
        if not (WORK / "leveldown").exists():
            fetch(("leveldb",))
        shutil.copytree(WORK / "leveldown/package/deps/snappy/snappy", root)
        for name in ("config.h", "snappy-stubs-public.h"):
            shutil.copy(WORK / "leveldown/package/deps/snappy/linux" / name, root / name)
    srcs = ["snappy.cc", "snappy-sinksource.cc", "snappy-stubs-internal.cc", "snappy-c.cc"]
    return Project("snappy", root, srcs, ["."], False, "cpp", "-DHAVE_CONFIG_H")


def unit_for(project: Project, fault: Fault) -> str | None:
    """The translation unit to compile: the file itself, or a source that includes the header."""
    if fault.file in project.sources:
        return fault.file
    base = Path(fault.file).name
    for src in project.sources:
        if f'{base}"' in (project.root / src).read_text(errors="replace"):
            return src
    return None


def first_class(project: Project, fault: Fault, compiler: str) -> tuple[str, str] | None:
    """(error_type, first error) of the first failing record, or None if the unit compiles."""
    unit = unit_for(project, fault)
    if unit is None:
        return None
    path = project.root / fault.file
    path.write_text(fault.mutated)
    try:
        argv = [project.compiler(compiler), *project.flags().split(), *(f"-I{i}" for i in project.includes),
                "-fsyntax-only", "-fdiagnostics-parseable-fixits", "-fno-diagnostics-color", unit]
        proc = subprocess.run(argv, cwd=project.root, capture_output=True, text=True, timeout=120,
                              env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
        if proc.returncode == 0:
            return None
        # parsed with the fault still in place: classification may read the source around an error
        records = [r for r in parse_build_output(proc.stderr + proc.stdout, compiler, project.root) if r.is_failure]
    finally:
        path.write_text(fault.original)
    if not records:
        return "(none)", proc.stderr[:200]
    r = records[0]
    return r.error_type, f"{r.file_path}:{r.line}: {r.message}"[:200]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--projects", default=",".join((*PROJECTS, "snappy")))
    parser.add_argument("--per-kind", type=int, default=12, help="faults per kind, project and compiler")
    parser.add_argument("--compilers", default="gcc,clang")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default="classify_build.md")
    args = parser.parse_args()
    names = args.projects.split(",")
    projects = fetch(tuple(n for n in names if n != "snappy"))
    if "snappy" in names:
        projects.append(snappy())
    started = time.monotonic()
    rows: list[tuple[str, str, str, str, str, bool, str]] = []  # cc, project, kind, what, class, right, first
    for project in projects:
        rng = random.Random(args.seed)
        pool = [f for f in seed(replace(project, libm=False), rng, args.per_kind) if f.kind not in LINK_KINDS]
        pool += [Fault(project.name, *s) for s in seed_new(project.root, project.sources, project.headers(), rng, args.per_kind)
                 if s[0] not in LINK_KINDS]
        for cc in args.compilers.split(","):
            count: Counter[str] = Counter()
            for fault in pool:
                if count[fault.kind] >= args.per_kind:
                    continue
                got = first_class(project, fault, cc)
                if got is None:
                    continue
                count[fault.kind] += 1
                right = got[0] in EXPECTED[fault.kind]
                rows.append((cc, project.name, fault.kind, f"{fault.file}: {fault.what}", got[0], right, got[1]))
                if not right:
                    print(f"{cc:5} {project.name:8} {fault.kind:22} {got[0]:16} {fault.file}: {fault.what} | {got[1]}", flush=True)
    write_report(rows, time.monotonic() - started, args.out)
    return 0


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}% ({n}/{d})" if d else "-"


def write_report(rows, elapsed: float, name: str) -> None:
    lines = ["# Classification of seeded compile faults (first failing record's error_type)", "",
             f"Generated by `python bench/bench_classify_build.py`; wall time {elapsed:.0f} s. Each fault: one unit compiled with `-fsyntax-only`.", "",
             "| compiler | project | faults | right |", "|---|---|---|---|"]
    for cc in sorted({r[0] for r in rows}):
        for project in sorted({r[1] for r in rows}):
            rs = [r for r in rows if r[0] == cc and r[1] == project]
            lines.append(f"| {cc} | {project} | {len(rs)} | {_pct(sum(r[5] for r in rs), len(rs))} |")
    lines.append(f"| all | all | {len(rows)} | {_pct(sum(r[5] for r in rows), len(rows))} |")
    lines += ["", "| kind | faults | right | C | C++ |", "|---|---|---|---|---|"]
    cxx = {"leveldb", "snappy"}
    for kind in sorted({r[2] for r in rows}):
        rs = [r for r in rows if r[2] == kind]
        c = [r for r in rs if r[1] not in cxx]
        p = [r for r in rs if r[1] in cxx]
        lines.append(f"| {kind} | {len(rs)} | {_pct(sum(r[5] for r in rs), len(rs))} | {_pct(sum(r[5] for r in c), len(c))} | {_pct(sum(r[5] for r in p), len(p))} |")
    wrong = [r for r in rows if not r[5]]
    if wrong:
        lines += ["", "## Wrong classes", "", "| compiler | project | kind | seeded | class | first error |", "|---|---|---|---|---|---|"]
        for r in wrong:
            lines.append(f"| {r[0]} | {r[1]} | {r[2]} | `{r[3].replace('|', '/').replace('`', chr(39))}` | {r[4]} | `{r[6].replace('|', '/').replace('`', chr(39))}` |")
    out = HERE / "results" / name
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    sys.exit(main())
