"""Seeded-fault benchmark for C build fixes (not a test; run by hand).

    python bench/bench_fix_build.py [--per-kind N] [--compilers gcc,clang] [--new-kinds] [--kinds K,..] [--loop]
                                    [--projects brotli,lmdb,leveldb]

Downloads real C projects at bench time into bench/_work/ (never committed):
brotli (PyPI sdist: the C library + its CLI, linked with -lm) and LMDB (shipped
inside the npm package node-lmdb: mdb.c, midl.c and the mdb_stat tool).  Seeds
faults with tree-sitter (misspelled identifier, missing semicolon, missing
include, missing header, type mismatch, undefined reference, missing -lm),
builds with make through ccwrap (so the store records the compile commands and candidates are
checked with the per-file gate, as for a user's `CC=ccwrap` build), and for each fault measures:

* whetstone: apply the top candidate with an edit (one application) -> does
  the build pass, and is every file byte-identical to the original?
* fix-its only: apply only the compiler's own fix-its of the first error.

Compiler flags turn on the errors newer compilers make default
(-Werror=implicit-function-declaration, -Werror=int-conversion); the
undefined-reference faults build without the first so the linker reports them.
``--new-kinds`` adds the held-out bench's fault shapes (a declaration or struct missing its ``;``,
a function missing its closing brace, ``x`` for ``&x``, a dropped argument, a renamed definition,
an include of a header that does not exist, a project header's include removed, a source dropped
from the link), seeded by fix_build_seed.py; the first error's class is checked against the kind,
as parsed and once more after the gate checked the candidates (what a report shows).  ``--loop``
also hands each fault to the fix loop (bench_fix_build_loop.py).  ``--projects`` picks the code
bases: brotli and LMDB (C) by default, LevelDB (C++, from the npm package leveldown) on request.
Results: bench/results/fix_build.md (``--out`` for another file).
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))  # the compiler-output reader shared with the tests

from bench_fix_build_loop import LoopOutcome, run_loop, summary_rows  # noqa: E402
from cfamily_support import parse_build_output  # noqa: E402

from pytest_whetstone import edits  # noqa: E402
from pytest_whetstone.candidates.build import generate_build_candidates  # noqa: E402
from pytest_whetstone.locate import cfamily  # noqa: E402
from pytest_whetstone.store.sessions import find_store, open_session  # noqa: E402

WORK = HERE / "_work"
STORE = WORK / ".whetstone-dev"  # ccwrap records the commands here, so candidates are checked with the gate
CCWRAP = WORK / "bin" / "ccwrap"
STRICT = "-O0 -Werror=implicit-function-declaration -Werror=int-conversion -Werror=incompatible-pointer-types"
LOOSE = "-O0 -Wno-implicit-function-declaration -Werror=int-conversion -Werror=incompatible-pointer-types"
CXXFLAGS = "-O0 -std=c++11"
PROJECTS = ("brotli", "lmdb", "leveldb")


@dataclass
class Project:
    name: str
    root: Path
    sources: list[str]
    includes: list[str]
    libm: bool
    lang: str = "c"  # "cpp": compiled with g++ / clang++
    defines: str = ""
    libs: str = ""

    def compiler(self, cc: str) -> str:
        return {"gcc": "g++", "clang": "clang++"}[cc] if self.lang == "cpp" else cc

    def flags(self, loose: bool = False) -> str:
        base = CXXFLAGS if self.lang == "cpp" else (LOOSE if loose else STRICT)
        return f"{base} {self.defines}".strip()

    def headers(self) -> list[str]:
        dirs = {*self.includes, *(str(Path(s).parent) for s in self.sources)}
        return sorted({h.relative_to(self.root).as_posix() for d in dirs for h in (self.root / d).glob("*.h")})


@dataclass
class Fault:
    project: str
    kind: str
    file: str
    original: str
    mutated: str
    what: str


# --------------------------------------------------------------------------- fetch


def fetch(names: tuple[str, ...] = PROJECTS) -> list[Project]:
    WORK.mkdir(parents=True, exist_ok=True)
    out: list[Project] = []
    brotli = WORK / "brotli"
    if not brotli.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "brotli==1.2.1", "-d", str(WORK)], check=True, capture_output=True)
        with tarfile.open(next(WORK.glob("brotli-*.tar.gz"))) as tar:
            tar.extractall(WORK, filter="data")
        next(p for p in WORK.glob("brotli-*") if p.is_dir()).rename(brotli)
    srcs = sorted(p.relative_to(brotli).as_posix() for d in ("c/common", "c/dec", "c/enc") for p in (brotli / d).glob("*.c"))
    out.append(Project("brotli", brotli, srcs + ["c/tools/brotli.c"], ["c/include"], True))
    lmdb = WORK / "lmdb"
    if not lmdb.exists():
        subprocess.run(["npm", "pack", "node-lmdb@0.10.1", "--pack-destination", str(WORK)], check=True, capture_output=True, cwd=WORK)
        with tarfile.open(next(WORK.glob("node-lmdb-*.tgz"))) as tar:
            tar.extractall(WORK / "node-lmdb", filter="data")
        shutil.copytree(WORK / "node-lmdb/package/dependencies/lmdb/libraries/liblmdb", lmdb)
    out.append(Project("lmdb", lmdb, ["mdb.c", "midl.c", "mdb_stat.c"], ["."], False))
    leveldb = WORK / "leveldb"
    if "leveldb" in names and not leveldb.exists():
        subprocess.run(["npm", "pack", "leveldown@6.1.1", "--pack-destination", str(WORK)], check=True, capture_output=True, cwd=WORK)
        with tarfile.open(next(WORK.glob("leveldown-*.tgz"))) as tar:
            tar.extractall(WORK / "leveldown", filter="data")
        shutil.copytree(WORK / "leveldown/package/deps/leveldb/leveldb-1.20", leveldb)
    if "leveldb" in names:
        # the library as leveldown builds it on POSIX (no snappy), linked into its leveldbutil tool
        cc = sorted(p.relative_to(leveldb).as_posix() for d in ("db", "table", "util") for p in (leveldb / d).glob("*.cc")
                    if not p.name.endswith(("_test.cc", "_bench.cc")) and p.name not in ("testharness.cc", "testutil.cc", "c.cc"))
        srcs = cc + ["port/port_posix.cc", "port/port_posix_sse.cc", "helpers/memenv/memenv.cc"]
        out.append(Project("leveldb", leveldb, srcs, [".", "include"], False, "cpp", "-DLEVELDB_PLATFORM_POSIX -DOS_LINUX", "-lpthread"))
    return [p for p in out if p.name in names]


def write_makefile(project: Project, cc: str) -> None:
    objs = " ".join(f"obj-{cc}/{s.rsplit('.', 1)[0]}.o" for s in project.sources)
    incs = " ".join(f"-I{i}" for i in project.includes)
    ext = "cc" if project.lang == "cpp" else "c"
    libs = " ".join(x for x in ("-lm" if project.libm else "", project.libs) if x)
    text = (
        f"CC = {CCWRAP} {project.compiler(cc)}\n"
        f"CFLAGS = {project.flags()} {incs}\n"
        f"LDLIBS = {libs}\n"
        f"OBJS = {objs}\n\n"
        f"prog-{cc}: $(OBJS)\n\t$(CC) -o $@ $(OBJS) $(LDLIBS)\n\n"
        f"obj-{cc}/%.o: %.{ext}\n\t@mkdir -p $(dir $@)\n\t$(CC) $(CFLAGS) -MMD -MP -fdiagnostics-parseable-fixits -c $< -o $@\n\n"
        "-include $(OBJS:.o=.d)\n"  # a seeded header fault rebuilds the units that include it
    )
    (project.root / "Makefile").write_text(text)


def make(project: Project, cc: str, cflags: str | None = None) -> tuple[int, str]:
    argv = ["make", "-s"]
    if cflags is not None:
        argv.append(f"CFLAGS={cflags} " + " ".join(f"-I{i}" for i in project.includes))
    proc = subprocess.run(argv, cwd=project.root, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "WHETSTONE_DIR": str(STORE)}, timeout=600)
    return proc.returncode, proc.stdout + proc.stderr


# --------------------------------------------------------------------------- seeding


def _functions(pf: cfamily.ParsedFile) -> list:
    stack, out = [pf.tree.root_node], []
    while stack:
        node = stack.pop()
        if node.type == "function_definition":
            out.append(node)
            continue
        stack.extend(node.named_children)
    return out


def _walk(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.named_children)


def _replace_bytes(src: bytes, start: int, end: int, new: bytes) -> str:
    return (src[:start] + new + src[end:]).decode()


def seed(project: Project, rng: random.Random, per_kind: int) -> list[Fault]:
    faults: dict[str, list[Fault]] = {}
    index = cfamily.FunctionIndex(project.root)
    defined = {f.short: f.file_path for f in index.functions}
    for rel in project.sources:
        path = project.root / rel
        pf = cfamily.parse_file(path)
        if pf is None:
            continue
        src = pf.source
        text = src.decode()
        for fn in _functions(pf):
            locals_: set[str] = set()
            for n in _walk(fn):
                if n.type in ("init_declarator", "parameter_declaration", "declaration"):
                    d = n.child_by_field_name("declarator")
                    while d is not None and d.type != "identifier":
                        d = d.child_by_field_name("declarator")
                    if d is not None:
                        locals_.add(d.text.decode())
            for n in _walk(fn):
                if n.type == "identifier" and n.parent is not None and n.parent.type in ("binary_expression", "return_statement", "argument_list", "assignment_expression") and n.text.decode() in locals_:
                    name = n.text.decode()
                    bad = name[:-2] + name[-1:] if len(name) >= 5 else ""
                    if bad and bad not in text:
                        faults.setdefault("misspelled identifier", []).append(Fault(project.name, "misspelled identifier", rel, text, _replace_bytes(src, n.start_byte, n.end_byte, bad.encode()), f"{name} -> {bad}"))
                if n.type == "expression_statement" and n.text.endswith(b";") and n.start_point[0] == n.end_point[0] and n.parent is not None and n.parent.type == "compound_statement":
                    faults.setdefault("missing semicolon", []).append(Fault(project.name, "missing semicolon", rel, text, _replace_bytes(src, n.end_byte - 1, n.end_byte, b""), f"line {n.end_point[0] + 1}"))
                if n.type == "declaration" and n.parent is not None and n.parent.type == "compound_statement" and n.start_point[0] == n.end_point[0]:
                    typ = n.child_by_field_name("type")
                    ds = n.children_by_field_name("declarator")
                    if typ is not None and len(ds) == 1 and ds[0].type == "init_declarator":
                        inner = ds[0].child_by_field_name("declarator")
                        if inner is not None and inner.type == "pointer_declarator" and inner.child_by_field_name("declarator").type == "identifier":
                            name = inner.child_by_field_name("declarator")
                            start = n.start_byte if typ.start_byte == n.start_byte else typ.start_byte
                            faults.setdefault("type mismatch", []).append(Fault(project.name, "type mismatch", rel, text, _replace_bytes(src, start, name.start_byte, b"int "), f"line {n.start_point[0] + 1}"))
                if n.type == "call_expression":
                    f = n.child_by_field_name("function")
                    if f is not None and f.type == "identifier":
                        name = f.text.decode()
                        if defined.get(name) and defined[name] != rel and len(name) >= 6 and "static" not in name:
                            bad = name[:-2] + name[-1:]
                            if bad not in text and bad not in defined:
                                faults.setdefault("undefined reference", []).append(Fault(project.name, "undefined reference", rel, text, _replace_bytes(src, f.start_byte, f.end_byte, bad.encode()), f"{name} -> {bad}"))
        for n in pf.tree.root_node.named_children:
            if n.type == "preproc_include":
                p = n.child_by_field_name("path")
                if p is None:
                    continue
                if p.type == "system_lib_string":
                    faults.setdefault("missing include", []).append(Fault(project.name, "missing include", rel, text, _replace_bytes(src, n.start_byte, n.end_byte, b""), p.text.decode()))
                else:
                    name = p.text.decode().strip('"')
                    base = Path(name).name
                    stem = base.rsplit(".", 1)[0]
                    if len(stem) >= 4:
                        bad = name[: len(name) - len(base)] + stem[:-2] + stem[-1:] + base[len(stem):]
                        faults.setdefault("missing header", []).append(Fault(project.name, "missing header", rel, text, _replace_bytes(src, p.start_byte, p.end_byte, f'"{bad}"'.encode()), f"{name} -> {bad}"))
    chosen: list[Fault] = []
    for kind in sorted(faults):
        pool = faults[kind]
        rng.shuffle(pool)
        chosen.extend(pool[: per_kind * 3])  # extra: some seeds do not break the build
    if project.libm:
        mk = (project.root / "Makefile").read_text()
        chosen.append(Fault(project.name, "missing -lm", "Makefile", mk, mk.replace("LDLIBS = -lm\n", "LDLIBS =\n"), "LDLIBS = -lm removed"))
    return chosen


def new_kinds(project: Project, rng: random.Random, per_kind: int, cc: str) -> list[Fault]:
    """The further fault shapes (fix_build_seed.py), and a source dropped from the Makefile's list of objects."""
    from fix_build_seed import seed_new

    out = [Fault(project.name, *s) for s in seed_new(project.root, project.sources, project.headers(), rng, per_kind)]
    mk = (project.root / "Makefile").read_text()
    mains = {s for s in project.sources if "main(" in (project.root / s).read_text(errors="replace")}
    droppable = [s for s in project.sources if s not in mains]
    for rel in rng.sample(droppable, min(len(droppable), per_kind * 2)):
        obj = f" obj-{cc}/{rel.rsplit('.', 1)[0]}.o"
        out.append(Fault(project.name, "dropped source", "Makefile", mk, mk.replace(obj, "", 1), f"{rel} left out of OBJS"))
    return out


