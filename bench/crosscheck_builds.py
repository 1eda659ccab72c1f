#!/usr/bin/env python3
"""Let gcc and the linker check our counts on whole builds: link steps, ``-flto``, CMake, pip.

bench/parse_crosscheck.py checks single compiles through ``make -k``; this checks the shapes around
them.  Each job is a real build of a development code base (lmdb, the demo, hiredis, brotli,
exprcalc) with a seeded fault, run twice from a clean build directory: once as a user sees it (the
text ``parse_text(log, "auto")`` reads) and once with ``-fdiagnostics-format=json`` added to every
gcc command, compiles and links alike (lto1 prints its diagnostics as JSON too), the truth.

The linker prints no structured form: its truth is its own lines (``linker_truth`` in
bench/crosscheck_truth.py, a rule of its own that imports nothing of the parser): every line the
linker prints that says ``error:`` / ``warning:`` or names an undefined reference, an undefined or
duplicate symbol, a multiple definition or a missing library is one diagnostic; ``in function``
context, ``>>>`` lines, ``NOTE:`` and ``first defined here`` / ``previous definition here`` lines are
not; the summaries (``lto-wrapper failed``, ``too many errors emitted``, collect2's ``ld returned 1
exit status``) are not.  Ours are compared by severity with it, gcc's by count and location.

Shapes (``--shapes``):

* ``link-bfd|gold|lld|mold``: make compiles, then gcc links through ``-fuse-ld=``; faults: a
  renamed definition (undefined references, ``In function`` lines), a unit linked twice
  (multiple definitions), common symbols under ``-fcommon -Wl,--warn-common``;
* ``lto``: ``-O2 -flto`` compiles and link (``-flto=2`` / ``-flto`` serial, ``-Werror`` at the
  link: ``lto1: all warnings being treated as errors``); faults: a unit that declares a project
  function with another type (``-Wlto-type-mismatch`` at link time), and the link faults above;
* ``cmake-ninja`` / ``cmake-make``: CMake 3 generating Ninja (``[3/7] Building C object``,
  ``FAILED:``, the echoed command, ``ninja: build stopped``) or Makefiles (``[ 50%]``,
  ``gmake[2]: ***``, sometimes ``-j2``), with a seeded compile fault;
* ``make-j2``: gcc under ``make -k -j2`` over several units, faults in two of them;
* ``libtool``: each unit through ``libtool --mode=compile`` (``libtool: compile:  gcc ...``, PIC into
  ``.libs/`` and again quietly), a ``.la`` linked from them;
* ``pip`` / ``pip-v`` / ``setup``: a setuptools C extension over the project's units built by
  ``pip wheel .`` (its failure box, 6 spaces in), ``pip wheel -v .`` and ``setup.py build_ext``;
* ``shapes``: a small project of our own for what the code bases lack: an include chain five deep,
  ``#warning`` / ``#error`` / ``#pragma GCC warning|error``, under ``-fmessage-length=80`` and the
  other text-shape flags.

Usage: python bench/crosscheck_builds.py [--max-jobs 200] [--max-minutes 12] [--shapes lto,pip]
                                         [--keep DIR] [--write bench/results/parse_crosscheck_builds.md]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from crosscheck_truth import Diag, compare, gcc_json_truth, linker_truth, ours  # noqa: E402
from parse_crosscheck import ENV, HERE, WORK, Project  # noqa: E402

SCRATCH = Path("/tmp/whetstone-crosscheck-builds")
BUILD = "xbuild"  # the build directory inside the scratch copy, removed before each run
JSON = "-fdiagnostics-format=json"
LINKERS = ("bfd", "gold", "lld", "mold")


@dataclass
class Code:
    """A code base that links: its units, the libraries it needs, a unit with main (if any)."""

    project: Project
    libs: str = ""
    main: str = ""  # "" when the code base is a library only


def code_bases() -> list[Code]:
    out: list[Code] = []
    lmdb = WORK / "lmdb"
    if lmdb.exists():
        out.append(Code(Project("lmdb", lmdb, "c", ["mdb.c", "midl.c", "mdb_stat.c"], ["."]), "-lpthread", "mdb_stat.c"))
    demo = HERE.parent / "pytest_whetstone" / "demo" / "cproject"
    out.append(Code(Project("demo", demo, "c", ["main.c", "stats.c"], ["."]), "-lm", "main.c"))
    hiredis = WORK / "native_fix" / "hiredis-3.5.0" / "vendor" / "hiredis"
    if hiredis.exists():
        out.append(Code(Project("hiredis", hiredis, "c", ["alloc.c", "async.c", "dict.c", "hiredis.c", "net.c", "read.c", "sds.c",
                                                          "sockcompat.c"], ["."])))
    brotli = WORK / "brotli"
    if brotli.exists():
        units = sorted(p.relative_to(brotli).as_posix() for d in ("c/common", "c/dec", "c/enc") for p in (brotli / d).glob("*.c"))
        out.append(Code(Project("brotli", brotli, "c", units + ["c/tools/brotli.c"], ["c/include"]), "-lm", "c/tools/brotli.c"))
    exprcalc = HERE / "native_dev" / "exprcalc"
    if exprcalc.exists():  # a library: no link of its own
        units = sorted(p.relative_to(exprcalc).as_posix() for p in (exprcalc / "src").glob("*.cc"))
        out.append(Code(Project("exprcalc", exprcalc, "cpp", units, ["src"], "", "-std=c++17")))
    return out


@dataclass
class BuildJob:
    key: str
    shape: str
    code: Code
    flags: str
    units: list[str]
    fault: tuple[str, str, str, str] | None = None  # (kind, file, mutated text, what)
    fault2: tuple[str, str, str, str] | None = None  # make -j2: a second fault, in another unit
    extra: dict[str, str] = field(default_factory=dict)  # files added to the tree (name -> text)
    link_flags: str = ""
    variant: str = ""  # the shape's own choice (linker, generator options, pip's -v)

    @property
    def driver(self) -> str:
        return "g++" if self.code.project.lang == "cpp" else "gcc"


@dataclass
class BuildOutcome:
    job: BuildJob
    truth: list[Diag]
    linker: list[Diag]
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    text: str = ""
    truth_log: str = ""  # what the JSON run printed


# --------------------------------------------------------------------------- build scripts


def obj(unit: str) -> str:
    return f"{BUILD}/{unit.rsplit('.', 1)[0].replace('/', '_')}.o"


def make_script(job: BuildJob, diag: str, parallel: bool = False) -> tuple[str, str]:
    """(Makefile, command): compile every unit, then link them (when the code base has a main)."""
    proj = job.code.project
    units = [*job.units, *(n for n in job.extra if n.endswith((".c", ".cc")))]
    incs = " ".join(f"-I{i}" for i in proj.includes)
    objs = " ".join(obj(u) for u in units)
    lines = [f"CC = {job.driver}", f"CFLAGS = {proj.std} {job.flags} {proj.defines} {incs} {diag}".strip(),
             f"LDFLAGS = {job.link_flags} {diag}".strip(), ""]
    if job.shape == "libtool":
        # autotools-style: "libtool: compile:  gcc ..." (PIC into .libs/, then again quietly), a .la
        los = " ".join(obj(u)[:-2] + ".lo" for u in units)
        tag = "CXX" if proj.lang == "cpp" else "CC"
        lines += [f"all: {BUILD}/libx.la", "", f"{BUILD}/libx.la: {los}",
                  f"\tlibtool --mode=link --tag={tag} $(CC) $(CFLAGS) $(LDFLAGS) -o $@ {los} -rpath /usr/local/lib", ""]
        for u in units:
            lines += [f"{obj(u)[:-2]}.lo: {u}", f"\t@mkdir -p {BUILD}", f"\tlibtool --mode=compile --tag={tag} $(CC) $(CFLAGS) -c {u} -o $@", ""]
        return "\n".join(lines), "make -k -f Makefile.crossbuild"
    goal = f"{BUILD}/prog" if job.code.main else objs
    lines += [f"all: {goal}", ""]
    if job.code.main:
        lines += [f"{BUILD}/prog: {objs}", f"\t$(CC) $(CFLAGS) $(LDFLAGS) {objs} -o $@ {job.code.libs}", ""]
    for u in units:
        lines += [f"{obj(u)}: {u}", f"\t@mkdir -p {BUILD}", f"\t$(CC) $(CFLAGS) -c {u} -o $@", ""]
    return "\n".join(lines), f"make -k {'-j2 ' if parallel else ''}-f Makefile.crossbuild"


def cmake_script(job: BuildJob, diag: str) -> tuple[str, str]:
    proj = job.code.project
    lang = "CXX" if proj.lang == "cpp" else "C"
    units = [*job.units, *(n for n in job.extra if n.endswith((".c", ".cc")))]
    srcs = " ".join(f"${{CMAKE_CURRENT_SOURCE_DIR}}/../{u}" for u in units)
    incs = " ".join(f"${{CMAKE_CURRENT_SOURCE_DIR}}/../{i}" for i in proj.includes)
    kind = f"add_executable(prog {srcs})" if job.code.main else f"add_library(prog STATIC {srcs})"
    libs = " ".join(lib[2:] for lib in job.code.libs.split() if lib.startswith("-l"))
    text = "\n".join([
        "cmake_minimum_required(VERSION 3.13)", f"project(crossbuild {lang})", kind,
        f"target_include_directories(prog PRIVATE {incs})",
        *([f"target_link_libraries(prog {libs})"] if libs and job.code.main else []), ""])
    flags = f"{proj.std} {job.flags} {proj.defines} {diag}".strip()
    gen = "Ninja" if job.shape == "cmake-ninja" else "Unix Makefiles"
    keep = "-k 0" if job.shape == "cmake-ninja" else ("-k -j2" if job.variant == "j2" and not diag else "-k")
    cmd = (f"cmake -S xcmake -B {BUILD} -G '{gen}' -DCMAKE_{lang}_COMPILER={job.driver} '-DCMAKE_{lang}_FLAGS={flags}' "
           f"'-DCMAKE_EXE_LINKER_FLAGS={job.link_flags} {diag}' && cmake --build {BUILD} -- {keep}")
    return text, cmd


PYMOD = """#define PY_SSIZE_T_CLEAN
#include <Python.h>
static struct PyModuleDef xmod = {PyModuleDef_HEAD_INIT, "xcrossbuild", NULL, -1, NULL};
PyMODINIT_FUNC PyInit_xcrossbuild(void) { return PyModule_Create(&xmod); }
"""


def setup_py(job: BuildJob) -> str:
    proj = job.code.project
    units = [u for u in job.units if u != job.code.main]
    return ("from setuptools import Extension, setup\n\n"
            f"setup(name='xcrossbuild', version='0.1', ext_modules=[Extension('xcrossbuild', {['xpymod.c', *units]!r}, "
            f"include_dirs={proj.includes!r}, libraries={[lib[2:] for lib in job.code.libs.split()]!r})])\n")


VENV = Path("/tmp/whetstone-dev-venv")  # setuptools and wheel (as tests/fixtures/build_dev/capture.py makes it)


def python_with_wheel() -> str:
    if not (VENV / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(VENV / "bin" / "pip"), "install", "-q", "setuptools", "wheel"], check=True)
    return str(VENV / "bin" / "python")


def pip_command(job: BuildJob, diag: str) -> str:
    flags = f"{job.flags} {diag}".strip()
    py = python_with_wheel()
    if job.shape == "setup":
        build = f"{py} setup.py build_ext --build-temp {BUILD}/tmp --build-lib {BUILD}/lib"
    else:
        build = f"{py} -m pip wheel {'-v ' if job.shape == 'pip-v' else ''}--no-build-isolation --no-deps -w {BUILD}/wheels ."
    return f"rm -rf build xcrossbuild.egg-info && CFLAGS='{flags}' {build}"


def prepare_build(root: Path, job: BuildJob, diag: str) -> tuple[str, dict[str, str]]:
    """Write the job's build files into ``root`` (the build directory removed): its (command, env)."""
    shutil.rmtree(root / BUILD, ignore_errors=True)
    if job.shape.startswith("cmake"):
        text, cmd = cmake_script(job, diag)
        (root / "xcmake").mkdir(exist_ok=True)
        (root / "xcmake" / "CMakeLists.txt").write_text(text)
    elif job.shape in ("pip", "pip-v", "setup"):
        (root / "setup.py").write_text(setup_py(job))
        (root / "xpymod.c").write_text(PYMOD)
        cmd = pip_command(job, diag)
    else:
        # the truth's run is serial: two gcc writing JSON at once would run their arrays together
        text, cmd = make_script(job, diag, parallel=job.shape == "make-j2" and not diag)
        (root / "Makefile.crossbuild").write_text(text)
    return cmd, dict(ENV, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")


def run_build(root: Path, job: BuildJob, diag: str, timeout: float) -> str:
    cmd, env = prepare_build(root, job, diag)
    try:
        proc = subprocess.run(["sh", "-c", cmd], cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return proc.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return ""


# --------------------------------------------------------------------------- the plan

# brotli builds 40 units (a pip build at -O3, twice, takes minutes): only where its size shows
# something the small code bases cannot (lto-wrapper's serial compilation of many partitions)
HEAVY = {"brotli": ("lto", "link-bfd", "cmake-ninja")}
LINK_FAULTS = ("renamed definition", "unit twice", "common")


def _function_names(seeds: list[tuple[str, str, str, str]]) -> list[str]:
    return [what.split(" -> ")[0] for kind, _f, _m, what in seeds if kind == "renamed definition"]


def plan(codes: list[Code], shapes: list[str], rng: random.Random, per_shape: int) -> list[BuildJob]:
    from fix_build_seed import seeds_in_file

    jobs: list[BuildJob] = []
    for k, code in enumerate(codes):
        proj = code.project
        files = [*proj.units, *proj.headers()]
        corpus = "\n".join((proj.root / f).read_text(errors="replace") for f in files)
        seeds: list[tuple[str, str, str, str]] = []
        for rel in files:
            for _kind, pool in sorted(seeds_in_file(proj.root, rel, header=rel not in proj.units, sources_text=corpus).items()):
                rng.shuffle(pool)
                seeds.extend((k, f, mutated, what) for k, f, _orig, mutated, what in pool[:2])
        rng.shuffle(seeds)
        compile_faults = [s for s in seeds if s[0] != "renamed definition"]
        renames = [s for s in seeds if s[0] == "renamed definition" and s[1] in proj.units]
        names = _function_names(renames)
        ext = "cc" if proj.lang == "cpp" else "c"
        for shape in shapes:
            linking = shape.startswith("link") or shape == "lto"
            if linking and not code.main:
                continue
            if shape in ("pip", "pip-v", "setup") and proj.lang != "c":
                continue
            if shape == "shapes":
                continue  # planned once, below
            if proj.name in HEAVY and shape not in HEAVY[proj.name]:
                continue
            for i in range(per_shape):
                key = f"{proj.name}-{shape}-{i}"
                job = BuildJob(key, shape, code, "-Wall -Wextra", list(proj.units))
                if linking:
                    job.variant = LINKERS[i % len(LINKERS)] if shape.startswith("link") else ("" if i % 3 else "werror")
                    if shape.startswith("link"):
                        job.variant = shape.split("-", 1)[1] if "-" in shape else job.variant
                    job.link_flags = f"-fuse-ld={job.variant}" if job.variant in LINKERS else ""
                    if shape == "lto":
                        job.flags = "-O2 -flto=2 -Wall" if i % 2 else "-O2 -flto -Wall"
                        if job.variant == "werror":
                            job.flags += " -Werror"
                    # the faults rotate over code bases too, so a small sample still holds each
                    kinds = LINK_FAULTS + ("lto type",) if shape == "lto" else LINK_FAULTS
                    fault = kinds[(i + k + len(shape)) % len(kinds)]
                    if fault == "renamed definition" and renames:
                        job.fault = renames[i % len(renames)]
                    elif fault == "unit twice":
                        twin = proj.units[i % len(proj.units)] if proj.units[i % len(proj.units)] != code.main else proj.units[0]
                        job.extra[f"xtwin.{ext}"] = f'#include "{twin}"\n'
                    elif fault == "common" and proj.lang == "c":
                        job.flags += " -fcommon"
                        job.link_flags += " -Wl,--warn-common"
                        job.extra["xcommon1.c"] = "int xcross_shared;\nint xcross_one(void) { return xcross_shared; }\n"
                        job.extra["xcommon2.c"] = "int xcross_shared;\nint xcross_two(void) { return xcross_shared + 1; }\n"
                    elif fault == "lto type" and names and proj.lang == "c":
                        name = names[i % len(names)]
                        job.extra["xlto.c"] = f"extern double {name}(double, char *);\ndouble xcross_lto(double x) {{ return {name}(x, 0); }}\n"
                    elif renames:
                        job.fault = renames[i % len(renames)]
                elif compile_faults:
                    job.fault = compile_faults[(i + len(shape)) % len(compile_faults)]
                    if shape == "make-j2" and len(compile_faults) > 1:
                        # a second fault in another unit: two units fail side by side
                        other = next((s for s in compile_faults if s[1] != job.fault[1] and s[1] in proj.units), None)
                        job.fault2 = other
                    if shape.startswith("cmake") and i % 2:
                        job.variant = "j2" if shape == "cmake-make" else ""
                        job.flags = "-Wall -Wextra -Wshadow -Wconversion"
                if shape in ("pip", "pip-v", "setup"):
                    job.units = [u for u in proj.units if u != code.main]
                jobs.append(job)
    if "shapes" in shapes:
        jobs.extend(shape_jobs())
    rng.shuffle(jobs)
    return jobs


# --------------------------------------------------------------------------- our own small project

SHAPES_SRC = {
    "inc/l1.h": '#include "l2.h"\n', "inc/l2.h": '#include "l3.h"\n', "inc/l3.h": '#include "l4.h"\n',
    "inc/l4.h": '#include "l5.h"\n',
    "inc/l5.h": "static inline int deep(int v) { int unused; unsigned u = 3; return v < u; }\n",
    "deep.c": '#include "inc/l1.h"\nint deep_use(int n) { return deep(n) + undeclared_name; }\n',
    "pragmas.c": '#warning "a warning the source asks for"\n#pragma GCC warning "pragma warning"\n'
                 '#pragma message "only a note"\nint pragmas(void) { return 0; }\n#pragma GCC error "pragma error"\n'
                 '#error this unit refuses to build\n',
    "wrapped.c": '#include <stdio.h>\n#include <string.h>\n'
                 "int a_function_with_a_rather_long_name_to_make_the_messages_wrap(long long first_argument_value) {\n"
                 '    char small_buffer[4]; unsigned long long very_long_variable_name = 3;\n'
                 '    if (first_argument_value < very_long_variable_name) printf("%d %s\\n", "a string", first_argument_value);\n'
                 '    strcpy(small_buffer, "this string is far too long for the buffer");\n'
                 "    return (int)small_buffer[0] + undeclared_identifier_with_a_long_name_too;\n}\n",
    "main.c": "int deep_use(int);\nint main(void) { return deep_use(1); }\n",
}
SHAPE_FLAGS = [  # (name, flags)
    ("message-length-80", "-Wall -Wextra -fmessage-length=80"),
    ("message-length-80-no-caret", "-Wall -Wextra -fmessage-length=80 -fno-diagnostics-show-caret"),
    ("no-show-option", "-Wall -Wextra -fno-diagnostics-show-option"),
    ("urls-always", "-Wall -Wextra -fdiagnostics-urls=always"),
    ("urls-color", "-Wall -Wextra -fdiagnostics-urls=always -fdiagnostics-color=always"),
    ("w", "-w"),
    ("pedantic-c89", "-std=c89 -Wpedantic -Wall"),
    ("save-temps", "-Wall -save-temps=cwd"),
    ("fortify", "-g3 -O2 -D_FORTIFY_SOURCE=2 -Wall -Wextra"),
    ("asan", "-Wall -fsanitize=address -g"),
    ("analyzer-separate", "-Wall -fanalyzer -fdiagnostics-path-format=separate-events"),
]


def shape_jobs() -> list[BuildJob]:
    root = SCRATCH / "src-shapes"
    shutil.rmtree(root, ignore_errors=True)
    for name, text in SHAPES_SRC.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    code = Code(Project("shapes", root, "c", ["deep.c", "pragmas.c", "wrapped.c", "main.c"], ["."]), "", "main.c")
    jobs = []
    for name, flags in SHAPE_FLAGS:
        jobs.append(BuildJob(f"shapes-{name}", "shapes", code, flags, list(code.project.units),
                             link_flags="-fsanitize=address" if "sanitize" in flags else ""))
    return jobs


# --------------------------------------------------------------------------- running and comparing


def compare_build(text: str, truth: list[Diag], linker: list[Diag], root: str) -> list[str]:
    """compare() for the compiler's records; the linker's records by severity against its lines."""
    prefix = root.rstrip("/") + "/"
    truth = [replace(d, file=d.file[len(prefix):] if d.file.startswith(prefix) else d.file,
                     notes=[(f[len(prefix):] if f.startswith(prefix) else f, line, col) for f, line, col in d.notes]) for d in truth]
    result = ours(text)
    mine_linker = [r for r in result.build_errors if r.tool == "linker"]
    compiler_part = replace(result, build_errors=[r for r in result.build_errors if r.tool != "linker"])
    problems = compare(compiler_part, truth, root)
    problems = [p for p in problems if not p.startswith(("error count", "warning count"))]
    errors = sum(1 for d in [*truth, *linker] if d.severity == "error")
    warnings = sum(1 for d in [*truth, *linker] if d.severity == "warning")
    if result.reported_error_count != errors:
        problems.insert(0, f"error count: ours {result.reported_error_count}, tools {errors}")
    if result.warning_count != warnings:
        problems.insert(0, f"warning count: ours {result.warning_count}, tools {warnings}")
    said = Counter(d.severity for d in linker)
    got = Counter(r.severity for r in mine_linker)
    for sev in ("error", "warning"):
        if said[sev] != got[sev]:
            problems.append(f"linker {sev}s: ours {got[sev]}, ld {said[sev]}")
    return problems


def job_root(job: BuildJob, scratch: Path) -> Path:
    """The scratch copy of the job's code base (made on first use)."""
    root = scratch / job.code.project.name
    if not root.exists():
        shutil.copytree(job.code.project.root, root, ignore=shutil.ignore_patterns("build", "node_modules", ".git", "*.egg-info"))
    return root


@contextlib.contextmanager
def seeded(job: BuildJob, root: Path) -> Iterator[None]:
    """The job's faults and extra files in ``root`` while the context lasts; the copy restored after."""
    originals: dict[Path, bytes] = {}
    for fault in (job.fault, job.fault2):
        if fault:
            path = root / fault[1]
            originals.setdefault(path, path.read_bytes())
            path.write_text(fault[2], errors="surrogateescape")
    for name, text in job.extra.items():
        (root / name).write_text(text)
    try:
        yield
    finally:
        for path, data in originals.items():
            path.write_bytes(data)
        for name in job.extra:
            (root / name).unlink(missing_ok=True)
        shutil.rmtree(root / BUILD, ignore_errors=True)


def run_job(job: BuildJob, scratch: Path) -> BuildOutcome | None:
    root = job_root(job, scratch)
    start = time.monotonic()
    with seeded(job, root):
        text = run_build(root, job, "", 600)
        if not text:
            return None
        truth_log = run_build(root, job, JSON, 600)
    truth = gcc_json_truth(truth_log)
    linker = linker_truth(text)
    out = BuildOutcome(job, truth, linker, seconds=time.monotonic() - start, text=text, truth_log=truth_log)
    out.problems = compare_build(text, truth, linker, str(root))
    return out


def report(outcomes: list[BuildOutcome], elapsed: float) -> str:
    bad = [o for o in outcomes if o.problems]
    per = Counter(o.job.shape for o in outcomes)
    per_bad = Counter(o.job.shape for o in bad)
    diags = Counter(d.severity for o in outcomes for d in o.truth)
    links = Counter(d.severity for o in outcomes for d in o.linker)
    lines = [f"{len(outcomes)} builds, {elapsed:.0f} s; truth: gcc {diags['error']} errors, {diags['warning']} warnings; "
             f"linker {links['error']} errors, {links['warning']} warnings; builds that disagree: {len(bad)}", "",
             "| shape | builds | disagree |", "|---|---:|---:|"]
    lines += [f"| {s} | {n} | {per_bad[s]} |" for s, n in sorted(per.items())]
    shapes = Counter(p.split(":", 1)[0] for o in bad for p in o.problems)
    if shapes:
        lines += ["", "| disagreement | count |", "|---|---:|"] + [f"| {s} | {n} |" for s, n in shapes.most_common()]
    return "\n".join(lines)


def save(folder: Path, out: BuildOutcome) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    job = out.job
    meta = {"key": job.key, "shape": job.shape, "root": str(SCRATCH / job.code.project.name),
            "truth": [d.as_dict() for d in out.truth], "linker": [d.as_dict() for d in out.linker]}
    (folder / f"{job.key}.log").write_text(out.text)
    (folder / f"{job.key}.truth.log").write_text(out.truth_log)
    (folder / f"{job.key}.json").write_text(json.dumps(meta))


def rescore(folder: Path) -> str:
    """The saved builds compared again: the same bytes read by the parser on the path now."""
    outcomes: list[BuildOutcome] = []
    for meta_path in sorted(folder.glob("*.json")):
        meta = json.loads(meta_path.read_text())
        text = meta_path.with_suffix(".log").read_text()
        code = Code(Project("saved", Path(meta["root"]), "c", [], []))
        job = BuildJob(meta["key"], meta["shape"], code, "", [])
        # the truth read again from what the tools printed (the rule may have learnt since)
        truth_log = meta_path.with_suffix(".truth.log")
        truth = gcc_json_truth(truth_log.read_text()) if truth_log.exists() else [Diag.from_dict(d) for d in meta["truth"]]
        out = BuildOutcome(job, truth, linker_truth(text), text=text)
        out.problems = compare_build(text, out.truth, out.linker, meta["root"])
        for p in out.problems:
            print(f"{job.key} [{job.shape}]: {p}")
        outcomes.append(out)
    return report(outcomes, 0.0)


ALL_SHAPES = ["link-bfd", "link-gold", "link-lld", "link-mold", "lto", "cmake-ninja", "cmake-make", "make-j2", "libtool", "pip",
              "pip-v", "setup", "shapes"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-jobs", type=int, default=200)
    ap.add_argument("--max-minutes", type=float, default=12.0)
    ap.add_argument("--per-shape", type=int, default=3, help="builds per code base and shape")
    ap.add_argument("--shapes", default=",".join(ALL_SHAPES))
    ap.add_argument("--projects", default="", help="comma-separated subset")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--only", default="", help="comma-separated job keys (as printed) to run again")
    ap.add_argument("--keep", type=Path, help="write each disagreeing build's log and truth here")
    ap.add_argument("--write", type=Path, help="write the summary (markdown) here")
    ap.add_argument("--save", type=Path, help="write every build's log and truth here (for --rescore)")
    ap.add_argument("--rescore", type=Path, help="compare the builds --save wrote again, with this parser; build nothing")
    args = ap.parse_args()
    if args.rescore:
        print(rescore(args.rescore))
        return 0
    codes = [c for c in code_bases() if not args.projects or c.project.name in args.projects.split(",")]
    shutil.rmtree(SCRATCH, ignore_errors=True)
    jobs = plan(codes, args.shapes.split(","), random.Random(args.seed), args.per_shape)
    if args.only:
        jobs = [j for j in jobs if j.key in args.only.split(",")]
    start = time.monotonic()
    outcomes: list[BuildOutcome] = []
    for job in jobs[: args.max_jobs]:
        if time.monotonic() - start > args.max_minutes * 60:
            break
        out = run_job(job, SCRATCH)
        if out is None:
            print(f"{job.key}: timed out", flush=True)
            continue
        outcomes.append(out)
        print(f"{job.key} [{job.shape} {job.variant} {job.flags}{' fault: ' + job.fault[0] + ' in ' + job.fault[1] if job.fault else ''}"
              f"{' +' + ','.join(job.extra) if job.extra else ''}] {out.seconds:.0f}s {len(out.problems)} problems", flush=True)
        for p in out.problems:
            print(f"    {p}", flush=True)
        if args.save:
            save(args.save, out)
        if out.problems and args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            (args.keep / f"{job.key}.log").write_text(out.text)
            (args.keep / f"{job.key}.truth.json").write_text(json.dumps([d.as_dict() for d in [*out.truth, *out.linker]], indent=1))
    summary = report(outcomes, time.monotonic() - start)
    print(summary)
    if args.write:
        versions = [subprocess.run([c, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
                    for c in ("gcc", "ld", "cmake", "ninja", "make")]
        args.write.write_text(f"# Parse cross-check: builds\n\nGenerated by `python bench/crosscheck_builds.py` "
                              f"(tools: {'; '.join(versions)}).\n\n{summary}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
