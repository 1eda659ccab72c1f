#!/usr/bin/env python3
"""Let gcc and clang check the counts ``whetstone parse --tool auto`` reads from their text output.

Each job is a real compile through ``make -k`` (one unit, or three in one make run), run so that
the compiler also says in a structured form what it emitted:

* gcc 12: the same make run twice, once as a build prints it (text) and once with
  ``-fdiagnostics-format=json`` (one JSON array per unit on stderr), the truth;
* clang 14 (which has no SARIF yet): one run, its text as printed and
  ``--serialize-diagnostics <unit>.dia`` beside it, read back through libclang
  (``clang_loadDiagnostics``), the truth; its own ``N errors generated.`` tallies are
  checked against that too.

The text is parsed by ``pytest_whetstone.parse.parse_text`` (what ``whetstone parse --tool auto``
runs) and compared with the truth: errors, warnings and notes (counts), and the sets of
(severity, file, line, col) and of note locations.  Every disagreement is printed; with
``--keep DIR`` each disagreeing job's log, truth and command are written there.

Compiles: seeded faults (bench/fix_build_seed.py's shapes) and clean units under warning-heavy
flags in the development code bases of the other benches (brotli, lmdb, leveldb in bench/_work;
jsonnet and hiredis in bench/_work/native_fix; bench/native_dev/exprcalc; the demo's C project),
with flags drawn from ``-Wall -Wextra``, ``-fdiagnostics-color=always``, ``-Werror``,
``-Werror=<flag>``, ``-Wfatal-errors``, ``-fmax-errors=3`` / ``-ferror-limit=3``, ``-fanalyzer``
and the warning-heavy sets.  The sample is deterministic (``--seed``); ``--max-compiles`` and
``--max-minutes`` bound it.

The compilers run in the C.UTF-8 locale (typographic quotes); ``CROSSCHECK_LOCALE=C`` runs them in the
plain C locale, where gcc quotes in ASCII.

Usage: python bench/parse_crosscheck.py [--max-compiles 600] [--max-minutes 12] [--projects a,b]
                                        [--keep DIR] [--write bench/results/parse_crosscheck.md]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from crosscheck_truth import Diag, clang_bare_truth, compare, gcc_json_truth, ours, read_dia  # noqa: E402

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"
SCRATCH = Path("/tmp/whetstone-crosscheck")
LOCALE = os.environ.get("CROSSCHECK_LOCALE", "C.UTF-8")  # C: gcc quotes in ASCII
ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": LOCALE, "LANG": LOCALE, "HOME": "/tmp", "TERM": "dumb"}


@dataclass
class Project:
    name: str
    root: Path
    lang: str  # "c" | "cpp"
    units: list[str]
    includes: list[str]
    defines: str = ""
    std: str = ""

    def headers(self) -> list[str]:
        dirs = {*self.includes, *(str(Path(u).parent) for u in self.units)}
        exts = ("*.h", "*.hpp") if self.lang == "cpp" else ("*.h",)
        return sorted({h.relative_to(self.root).as_posix() for d in dirs for e in exts for h in (self.root / d).glob(e)})


def projects() -> list[Project]:
    out: list[Project] = []
    brotli = WORK / "brotli"
    if brotli.exists():
        units = sorted(p.relative_to(brotli).as_posix() for d in ("c/common", "c/dec", "c/enc") for p in (brotli / d).glob("*.c"))
        out.append(Project("brotli", brotli, "c", units + ["c/tools/brotli.c"], ["c/include"]))
    lmdb = WORK / "lmdb"
    if lmdb.exists():
        out.append(Project("lmdb", lmdb, "c", ["mdb.c", "midl.c", "mdb_stat.c"], ["."]))
    leveldb = WORK / "leveldb"
    if leveldb.exists():
        units = sorted(p.relative_to(leveldb).as_posix() for d in ("db", "table", "util") for p in (leveldb / d).glob("*.cc")
                       if not p.name.endswith(("_test.cc", "_bench.cc")) and p.name not in ("testharness.cc", "testutil.cc", "c.cc"))
        out.append(Project("leveldb", leveldb, "cpp", units + ["port/port_posix.cc", "helpers/memenv/memenv.cc"], [".", "include"],
                           "-DLEVELDB_PLATFORM_POSIX -DOS_LINUX", "-std=c++11"))
    hiredis = WORK / "native_fix" / "hiredis-3.5.0" / "vendor" / "hiredis"
    if hiredis.exists():
        out.append(Project("hiredis", hiredis, "c", ["alloc.c", "async.c", "dict.c", "hiredis.c", "net.c", "read.c", "sds.c", "sockcompat.c"], ["."]))
    jsonnet = WORK / "native_fix" / "jsonnet-0.20.0"
    if jsonnet.exists():
        out.append(Project("jsonnet", jsonnet, "cpp", ["core/lexer.cpp", "core/parser.cpp", "core/string_utils.cpp", "core/desugarer.cpp"],
                           ["core", "include", "third_party/md5", "third_party/json"], "", "-std=c++17"))
    exprcalc = HERE / "native_dev" / "exprcalc"
    out.append(Project("exprcalc", exprcalc, "cpp", ["src/tokenizer.cc", "src/parser.cc", "src/evaluator.cc", "src/format.cc"], ["src"], "", "-std=c++17"))
    demo = HERE.parent / "pytest_whetstone" / "demo" / "cproject"
    out.append(Project("demo", demo, "c", ["main.c", "stats.c"], ["."]))
    return out


# Flag sets: (name, gcc flags, clang flags).  Faults and clean units draw from different lists.
FAULT_FLAGS = [
    ("wall-wextra", "-Wall -Wextra", "-Wall -Wextra"),
    ("color", "-Wall -Wextra -fdiagnostics-color=always", "-Wall -Wextra -fdiagnostics-color=always"),
    ("werror", "-Wall -Werror", "-Wall -Werror"),
    ("werror-eq", "-Wall -Wextra -Werror=unused-variable -Werror=sign-compare -Werror=unused-parameter",
     "-Wall -Wextra -Werror=unused-variable -Werror=sign-compare -Werror=unused-parameter"),
    ("fatal", "-Wall -Wfatal-errors", "-Wall -Wfatal-errors"),
    ("max-errors", "-Wall -Wextra -fmax-errors=3", "-Wall -Wextra -ferror-limit=3"),
    ("plain", "", ""),
    ("no-caret", "-Wall -Wextra -fno-diagnostics-show-caret", "-Wall -Wextra -fno-caret-diagnostics"),
    ("O2", "-O2 -D_FORTIFY_SOURCE=2 -Wall -Wextra", "-O2 -D_FORTIFY_SOURCE=2 -Wall -Wextra"),
    ("as-cxx", "-x c++ -Wall", "-x c++ -Wall"),  # a C unit compiled as C++ (C++ units: as they are)
    ("no-column", "-Wall -fno-diagnostics-show-line-numbers -fno-diagnostics-show-labels -fdiagnostics-column-unit=byte",
     "-Wall -fno-show-column -fdiagnostics-absolute-paths"),
    # flags that change the text's shape: wrapped messages, no [-Wflag], URLs in the flag
    # (clang has none: its parseable fix-its instead), no warnings, preprocessed temporaries,
    # fortified headers, the sanitizer's instrumentation
    ("message-length", "-Wall -Wextra -fmessage-length=80", "-Wall -Wextra -fmessage-length=80"),
    ("no-option", "-Wall -Wextra -fno-diagnostics-show-option", "-Wall -Wextra -fno-diagnostics-show-option"),
    ("urls", "-Wall -Wextra -fdiagnostics-urls=always", "-Wall -Wextra -fdiagnostics-parseable-fixits"),
    ("w", "-w", "-w"),
    ("save-temps", "-Wall -save-temps=cwd", "-Wall -save-temps=cwd"),
    ("fortify-g3", "-g3 -O2 -D_FORTIFY_SOURCE=2 -Wall -Wextra", "-g3 -O2 -D_FORTIFY_SOURCE=2 -Wall -Wextra"),
    ("asan", "-Wall -fsanitize=address -g", "-Wall -fsanitize=address -g"),
]
HEAVY_C = "-Wall -Wextra -Wshadow -Wconversion -Wsign-conversion -Wcast-qual -Wpedantic -Wformat=2 -Wundef -Wmissing-prototypes -Wstrict-prototypes -Wcast-align -Wswitch-enum -Wredundant-decls"
HEAVY_CXX = "-Wall -Wextra -Wshadow -Wconversion -Wsign-conversion -Wcast-qual -Wpedantic -Wformat=2 -Wundef -Wold-style-cast -Wuseless-cast -Wzero-as-null-pointer-constant -Wnon-virtual-dtor -Woverloaded-virtual"
CLEAN_FLAGS = [
    ("heavy", "{heavy}", "{heavy}"),
    ("heavy-color", "{heavy} -fdiagnostics-color=always", "{heavy} -fdiagnostics-color=always"),
    ("heavy-werror", "{heavy} -Werror", "{heavy} -Werror"),
    ("everything", "{heavy} -Wduplicated-cond -Wlogical-op -Wnull-dereference -Wdouble-promotion", "-Weverything"),
    ("O2-heavy", "-O2 -D_FORTIFY_SOURCE=2 -g {heavy} -Wnull-dereference -Wstringop-overflow=4 -Warray-bounds=2",
     "-O2 -D_FORTIFY_SOURCE=2 -g {heavy}"),
    ("pedantic-old", "{old} -pedantic -Wall -Wextra", "{old} -pedantic -Wall -Wextra"),
    ("as-cxx", "-x c++ -Wall -Wextra", "-x c++ -Wall -Wextra"),
    ("template-tree", "{heavy} -fdiagnostics-show-template-tree -fno-elide-type -fno-diagnostics-show-caret",
     "{heavy} -fdiagnostics-show-template-tree -fno-elide-type -fno-caret-diagnostics"),
]
# gcc only (clang's analyzer writes no diagnostics file); its event paths inline or one note per event
ANALYZER = ("analyzer", "-fanalyzer")
ANALYZER_SEPARATE = ("analyzer-separate", "-fanalyzer -fdiagnostics-path-format=separate-events")


@dataclass
class Job:
    key: str
    project: Project
    compiler: str  # "gcc" | "clang"
    flags_name: str
    flags: str
    units: list[str]
    fault: tuple[str, str, str, str] | None = None  # (kind, file, mutated text, what)

    @property
    def driver(self) -> str:
        if self.project.lang == "cpp" or "-x c++" in self.flags:
            return "g++" if self.compiler == "gcc" else "clang++"
        return self.compiler


@dataclass
class Outcome:
    job: Job
    truth: list[Diag]
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    text: str = ""
    tally: tuple[int, int] | None = None  # clang's own tallies (errors, warnings) summed over units


def including(project: Project, header: str) -> str | None:
    name = Path(header).name
    for unit in project.units:
        if f'"{name}"' in (project.root / unit).read_text(errors="replace") or f"/{name}\"" in (project.root / unit).read_text(errors="replace"):
            return unit
    return None


def plan(projs: list[Project], rng: random.Random, per_project: int) -> list[Job]:
    from fix_build_seed import seeds_in_file

    jobs: list[Job] = []
    for proj in projs:
        files = [*proj.units, *proj.headers()]
        corpus = "\n".join((proj.root / f).read_text(errors="replace") for f in files)
        seeds: list[tuple[str, str, str, str]] = []
        for rel in files:
            for _kind, pool in sorted(seeds_in_file(proj.root, rel, header=rel not in proj.units, sources_text=corpus).items()):
                rng.shuffle(pool)
                seeds.extend((k, f, mutated, what) for k, f, _orig, mutated, what in pool[:2])
        rng.shuffle(seeds)
        for compiler in ("gcc", "clang"):
            n = 0
            for i, (kind, rel, mutated, what) in enumerate(seeds[: per_project]):
                unit = rel if rel in proj.units else including(proj, rel)
                if unit is None:
                    continue
                fname, gflags, cflags = FAULT_FLAGS[(i + (compiler == "clang")) % len(FAULT_FLAGS)]
                units = [unit]
                if i % 5 == 0 and len(proj.units) >= 3:  # a make run over three units, the fault in one
                    others = [u for u in proj.units if u != unit]
                    units = sorted([unit, *rng.sample(others, 2)])
                if compiler == "gcc" and proj.lang == "c" and i % 11 == 3 and len((proj.root / unit).read_bytes()) < 60_000:
                    fname, gflags = ANALYZER if i % 2 else ANALYZER_SEPARATE
                    gflags = f"-Wall {gflags}"
                jobs.append(Job(f"{proj.name}-{compiler}-f{i}", proj, compiler, fname, gflags if compiler == "gcc" else cflags,
                                units, (kind, rel, mutated, what)))
                n += 1
            for j, unit in enumerate(proj.units):
                fname, gflags, cflags = CLEAN_FLAGS[(j + (compiler == "clang")) % len(CLEAN_FLAGS)]
                heavy = HEAVY_CXX if proj.lang == "cpp" else HEAVY_C
                old = "-std=c++98" if proj.lang == "cpp" else "-std=c89"
                flags = (gflags if compiler == "gcc" else cflags).format(heavy=heavy, old=old)
                jobs.append(Job(f"{proj.name}-{compiler}-c{j}", proj, compiler, fname, flags, [unit]))
    rng.shuffle(jobs)
    return jobs


def target(unit: str) -> str:
    """The object a unit builds, as make names it in its summaries (the object itself goes to /dev/null)."""
    return f"obj/{unit.rsplit('.', 1)[0]}.o"


def makefile(job: Job, structured: bool, dia_dir: Path) -> str:
    proj = job.project
    incs = " ".join(f"-I{i}" for i in proj.includes)
    lines = [f"CC = {job.driver}", f"CFLAGS = {proj.std} {job.flags} {proj.defines} {incs}".replace("  ", " ").strip(), "",
             "all: " + " ".join(target(u) for u in job.units), ".PHONY: all " + " ".join(target(u) for u in job.units), ""]
    for i, unit in enumerate(job.units):
        extra = ""
        if job.compiler == "gcc" and structured:
            extra = " -fdiagnostics-format=json"
            if max_errors(job.flags):  # gcc 12 prints no JSON when -fmax-errors stops it: see gcc_json_truth
                extra += " -fmax-errors=0"
        elif job.compiler == "clang":
            extra = f" --serialize-diagnostics {dia_dir}/t{i}.dia"
        lines += [f"{target(unit)}:", f"\t$(CC) $(CFLAGS){extra} -c {unit} -o /dev/null", ""]
    return "\n".join(lines)


PARALLEL = True  # clang's multi-unit runs under make -j2 (a test turns it off: interleaving is not deterministic)


def max_errors(flags: str) -> int:
    m = re.search(r"-fmax-errors=(\d+)", flags)
    return int(m[1]) if m else 0


def run_make(root: Path, text: str, timeout: float, parallel: bool = False) -> str:
    (root / "Makefile.crosscheck").write_text(text)
    try:
        proc = subprocess.run(["make", "-k", *(["-j2"] if parallel else []), "-f", "Makefile.crosscheck"], cwd=root, env=ENV, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout)
        return proc.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return ""


_TALLY = re.compile(r"^(?:(\d+) warnings?)?(?: and )?(?:(\d+) errors?)? generated\.$", re.M)


def clang_tally(text: str) -> tuple[int, int]:
    errors = warnings = 0
    for m in _TALLY.finditer(re.sub(r"\x1b\[[0-9;]*m", "", text)):
        warnings += int(m[1] or 0)
        errors += int(m[2] or 0)
    return errors, warnings


def run_job(job: Job, scratch: Path) -> Outcome | None:
    root = scratch / job.project.name
    if not root.exists():
        shutil.copytree(job.project.root, root, ignore=shutil.ignore_patterns("build", "node_modules", ".git"))
    dia = scratch / "dia"
    shutil.rmtree(dia, ignore_errors=True)
    dia.mkdir(parents=True)
    original = None
    if job.fault:
        path = root / job.fault[1]
        original = path.read_bytes()
        path.write_text(job.fault[2], errors="surrogateescape")
    start = time.monotonic()
    try:
        # clang's truth is beside its text, so its multi-unit runs can interleave as make -j2 prints them
        text = run_make(root, makefile(job, False, dia), 120,
                        parallel=PARALLEL and job.compiler == "clang" and len(job.units) > 1)
        if not text:
            return None
        if job.compiler == "gcc":
            truth = gcc_json_truth(run_make(root, makefile(job, True, dia), 120), max_errors(job.flags),
                                   "-fdiagnostics-column-unit=byte" in job.flags)
        else:
            truth = [d for i in range(len(job.units)) for d in read_dia(dia / f"t{i}.dia")]
            truth += clang_bare_truth(text, truth)
    finally:
        if original is not None:
            (root / job.fault[1]).write_bytes(original)
    out = Outcome(job, truth, seconds=time.monotonic() - start, text=text)
    result = ours(text)
    out.problems = compare(result, truth, str(root))
    if job.compiler == "clang" and "-save-temps" in job.flags:
        # clang -save-temps runs its stages as processes of their own, and the last rewrites the
        # diagnostics file the compile stage wrote: clang's own tallies are the truth
        errors, warnings = clang_tally(text)
        out.problems = [] if (result.reported_error_count, result.warning_count) == (errors, warnings) else [
            f"clang tally: says {errors} errors, {warnings} warnings; ours {result.reported_error_count}, {result.warning_count}"]
        return out
    if job.compiler == "clang":
        out.tally = clang_tally(text)
        # the tallies count what the diagnostics files hold, and sometimes the bare lines they miss
        filed = Counter(d.severity for d in truth if d.file or "too many errors" in d.message)
        every = Counter(d.severity for d in truth)
        quiet = "-fno-caret-diagnostics" in job.flags  # clang prints its tallies only with carets
        if not quiet and not (filed["error"] <= out.tally[0] <= every["error"] and filed["warning"] <= out.tally[1] <= every["warning"]):
            out.problems.append(f"clang tally: says {out.tally[0]} errors, {out.tally[1]} warnings; "
                                f"its diagnostics {every['error']}, {every['warning']}")
    if job.compiler == "clang" and len(job.units) > 1:
        # make -j2 runs lines of two units into each other: what that garbles is told apart
        out.problems = [p if p.startswith(("error count", "warning count")) else f"make -j2 {p}" for p in out.problems]
    return out


def shape(problem: str) -> str:
    return problem.split(":", 1)[0]


def report(outcomes: list[Outcome], elapsed: float) -> str:
    compiles = sum(len(o.job.units) for o in outcomes)
    bad = [o for o in outcomes if o.problems]
    by_shape = Counter(shape(p) for o in bad for p in o.problems)
    per = Counter((o.job.compiler, o.job.flags_name) for o in outcomes)
    per_bad = Counter((o.job.compiler, o.job.flags_name) for o in bad)
    diags = Counter(d.severity for o in outcomes for d in o.truth)
    notes = sum(len(d.notes) for o in outcomes for d in o.truth)
    lines = [f"{len(outcomes)} make runs, {compiles} compiles, {elapsed:.0f} s; truth: {diags['error']} errors, "
             f"{diags['warning']} warnings, {notes} notes; runs that disagree: {len(bad)}", ""]
    lines += ["| compiler | flags | runs | disagree |", "|---|---|---:|---:|"]
    lines += [f"| {c} | {f} | {n} | {per_bad[(c, f)]} |" for (c, f), n in sorted(per.items())]
    if by_shape:
        lines += ["", "| disagreement | count |", "|---|---:|"] + [f"| {s} | {n} |" for s, n in by_shape.most_common()]
    return "\n".join(lines)


def save(folder: Path, out: Outcome) -> None:
    """One run as --rescore reads it back: the log, the truth, what the report needs."""
    folder.mkdir(parents=True, exist_ok=True)
    job = out.job
    meta = {"key": job.key, "compiler": job.compiler, "flags_name": job.flags_name, "units": job.units,
            "root": str(SCRATCH / job.project.name), "problems": out.problems,
            "truth": [d.as_dict() for d in out.truth]}
    (folder / f"{job.key}.log").write_text(out.text)
    (folder / f"{job.key}.json").write_text(json.dumps(meta))


def rescore(folder: Path) -> str:
    """The saved runs compared again (counts, records, notes; clang's own tallies are not
    checked again): the same bytes read by the parser on the path now."""
    outcomes: list[Outcome] = []
    for meta_path in sorted(folder.glob("*.json")):
        meta = json.loads(meta_path.read_text())
        text = meta_path.with_suffix(".log").read_text()
        proj = Project("saved", Path(meta["root"]), "c", meta["units"], [])
        job = Job(meta["key"], proj, meta["compiler"], meta["flags_name"], "", meta["units"])
        truth = [Diag.from_dict(d) for d in meta["truth"]]
        out = Outcome(job, truth, text=text)
        result = ours(text)
        out.problems = compare(result, truth, meta["root"])
        if meta["compiler"] == "clang" and meta["flags_name"] == "save-temps":  # see run_job
            said = clang_tally(text)
            out.problems = [] if (result.reported_error_count, result.warning_count) == said else [
                f"clang tally: says {said[0]} errors, {said[1]} warnings"]
        if meta["compiler"] == "clang" and len(meta["units"]) > 1:
            out.problems = [p if p.startswith(("error count", "warning count")) else f"make -j2 {p}" for p in out.problems]
        for p in out.problems:
            print(f"{job.key} [{job.compiler} {job.flags_name}]: {p}")
        outcomes.append(out)
    return report(outcomes, 0.0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-compiles", type=int, default=600)
    ap.add_argument("--max-minutes", type=float, default=12.0)
    ap.add_argument("--per-project", type=int, default=40, help="seeded faults per project and compiler")
    ap.add_argument("--projects", default="", help="comma-separated subset")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--only", default="", help="comma-separated job keys (as printed) to run again")
    ap.add_argument("--flag-sets", default="", help="comma-separated flag-set names (as in the report): only those runs")
    ap.add_argument("--keep", type=Path, help="write each disagreeing run's log, truth and Makefile here")
    ap.add_argument("--write", type=Path, help="write the summary (markdown) here")
    ap.add_argument("--save", type=Path, help="write every run's log and truth here (for --rescore)")
    ap.add_argument("--rescore", type=Path, help="compare the runs --save wrote again, with this parser; run nothing")
    args = ap.parse_args()
    if args.rescore:
        print(rescore(args.rescore))
        return 0
    projs = [p for p in projects() if not args.projects or p.name in args.projects.split(",")]
    jobs = plan(projs, random.Random(args.seed), args.per_project)
    if args.only:
        jobs = [j for j in jobs if j.key in args.only.split(",")]
    if args.flag_sets:
        jobs = [j for j in jobs if j.flags_name in args.flag_sets.split(",")]
    shutil.rmtree(SCRATCH, ignore_errors=True)
    start = time.monotonic()
    outcomes: list[Outcome] = []
    compiles = 0
    for job in jobs:
        if compiles >= args.max_compiles or time.monotonic() - start > args.max_minutes * 60:
            break
        out = run_job(job, SCRATCH)
        if out is None:
            print(f"{job.key}: timed out", flush=True)
            continue
        compiles += len(job.units)
        outcomes.append(out)
        for p in out.problems:
            print(f"{job.key} [{job.driver} {job.flags_name} {' '.join(job.units)}"
                  f"{' fault: ' + job.fault[0] + ' in ' + job.fault[1] if job.fault else ''}]: {p}", flush=True)
        if args.save:
            save(args.save, out)
        if out.problems and args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            (args.keep / f"{job.key}.log").write_text(out.text)
            (args.keep / f"{job.key}.truth.json").write_text(json.dumps([d.as_dict() for d in out.truth], indent=1))
            (args.keep / f"{job.key}.Makefile").write_text(makefile(job, False, SCRATCH / "dia"))
            if job.fault:
                (args.keep / f"{job.key}.fault.txt").write_text(f"{job.fault[0]} in {job.fault[1]}: {job.fault[3]}\n")
    summary = report(outcomes, time.monotonic() - start)
    print(summary)
    if args.write:
        versions = [subprocess.run([c, "--version"], capture_output=True, text=True).stdout.splitlines()[0] for c in ("gcc", "clang", "make")]
        args.write.write_text(f"# Parse cross-check\n\nGenerated by `python bench/parse_crosscheck.py` (tools: {'; '.join(versions)}).\n\n{summary}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