# The kinds a seeded fault is, and the error types its first error may rightly get.
EXPECTED = {
    "misspelled identifier": {"undefined_symbol"},
    "missing semicolon": {"syntax_error"},
    "declaration semicolon": {"syntax_error"},
    "struct semicolon": {"syntax_error"},
    "closing brace": {"syntax_error"},
    "missing include": {"missing_include", "undefined_symbol"},
    "missing header": {"missing_include"},
    "nonexistent header": {"missing_include"},
    "removed project header": {"missing_include", "undefined_symbol"},
    "type mismatch": {"type_mismatch"},
    "address argument": {"type_mismatch"},
    "dropped argument": {"type_mismatch"},
    "undefined reference": {"undefined_symbol"},
    "renamed definition": {"undefined_symbol"},
    "missing -lm": {"undefined_symbol", "link_error", "missing_dependency"},
    "dropped source": {"undefined_symbol", "link_error", "missing_dependency"},
}


# --------------------------------------------------------------------------- run


@dataclass
class Outcome:
    fault: Fault
    cc: str
    ours_pass: bool
    ours_exact: bool
    fixit_pass: bool
    fixit_exact: bool
    top: str
    error_type: str = ""
    first_error: str = ""  # the first failing record, as "file:line: message" (to read a wrong class)
    shown_type: str = ""  # its class after the candidates were checked with the gate (what a report shows)
    shown_right: bool = True
    classified: bool = True
    loop: LoopOutcome | None = None


