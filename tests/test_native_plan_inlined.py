"""The search's neighbours of a suspect include the functions of its own file it calls: at -O2 and up a
small static callee is inlined and leaves no trace in the execution spectrum, yet it ran whenever the
call did (hiredis's ``bulklen``, folded into ``redisvFormatCommand``)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from pytest_whetstone.candidates.native_plan import Planner
from pytest_whetstone.records import Suspect

FORMAT_C = """\
#include <string.h>

static unsigned count_digits(unsigned long v) { unsigned n = 1; while (v >= 10) { v /= 10; n++; } return n; }

static unsigned bulk_len(unsigned long len) { return 1 + count_digits(len) + 2 + len + 2; }

static int unrelated(int x) { return x * 3; }

unsigned format_length(const char **argv, int argc) {
  unsigned total = 0;
  for (int i = 0; i < argc; i++) total += bulk_len(strlen(argv[i]));
  return total;
}
"""
APP_JS = "function helper(x) { return x + 1; }\nfunction api(x) { return helper(x) * 2; }\nmodule.exports = { api };\n"


def test_the_functions_a_suspect_calls_in_its_file_join_with_its_score(tmp_path: Path) -> None:
    (tmp_path / "format.c").write_text(FORMAT_C)
    (tmp_path / "app.js").write_text(APP_JS)
    planner = SimpleNamespace(workspace=tmp_path)
    caller = Suspect(file_path="format.c", qualname="format_length", line_start=9, line_end=13, score=0.62)
    called = Planner.called_in_file(planner, [caller])  # type: ignore[arg-type]
    assert {(key[1], score) for key, score in called.items()} == {("bulk_len", 0.62)}  # strlen is not the file's
    # one level only: what the callee calls in turn is the callee's own business
    nested = Suspect(file_path="format.c", qualname="bulk_len", line_start=5, line_end=5, score=0.4)
    assert {key[1] for key in Planner.called_in_file(planner, [nested])} == {"count_digits"}  # type: ignore[arg-type]
    # JS has no inlining to hide a callee from V8's coverage
    api = Suspect(file_path="app.js", qualname="api", line_start=2, line_end=2, score=0.5)
    assert Planner.called_in_file(planner, [api]) == {}  # type: ignore[arg-type]
