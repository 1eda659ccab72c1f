"""Held-out seeded-fault benchmark for C/C++ build fixes (not a test; run by hand).

    python bench/bench_fix_build_heldout.py [--per-kind N] [--compilers gcc,clang] [--loop] [--label L]

Three real code bases that neither the tests nor the development bench
(bench/bench_fix_build.py) use, downloaded from PyPI at bench time into
bench/_work/heldout/ (never committed):

* lz4 4.4.5 (the sdist's lz4libs/: lz4.c, lz4hc.c, lz4frame.c, xxhash.c), C;
* cmark-gfm (the cmarkgfm 2025.10.22 sdist's third_party/cmark: src/ and extensions/), C;
* double-conversion (the ujson 6.1.0 sdist's deps/double-conversion), C++.

Each is built as a shared library (``-shared -Wl,--no-undefined``, so missing
definitions are link errors) by a generated Makefile whose ``SRCS`` variable
lists the sources, through ccwrap (so the store records every command, as a
user's ``CC=ccwrap`` build would).  Faults are seeded with tree-sitter: the
development bench's kinds plus the shapes real code breaks in (a declaration
missing its ``;``, a struct missing ``;`` in a header, a function missing its
closing brace, ``x`` for ``&x``, a dropped argument, a renamed definition, a
source dropped from ``SRCS``, an include of a header that does not exist, a
project header's include removed).  For each fault under each compiler:
apply the top candidate of ``candidates.generate`` (one application), rebuild;
does the build pass, is every file byte-identical to the original, and is the
first error classified as the kind expects?  The compilers' own fix-its alone
are measured beside it.  With ``--loop``, each fault is also handed to the fix loop
(``whetstone fix --build 'make -s'``, through the core calls the CLI makes; bench_fix_build_loop.py):
does it converge, does the build pass afterwards, is the original restored exactly?

The per-case table goes to bench/results/fix_build_heldout_cases.md; the
summary (which is all one should read while tuning generators: nothing) to
bench/results/fix_build_heldout.md.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

from bench_fix_build import Fault, _functions, _replace_bytes, _walk  # noqa: E402
from bench_fix_build import seed as dev_seed  # noqa: E402
from bench_fix_build_loop import LoopOutcome, run_loop, summary_rows  # noqa: E402
from cfamily_support import parse_build_output  # noqa: E402

from pytest_whetstone import candidates, edits  # noqa: E402
from pytest_whetstone.locate import cfamily  # noqa: E402
from pytest_whetstone.store.sessions import open_session  # noqa: E402

WORK = HERE / "_work" / "heldout"
STORE = WORK / ".whetstone"
C_FLAGS = "-O0 -fPIC -MMD -MP -fdiagnostics-parseable-fixits -Werror=implicit-function-declaration -Werror=int-conversion -Werror=incompatible-pointer-types"
CXX_FLAGS = "-O0 -fPIC -MMD -MP -fdiagnostics-parseable-fixits"

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
    "dropped source": {"undefined_symbol"},
}


@dataclass
class HProject:
    name: str
    root: Path  # where the Makefile lives
    sources: list[str]
    includes: list[str]
    cpp: bool
    headers: list[str] = field(default_factory=list)

    # bench_fix_build.seed reads these
    @property
    def libm(self) -> bool:
        return False


def _sdist(spec: str, dirname: str) -> Path:
    # Extracted outside WORK: WORK is the store's workspace, and the fix loop may edit any file
    # in it -- the pristine copies must not be among them.
    src = WORK.parent / (WORK.name + "-src")
    root = src / dirname
    if not root.is_dir():
        sdists = WORK / "sdists"
        sdists.mkdir(parents=True, exist_ok=True)
        if not list(sdists.glob(dirname + ".tar.gz")):
            subprocess.run([sys.executable, "-m", "pip", "-q", "download", "--no-binary", ":all:", "--no-deps", spec, "-d", str(sdists)], check=True, capture_output=True)
        with tarfile.open(next(sdists.glob(dirname + ".tar.gz"))) as tar:
            tar.extractall(src, filter="data")
    return root


def fetch() -> list[HProject]:
    WORK.mkdir(parents=True, exist_ok=True)
    out: list[HProject] = []
    for name in ("lz4", "cmark", "double-conversion"):  # fresh copies: a run never inherits another's edits
        shutil.rmtree(WORK / name, ignore_errors=True)
    lz4 = WORK / "lz4"
    if not lz4.exists():
        shutil.copytree(_sdist("lz4==4.4.5", "lz4-4.4.5") / "lz4libs", lz4)
    out.append(HProject("lz4", lz4, ["lz4.c", "lz4frame.c", "lz4hc.c", "xxhash.c"], ["."], False))
    cmark = WORK / "cmark"
    if not cmark.exists():
        base = _sdist("cmarkgfm==2025.10.22", "cmarkgfm-2025.10.22")
        shutil.copytree(base / "third_party" / "cmark", cmark)
        shutil.copytree(base / "generated" / "unix", cmark / "generated")
    srcs = sorted(p.relative_to(cmark).as_posix() for d in ("src", "extensions") for p in (cmark / d).glob("*.c") if p.name != "main.c")
    out.append(HProject("cmark", cmark, srcs, ["src", "extensions", "generated"], False))
    dc = WORK / "double-conversion"
    if not dc.exists():
        base = _sdist("ujson==6.1.0", "ujson-6.1.0")
        shutil.copytree(base / "src" / "ujson" / "deps" / "double-conversion" / "double-conversion", dc / "double-conversion")
    srcs = sorted(p.relative_to(dc).as_posix() for p in (dc / "double-conversion").glob("*.cc"))
    out.append(HProject("double-conversion", dc, srcs, ["."], True))
    for p in out:
        p.headers = sorted(h.relative_to(p.root).as_posix() for h in p.root.rglob("*.h"))
    return out


def makefile_text(project: HProject, cc: str) -> str:
    compiler = ("g++" if cc == "gcc" else "clang++") if project.cpp else cc
    ext = ".cc" if project.cpp else ".c"
    var = "CXX" if project.cpp else "CC"
    flags = CXX_FLAGS if project.cpp else C_FLAGS
    incs = " ".join(f"-I{i}" for i in project.includes)
    srcs = " \\\n\t".join(project.sources)
    return (
        f"{var} = {WORK / 'bin' / 'ccwrap'} {compiler}\n"
        f"FLAGS = {flags} {incs}\n"
        f"SRCS = {srcs}\n"
        f"OBJS = $(patsubst %{ext},obj-{cc}/%.o,$(SRCS))\n\n"
        f"lib{project.name}-{cc}.so: $(OBJS) Makefile\n\t$({var}) -shared -Wl,--no-undefined -o $@ $(OBJS)\n\n"
        f"obj-{cc}/%.o: %{ext}\n\t@mkdir -p $(dir $@)\n\t$({var}) $(FLAGS) -c $< -o $@\n\n"
        f"-include $(OBJS:.o=.d)\n"
    )


def _env() -> dict[str, str]:
    env = {"PATH": os.environ["PATH"], "LC_ALL": "C.UTF-8", "WHETSTONE_DIR": str(STORE), "HOME": os.environ.get("HOME", "/root")}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def make(project: HProject) -> tuple[int, str]:
    proc = subprocess.run(["make", "-s", "-k"], cwd=project.root, capture_output=True, text=True, env=_env(), timeout=900)
    return proc.returncode, proc.stdout + proc.stderr


# --------------------------------------------------------------------------- seeding (new kinds)


def _call_args(node):
    args = node.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []


def seed_new(project: HProject, rng: random.Random) -> list[Fault]:
    faults: dict[str, list[Fault]] = {}
    index = cfamily.FunctionIndex(project.root)
    defined: dict[str, str] = {}
    for f in index.functions:
        defined.setdefault(f.short, f.file_path)
    calls_elsewhere: dict[str, int] = {}
    parsed = {}
    for rel in project.sources:
        pf = cfamily.parse_file(project.root / rel)
        if pf is not None:
            parsed[rel] = pf
            for n in _walk(pf.tree.root_node):
                if n.type == "call_expression":
                    fn = n.child_by_field_name("function")
                    if fn is not None and fn.type == "identifier":
                        calls_elsewhere[fn.text.decode()] = calls_elsewhere.get(fn.text.decode(), 0) + 1

    def add(kind: str, rel: str, text: str, mutated: str, what: str) -> None:
        faults.setdefault(kind, []).append(Fault(project.name, kind, rel, text, mutated, what))

    for rel, pf in parsed.items():
        src, text = pf.source, pf.source.decode()
        for fn in _functions(pf):
            body = fn.child_by_field_name("body")
            if body is not None and body.text.endswith(b"}") and body.end_point[0] - body.start_point[0] >= 3:
                add("closing brace", rel, text, _replace_bytes(src, body.end_byte - 1, body.end_byte, b""), f"line {body.end_point[0] + 1}")
            for n in _walk(fn):
                if n.type == "declaration" and n.parent is not None and n.parent.type == "compound_statement" and n.text.endswith(b";") and n.start_point[0] == n.end_point[0] and b"=" in n.text:
                    add("declaration semicolon", rel, text, _replace_bytes(src, n.end_byte - 1, n.end_byte, b""), f"line {n.end_point[0] + 1}")
                if n.type == "call_expression":
                    f = n.child_by_field_name("function")
                    args = _call_args(n)
                    if f is None or f.type != "identifier":
                        continue
                    name = f.text.decode()
                    for a in args:
                        if a.type == "pointer_expression" and a.text.startswith(b"&") and a.named_children and a.named_children[0].type == "identifier":
                            add("address argument", rel, text, _replace_bytes(src, a.start_byte, a.start_byte + 1, b""), f"{name}(... {a.text.decode()} -> {a.text.decode()[1:]})")
                    if name in defined and len(args) >= 2 and n.start_point[0] == n.end_point[0]:
                        prev = args[-2]
                        add("dropped argument", rel, text, _replace_bytes(src, prev.end_byte, args[-1].end_byte, b""), f"{name}: last argument dropped")
        # a non-static definition renamed where other files call it: the link fails
        for fn in _functions(pf):
            name = cfamily.function_name(fn)
            if not name or "::" in name or b"static" in fn.text.split(b"(")[0] or len(name) < 6 or calls_elsewhere.get(name, 0) < 1:
                continue
            decl = fn.child_by_field_name("declarator")
            ident = None
            for n in _walk(decl) if decl is not None else []:
                if n.type == "identifier" and n.text.decode() == name:
                    ident = n
                    break
            if ident is None:
                continue
            bad = name[:-2] + name[-1:]
            if bad not in text:
                add("renamed definition", rel, text, _replace_bytes(src, ident.start_byte, ident.end_byte, bad.encode()), f"{name} -> {bad}")
        for n in pf.tree.root_node.named_children:
            if n.type == "preproc_include":
                p = n.child_by_field_name("path")
                if p is None or p.type != "string_literal":
                    continue
                name = p.text.decode().strip('"')
                base = Path(name).name
                stem, _, ext = base.rpartition(".")
                if stem:
                    bad = name[: len(name) - len(base)] + stem + "_defs." + ext
                    add("nonexistent header", rel, text, _replace_bytes(src, p.start_byte, p.end_byte, f'"{bad}"'.encode()), f"{name} -> {bad}")
                    end = n.end_byte
                    add("removed project header", rel, text, _replace_bytes(src, n.start_byte, end, b""), f"{name} removed")
    for rel in project.headers:
        pf = cfamily.parse_file(project.root / rel)
        if pf is None:
            continue
        src, text = pf.source, pf.source.decode()
        for n in _walk(pf.tree.root_node):
            if n.type in ("struct_specifier", "class_specifier") and n.child_by_field_name("body") is not None and n.parent is not None and n.parent.type in ("translation_unit", "declaration", "preproc_ifdef", "preproc_if", "declaration_list", "field_declaration_list"):
                after = src[n.end_byte : n.end_byte + 1]
                if after == b";":
                    add("struct semicolon", rel, text, _replace_bytes(src, n.end_byte, n.end_byte + 1, b""), f"line {n.end_point[0] + 1}")
    mk = makefile_text(project, "gcc")
    chosen: list[Fault] = []
    for kind in sorted(faults):
        pool = faults[kind]
        rng.shuffle(pool)
        chosen.extend(pool[:12])
    for rel in project.sources:
        if re.search(r"^\t" + re.escape(rel) + r"\b", mk, re.M) or f"= {rel}" in mk:
            chosen.append(Fault(project.name, "dropped source", "Makefile", "", "", rel))
    return chosen


# --------------------------------------------------------------------------- run


@dataclass
class Outcome:
    fault: Fault
    cc: str
    ours_pass: bool
    ours_exact: bool
    fixit_pass: bool
    classified: bool
    error_type: str
    validated: bool
    top: str
    loop: LoopOutcome | None = None


def _drop_source(mk: str, rel: str) -> str:
    lines = mk.split("\n")
    out: list[str] = []
    for line in lines:
        if line.strip().rstrip("\\").strip() == rel:
            if not line.rstrip().endswith("\\") and out and out[-1].rstrip().endswith("\\"):
                out[-1] = out[-1].rstrip()[:-1].rstrip()
            continue
        if line.startswith("SRCS = " + rel):
            rest = line[len("SRCS = " + rel) :].strip()
            out.append("SRCS =" + (" \\" if rest.endswith("\\") or not rest else rest))
            continue
        out.append(line)
    return "\n".join(out)


def _attempt(project: HProject, records, pick) -> tuple[bool, str, bool]:
    cands = candidates.generate(records, [], project.root)
    chosen = pick(cands)
    if chosen is None:
        return False, "(no candidate)", False
    try:
        edits.apply(chosen, project.root, open_session(STORE, "bench"))
    except edits.EditError as exc:
        return False, f"(apply refused: {exc})", False
    code, _ = make(project)
    return code == 0, chosen.description[:90], chosen.validated


def snapshot(project: HProject) -> dict[Path, bytes]:
    files = [*project.sources, *project.headers, "Makefile"]
    return {project.root / f: (project.root / f).read_bytes() for f in files}


def restore(snap: dict[Path, bytes]) -> None:
    for path, data in snap.items():
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)


def run_fault(project: HProject, fault: Fault, cc: str, mk: str, snap: dict[Path, bytes], loop: bool = False) -> Outcome | None:
    path = project.root / fault.file
    if fault.kind == "dropped source":
        fault.original = mk
        fault.mutated = _drop_source(mk, fault.what)
    try:
        path.write_text(fault.mutated)
        code, out = make(project)
        if code == 0:
            return None  # the seed did not break the build: not a fault
        tool = "clang" if cc == "clang" else "gcc"
        records = parse_build_output(out, tool, project.root)
        failing = [r for r in records if r.is_failure]
        etype = failing[0].error_type if failing else "(none)"
        ok_class = etype in EXPECTED[fault.kind]
        ours_pass, top, validated = _attempt(project, records, lambda cs: next((c for c in cs if c.edits), None))
        exact = ours_pass and path.read_text() == fault.original and all(
            p.read_bytes() == data for p, data in snap.items() if p != path
        )
        restore(snap)
        path.write_text(fault.mutated)
        records = parse_build_output(make(project)[1], tool, project.root)
        fixit_pass, _, _ = _attempt(project, records, lambda cs: next((c for c in cs if c.source == "compiler-fixit" and c.mutation.get("kind") == "fixit"), None))
        looped = None
        if loop:
            restore(snap)
            path.write_text(fault.mutated)
            looped = run_loop(project.root, STORE, "make -s", snap, lambda: make(project)[0])
        return Outcome(fault, cc, ours_pass, exact, fixit_pass, ok_class, etype, validated, top, looped)
    finally:
        restore(snap)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-kind", type=int, default=2)
    parser.add_argument("--compilers", default="gcc,clang")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--label", default="")
    parser.add_argument("--loop", action="store_true", help="also run the fix loop on every fault (convergence)")
    args = parser.parse_args()
    projects = fetch()
    from ccwrap import native

    if native.build(WORK / "bin") is None:  # the shim of this tree, as a user's install would have it
        print("cannot build the native ccwrap")
        return 1
    if STORE.exists():
        shutil.rmtree(STORE)
    (STORE / "sessions").mkdir(parents=True)
    results: list[Outcome] = []
    started = time.monotonic()
    for cc in args.compilers.split(","):
        for project in projects:
            mk = makefile_text(project, cc)
            (project.root / "Makefile").write_text(mk)
            code, out = make(project)
            if code != 0:
                print(f"{project.name} does not build cleanly with {cc}:\n{out[-3000:]}")
                return 1
            snap = snapshot(project)
            rng = random.Random(args.seed)
            pool = dev_seed(project, rng, args.per_kind) + seed_new(project, rng)  # type: ignore[arg-type]
            per_kind: dict[str, int] = {}
            for fault in pool:
                if per_kind.get(fault.kind, 0) >= args.per_kind:
                    continue
                outcome = run_fault(project, fault, cc, mk, snap, args.loop)
                if outcome is None:
                    continue
                per_kind[fault.kind] = per_kind.get(fault.kind, 0) + 1
                results.append(outcome)
                print(f"{len(results):3} {cc:5} {project.name:18} {fault.kind}", flush=True)
    write_report(results, time.monotonic() - started, args.label)
    return 0


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.0f}% ({n}/{d})" if d else "-"


def write_report(results: list[Outcome], elapsed: float, label: str) -> None:
    head = [
        f"# Held-out build fix benchmark{(' — ' + label) if label else ''}",
        "",
        "Generated by `python bench/bench_fix_build_heldout.py`: lz4 4.4.5 (lz4libs, C), cmark-gfm (cmarkgfm 2025.10.22, C), double-conversion (ujson 6.1.0, C++), downloaded from PyPI at bench time; each built as a shared library through ccwrap.",
        f"Compilers: {subprocess.run(['gcc', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}; {subprocess.run(['clang', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}. Wall time {elapsed:.0f} s.",
        "",
        "| compiler | faults | top candidate: build passes | exact restore | classification | top candidate validated | fix-its only: passes |",
        "|---|---|---|---|---|---|---|",
    ]
    for cc in sorted({r.cc for r in results}) + ["all"]:
        rs = [r for r in results if cc in ("all", r.cc)]
        head.append(
            f"| {cc} | {len(rs)} | {_pct(sum(r.ours_pass for r in rs), len(rs))} | {_pct(sum(r.ours_exact for r in rs), len(rs))} "
            f"| {_pct(sum(r.classified for r in rs), len(rs))} | {_pct(sum(r.validated for r in rs), len(rs))} | {_pct(sum(r.fixit_pass for r in rs), len(rs))} |"
        )
    looped = [(r.cc, r.loop) for r in results if r.loop is not None]
    if looped:
        head += ["", "The fix loop (`whetstone fix --build 'make -s'`, default budgets, 300 s wall per fault):", "", *summary_rows(looped)]
    head += ["", "Faults per kind: " + ", ".join(f"{k} {sum(r.fault.kind == k for r in results)}" for k in sorted({r.fault.kind for r in results}))]
    out = HERE / "results" / "fix_build_heldout.md"
    out.parent.mkdir(exist_ok=True)
    with out.open("a") as handle:
        handle.write("\n".join(head) + "\n\n")
    cases = ["| compiler | project | kind | seeded | class | passes | exact | validated | top candidate | loop |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        lp = "" if r.loop is None else f"{'converged' if r.loop.converged else r.loop.reason} exact={r.loop.exact}"
        cases.append(f"| {r.cc} | {r.fault.project} | {r.fault.kind} | `{r.fault.file}`: {r.fault.what} | {r.error_type} | {r.ours_pass} | {r.ours_exact} | {r.validated} | {r.top.replace('|', '/')} | {lp} |")
    (HERE / "results" / "fix_build_heldout_cases.md").write_text("\n".join(cases) + "\n")
    print("\n".join(head))


if __name__ == "__main__":
    sys.exit(main())