def _attempt(project: Project, fault: Fault, cc: str, cflags: str, pick, classes: list[str] | None = None,
             firsts: list[str] | None = None, shown: list[str] | None = None) -> tuple[bool, bool, str]:
    code, out = make(project, cc, cflags)
    if code == 0:
        return True, True, "(builds)"
    records = parse_build_output(out, cc, project.root)
    if classes is not None:
        classes.extend(r.error_type for r in records if r.is_failure)
    if firsts is not None:
        firsts.extend(f"{r.file_path}:{r.line}: {r.message}"[:160] for r in records if r.is_failure)
    for r in records:
        r.file_path = r.file_path  # relative to the project root already
    cands = generate_build_candidates(records, project.root)
    if shown is not None:
        shown.extend(r.error_type for r in records if r.is_failure)
    chosen = pick(cands)
    if chosen is None:
        return False, False, "(no candidate)"
    try:
        edits.apply(chosen, project.root, open_session(find_store(project.root), "bench"))
    except edits.EditError as exc:
        return False, False, f"(apply refused: {exc})"
    code, _ = make(project, cc, cflags)
    exact = (project.root / fault.file).read_text() == fault.original
    return code == 0, exact and code == 0, chosen.description[:90]


def run_fault(project: Project, fault: Fault, cc: str, loop: bool = False) -> Outcome | None:
    path = project.root / fault.file
    cflags = project.flags(loose=fault.kind == "undefined reference")
    try:
        path.write_text(fault.mutated)
        code, _ = make(project, cc, cflags)
        if code == 0:
            return None  # the seed did not break the build: not a fault
        path.write_text(fault.mutated)
        classes: list[str] = []
        firsts: list[str] = []
        shown: list[str] = []
        ours = _attempt(project, fault, cc, cflags, lambda cs: next((c for c in cs if c.edits), None), classes, firsts, shown)
        etype = classes[0] if classes else "(none)"
        expected = EXPECTED.get(fault.kind)
        path.write_text(fault.mutated)
        if fault.file != "Makefile":
            (project.root / "Makefile").write_text(_makefile_text[project.name, cc])
        fixit = _attempt(
            project, fault, cc, cflags,
            lambda cs: next((c for c in cs if c.source == "compiler-fixit" and c.mutation.get("kind") == "fixit"), None),
        )
        looped = None
        if loop:
            path.write_text(fault.mutated)
            mk = _makefile_text[project.name, cc]
            if fault.file != "Makefile":
                (project.root / "Makefile").write_text(mk)
            if fault.file == "Makefile":  # the program does not depend on its Makefile: relink it
                (project.root / f"prog-{cc}").unlink(missing_ok=True)
            incs = " ".join(f"-I{i}" for i in project.includes)
            build = f"make -s 'CFLAGS={cflags} {incs}'"
            originals = {path: fault.original.encode(), project.root / "Makefile": (fault.original if fault.file == "Makefile" else mk).encode()}
            looped = run_loop(project.root, STORE, build, originals, lambda: make(project, cc, cflags)[0])
        stype = shown[0] if shown else etype
        return Outcome(fault, cc, ours[0], ours[1], fixit[0], fixit[1], ours[2], etype, firsts[0] if firsts else "",
                       stype, expected is None or stype in expected, expected is None or etype in expected, looped)
    finally:
        path.write_text(fault.original)
        (project.root / "Makefile").write_text(_makefile_text[project.name, cc])
        # a candidate or fix-it may have edited another file (a caller, a header): put every one back
        for rel, text in _pristine.get(project.name, {}).items():
            if (project.root / rel).read_bytes() != text:
                (project.root / rel).write_bytes(text)


