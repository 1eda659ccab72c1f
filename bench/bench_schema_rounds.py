"""Compile rounds a file's schema takes before it compiles, with and without the operand types' filter.

    python bench/bench_schema_rounds.py WORKSPACE FILE [FILE...] -- COMPILER FLAGS...

Every function of each FILE (workspace-relative) gets its mutants (``native_mutants.mutants_in``, as the
search's plan makes them, up to 800 per function); the file's schema of all of them is compiled with
``-fsyntax-only``; what the errors blame is left out as the screen leaves it out
(``native_schema_errors.blamed``), and the schema is compiled again, until it compiles.  Printed per
file: the mutants made, the choices the clean schema holds, the rounds and the seconds of compiling,
with the mutants the operands' declared types refuse left out (``native_operand_types``) and with them
made.  A round of the search's real compile (at -O0, into an object) costs more than -fsyntax-only's; the
count of rounds is the same.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_whetstone.candidates.native_mutants import mutants_in  # noqa: E402
from pytest_whetstone.candidates.native_operand_types import Operands  # noqa: E402
from pytest_whetstone.candidates.native_schema import schema_text  # noqa: E402
from pytest_whetstone.candidates.native_schema_errors import blamed, error_lines_in  # noqa: E402
from pytest_whetstone.locate.native_workspace import functions_of_file  # noqa: E402
from pytest_whetstone.parse import parse_text  # noqa: E402

MAX_ROUNDS = 12


def every_function_mutants(workspace: Path, rel: str, data: bytes) -> list:
    return [m for fn in functions_of_file(workspace, rel)
            for m in mutants_in(rel, data, fn.line_start, fn.line_end, qualname=fn.qualname, workspace=workspace)]


def rounds(workspace: Path, rel: str, compiler: list[str], typed: bool) -> str:
    data = (workspace / rel).read_bytes()
    if typed:
        mutants = every_function_mutants(workspace, rel, data)
    else:
        with mock.patch.object(Operands, "refuses", lambda *_: False), \
                mock.patch.object(Operands, "refuses_swap", lambda *_: False):
            mutants = every_function_mutants(workspace, rel, data)
    skip: set = set()
    lines: set[int] = set()
    out = workspace / (rel + ".rounds.cc")  # beside the file: its quoted includes resolve as they do there
    spent, clean, held, n = 0.0, False, 0, 0
    try:
        while n < MAX_ROUNDS:
            n += 1
            schema = schema_text(rel, data, mutants, skip=frozenset(skip), skip_lines=frozenset(lines))
            if schema is None:
                break
            held = len(schema.ids)
            out.write_text(schema.text)
            started = time.monotonic()
            done = subprocess.run([*compiler, "-w", "-fsyntax-only", "-fdiagnostics-column-unit=byte", "-fmax-errors=0",
                                   str(out)], cwd=workspace, capture_output=True, text=True)
            spent += time.monotonic() - started
            if done.returncode == 0:
                clean = True
                break
            error_lines, error_points = error_lines_in(parse_text(done.stderr, "gcc", cwd=str(workspace)).build_errors, out)
            own, apart, whole = blamed(schema, error_lines, error_points)
            skip |= own | apart
            lines |= whole
    finally:
        out.unlink(missing_ok=True)
    return f"| {rel} | {'refused left out' if typed else 'every mutant'} | {len(mutants)} | {held} | {n} | {clean} | {spent:.2f} |"


def main(argv: list[str]) -> int:
    if "--" not in argv or len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    split = argv.index("--")
    workspace, files, compiler = Path(argv[0]), argv[1:split], argv[split + 1:]
    print("| file | which mutants | made | schema holds | rounds | compiled | seconds (-fsyntax-only) |")
    print("|---|---|---|---|---|---|---|")
    for rel in files:
        for typed in (False, True):
            print(rounds(workspace, rel, compiler, typed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
