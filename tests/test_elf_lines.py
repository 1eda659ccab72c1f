"""The DWARF line-table reader (``candidates/elf_lines.py``) against real compilers and ``llvm-dwarfdump``.

Every row it reads must name the file and line ``llvm-dwarfdump --debug-line`` names for that
address, for gcc and clang, DWARF 4 and 5, -O0 and -O2, a header's inline function in another
directory; the system's headers are left out; junk never raises.  (binutils 2.40's ``addr2line``
is no oracle here: with gcc 12's DWARF 5 it names file 1 as the main file.)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_whetstone.candidates import elf_lines

MAIN = """\
#include <stdlib.h>
#include "inc/twice.h"
int pick(int x) {
  if (x > 3)
    return twice(x);
  return x + 1;
}
int main(int argc, char **argv) {
  (void)argv;
  return pick(argc + atoi("2")) == 6 ? 0 : 1;
}
"""
HEADER = "static inline int twice(int x) {\n  return 2 * x;\n}\n"
CONFIGS = [
    ("gcc", ["-g", "-O0"]),
    ("gcc", ["-g", "-O2", "-fno-inline"]),
    ("gcc", ["-gdwarf-4", "-O0"]),
    ("clang", ["-g", "-O0"]),
    ("clang", ["-gdwarf-4", "-O1"]),
]


def _program(tmp_path: Path, compiler: str, flags: list[str]) -> Path:
    if not shutil.which(compiler):
        pytest.skip(f"{compiler} is needed")
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "twice.h").write_text(HEADER)
    (tmp_path / "main.c").write_text(MAIN)
    subprocess.run([compiler, *flags, "-o", "prog", "main.c"], cwd=tmp_path, check=True)  # relative, as make does
    return tmp_path / "prog"


def _dwarfdump(exe: Path) -> dict[int, tuple[str, int]]:
    """Address -> (file name, line) as llvm-dwarfdump decodes the table (the last row at an address)."""
    tool = shutil.which("llvm-dwarfdump") or shutil.which("llvm-dwarfdump-14")
    if tool is None:
        pytest.skip("llvm-dwarfdump is needed as the oracle")
    text = subprocess.run([tool, "--debug-line", str(exe)], capture_output=True, text=True, check=True).stdout
    out: dict[int, tuple[str, int]] = {}
    for table in text.split("Line table prologue:")[1:]:
        names = {int(i): n for i, n in re.findall(r'file_names\[\s*(\d+)\]:\s*name: "([^"]*)"', table)}
        for address, line, file, flags in re.findall(r"^0x([0-9a-f]+) +(\d+) +\d+ +(\d+) +\d+ +\d+ *(.*)$",
                                                     table, re.M):
            if "end_sequence" not in flags and int(line) > 0:
                out[int(address, 16)] = (names.get(int(file), "?"), int(line))
    return out


@pytest.mark.parametrize(("compiler", "flags"), CONFIGS, ids=[f"{c}{''.join(f)}" for c, f in CONFIGS])
def test_each_row_names_what_dwarfdump_names(tmp_path: Path, compiler: str, flags: list[str]) -> None:
    exe = _program(tmp_path, compiler, flags)
    rows = elf_lines.line_table(str(exe))
    oracle = _dwarfdump(exe)
    assert rows, "no rows read"
    for address, (path, line) in rows.items():
        assert (Path(path).name, line) == oracle.get(address), hex(address)
    # every row of the project's files is read; the system's headers are not
    assert set(rows) == {a for a, (name, _line) in oracle.items() if name in ("main.c", "twice.h")}
    for path, _line in rows.values():  # DWARF 4 does not name where the compiler ran: relative to it
        assert path.endswith("inc/twice.h") or os.path.normpath(path).endswith("main.c"), path
        assert not path.startswith("/") or path.startswith(str(tmp_path))
    assert 4 in {n for p, n in rows.values() if p.endswith("main.c")}  # the condition in pick


def test_what_has_no_line_table_gives_none(tmp_path: Path) -> None:
    exe = _program(tmp_path, "gcc", ["-O0"])
    assert ".debug_line" not in elf_lines.sections(str(exe)) and elf_lines.line_table(str(exe)) == {}
    assert elf_lines.line_table(str(tmp_path / "main.c")) == {} and elf_lines.sections(str(tmp_path / "main.c")) == {}
    assert elf_lines.line_table(str(tmp_path / "missing")) == {}


def test_a_damaged_line_table_keeps_what_it_could_read(tmp_path: Path) -> None:
    exe = _program(tmp_path, "gcc", ["-g", "-O0"])
    whole = elf_lines.line_table(str(exe))
    section = elf_lines.sections(str(exe))[".debug_line"]
    data = bytearray(exe.read_bytes())
    cut = section.offset + section.size // 2
    data[cut:section.offset + section.size] = b"\xff" * (section.offset + section.size - cut)
    damaged = tmp_path / "damaged"
    damaged.write_bytes(bytes(data))
    rows = elf_lines.line_table(str(damaged))
    assert all(whole.get(a) == r for a, r in rows.items() if a in whole)


def test_a_run_of_one_lines_code_needs_one_breakpoint() -> None:
    from pytest_whetstone.candidates.native_spectra_bp import line_starts

    table = {0x10: ("a.c", 3), 0x14: ("a.c", 3), 0x18: ("a.c", 4), 0x20: ("a.c", 3), 0x24: ("b.h", 3)}
    assert line_starts(table) == {0x10: ("a.c", 3), 0x18: ("a.c", 4), 0x20: ("a.c", 3), 0x24: ("b.h", 3)}


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_junk_never_raises_past_the_reader(data: bytes) -> None:
    rows: dict[int, tuple[str, int]] = {}
    try:
        elf_lines._decode(b"\x00\x01\x00\x00\x05\x00" + data, {}, [(0, 1 << 64)], rows)
        elf_lines._decode(data, {}, [(0, 1 << 64)], rows)
    except (IndexError, ValueError, elf_lines.struct.error):
        pass  # what line_table catches: the rows read so far stand


def test_the_systems_headers_are_left_out_not_a_project_built_under_usr() -> None:
    keep = elf_lines._keeper(["", "/usr/src/app/a.c", "/usr/include/stdio.h", "/usr/lib/gcc/x86_64-linux-gnu/12/include/x.h",
                              "src/b.c", "/usr/include/c++/12/bits/stl_vector.h"])
    assert [i for i in range(7) if keep(i)] == [1, 4]