_makefile_text: dict[tuple[str, str], str] = {}
_pristine: dict[str, dict[str, bytes]] = {}  # every source and header of a project as fetched


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-kind", type=int, default=3)
    parser.add_argument("--compilers", default="gcc,clang")
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--new-kinds", action="store_true", help="also seed the held-out bench's fault shapes")
    parser.add_argument("--kinds", default="", help="only these kinds (comma-separated)")
    parser.add_argument("--loop", action="store_true", help="also run the fix loop on every fault (convergence)")
    parser.add_argument("--out", default="fix_build.md", help="results file under bench/results/")
    parser.add_argument("--projects", default="brotli,lmdb", help=f"which code bases (of {','.join(PROJECTS)})")
    args = parser.parse_args()
    projects = fetch(tuple(args.projects.split(",")))
    import os

    from ccwrap import native

    if native.build(CCWRAP.parent) is None:
        print("cannot build the native ccwrap")
        return 1
    shutil.rmtree(STORE, ignore_errors=True)
    (STORE / "sessions").mkdir(parents=True)
    os.environ["WHETSTONE_DIR"] = str(STORE)
    results: list[Outcome] = []
    started = time.monotonic()
    for cc in args.compilers.split(","):
        for project in projects:
            write_makefile(project, cc)
            _makefile_text[project.name, cc] = (project.root / "Makefile").read_text()
            _pristine.setdefault(project.name, {rel: (project.root / rel).read_bytes() for rel in [*project.sources, *project.headers()]})
            code, out = make(project, cc)
            if code != 0:
                print(f"{project.name} does not build cleanly with {cc}:\n{out[-2000:]}")
                return 1
            rng = random.Random(args.seed)
            per_kind: dict[str, int] = {}
            pool = seed(project, rng, args.per_kind)
            if args.new_kinds:
                pool += new_kinds(project, rng, args.per_kind, cc)
            only = {k.strip() for k in args.kinds.split(",") if k.strip()}
            for fault in pool:
                if per_kind.get(fault.kind, 0) >= args.per_kind and fault.kind != "missing -lm":
                    continue
                if only and fault.kind not in only:
                    continue
                outcome = run_fault(project, fault, cc, args.loop)
                if outcome is None:
                    continue
                per_kind[fault.kind] = per_kind.get(fault.kind, 0) + 1
                results.append(outcome)
                lp = "" if outcome.loop is None else f" loop={'converged' if outcome.loop.converged else outcome.loop.reason}/{outcome.loop.exact}"
                print(f"{cc:5} {project.name:7} {fault.kind:22} pass={outcome.ours_pass!s:5} exact={outcome.ours_exact!s:5} "
                      f"class={outcome.error_type}{'' if outcome.classified else '(WRONG: ' + outcome.first_error + ')'}"
                      f"{'' if outcome.shown_type == outcome.error_type else ' gate=' + outcome.shown_type}{lp} {fault.what} | {outcome.top}", flush=True)
    write_report(results, time.monotonic() - started, args.out)
    return 0


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.0f}% ({n}/{d})" if d else "-"


def write_report(results: list[Outcome], elapsed: float, name: str = "fix_build.md") -> None:
    lines = [
        "# Build fix benchmark (seeded faults in real C code)",
        "",
        "Generated by `python bench/bench_fix_build.py`; projects downloaded at bench time: brotli 1.2.1 (PyPI sdist, C library + CLI, links libm), LMDB (from the npm package node-lmdb 0.10.1: mdb.c, midl.c, mdb_stat.c)"
        " and, with `--projects ...,leveldb`, LevelDB 1.20 (C++, from the npm package leveldown 6.1.1: the library and its leveldbutil tool, `-std=c++11`).",
        f"Compilers: {subprocess.run(['gcc', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}; {subprocess.run(['clang', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}. Flags: `{STRICT}` (`{LOOSE}` for undefined references). Wall time {elapsed:.0f} s.",
        "",
        "One application of the top candidate with edits; *exact* = every file byte-identical to the original afterwards.",
        "*fix-its only* = apply only the compiler's own fix-its of the first error that has any.",
        "",
        "*classification* = the first failing record's class as parsed; *after the gate* = its class once the candidates were checked"
        " (a fix that leaves the unit clean confirms or corrects it: what `whetstone report` shows).",
        "",
        "| compiler | faults | whetstone: build passes | whetstone: exact fix | classification | after the gate | fix-its only: passes | fix-its only: exact |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for cc in sorted({r.cc for r in results}) + ["all"]:
        rs = [r for r in results if cc in ("all", r.cc)]
        lines.append(
            f"| {cc} | {len(rs)} | {_pct(sum(r.ours_pass for r in rs), len(rs))} | {_pct(sum(r.ours_exact for r in rs), len(rs))} "
            f"| {_pct(sum(r.classified for r in rs), len(rs))} | {_pct(sum(r.shown_right for r in rs), len(rs))} | {_pct(sum(r.fixit_pass for r in rs), len(rs))} | {_pct(sum(r.fixit_exact for r in rs), len(rs))} |"
        )
    looped = [(r.cc, r.loop) for r in results if r.loop is not None]
    if looped:
        lines += ["", "The fix loop (`whetstone fix --build 'make -s ...'`, default budgets, 300 s wall per fault):", "", *summary_rows(looped)]
    lines += ["", "| kind | faults | passes | exact | classification | after the gate | loop converges | fix-its only: passes |", "|---|---|---|---|---|---|---|---|"]
    for kind in sorted({r.fault.kind for r in results}):
        rs = [r for r in results if r.fault.kind == kind]
        lr = [r.loop for r in rs if r.loop is not None]
        lines.append(f"| {kind} | {len(rs)} | {_pct(sum(r.ours_pass for r in rs), len(rs))} | {_pct(sum(r.ours_exact for r in rs), len(rs))} "
                     f"| {_pct(sum(r.classified for r in rs), len(rs))} | {_pct(sum(r.shown_right for r in rs), len(rs))} | {_pct(sum(o.converged for o in lr), len(lr))} | {_pct(sum(r.fixit_pass for r in rs), len(rs))} |")
    projects = sorted({r.fault.project for r in results})
    if len(projects) > 1:
        lines += ["", "| project | faults | passes | exact | classification |", "|---|---|---|---|---|"]
        for project in projects:
            rs = [r for r in results if r.fault.project == project]
            lines.append(f"| {project} | {len(rs)} | {_pct(sum(r.ours_pass for r in rs), len(rs))} | {_pct(sum(r.ours_exact for r in rs), len(rs))} | {_pct(sum(r.classified for r in rs), len(rs))} |")
    wrong = [r for r in results if not r.classified or not r.shown_right]
    if wrong:
        lines += ["", "## Wrong classes", "", "| compiler | project | kind | class | after the gate | first error |", "|---|---|---|---|---|---|"]
        lines += [f"| {r.cc} | {r.fault.project} | {r.fault.kind} | {r.error_type} | {r.shown_type} | `{r.first_error.replace('|', '/').replace('`', chr(39))}` |" for r in wrong]
    lines += ["", "## Every fault", "", "| compiler | project | kind | seeded | class | passes | exact | loop | top candidate |", "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        lp = "" if r.loop is None else ("converged" if r.loop.converged else r.loop.reason) + (" exact" if r.loop.exact else "")
        lines.append(f"| {r.cc} | {r.fault.project} | {r.fault.kind} | `{r.fault.file}`: {r.fault.what.replace('|', '/')} | {r.error_type} | {r.ours_pass} | {r.ours_exact} | {lp} | {r.top.replace('|', '/')} |")
    out = HERE / "results" / name
    out.parent.mkdir(exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    sys.exit(main())
