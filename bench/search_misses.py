"""Why a native search did not fix a seeded fault, as one of a few kinds (benches print counts only).

For a fault seeded in one function, after ``whetstone run --search``:

* ``fixed``: a mutant of the faulty function made a failing test pass (the search's evidence);
* ``no restoring mutant``: none of the function's mutants (``mutants_in``, every one generated, without the failure's
  expected / actual values) gives back the original text: the operators cannot express the fix;
* ``not planned``: the function was not among those whose mutants the search planned (localization);
* ``planned, not tried``: it was, but none of its mutants came up before the search stopped (the
  order); ``not mutated`` stands for either where the search did not say what it planned;
* ``partly mutated``: some of its mutants were tried, not all (the budget, or the order within it);
* ``all mutated``: every mutant was tried and none fixed a failing test (the screen or the judge).

The held-out benches print only the counts of these kinds, so where the misses are is known without
reading a case.
"""

from __future__ import annotations

from typing import Any

from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.edits import EditError, apply_edits_text
from pytest_whetstone.locate import cfamily, jsfamily

KINDS = ("fixed", "no restoring mutant", "not planned", "planned, not tried", "not mutated", "partly mutated",
         "all mutated", "no search")


def functions_of(rel: str, data: bytes) -> list[tuple[str, int, int]]:
    """(qualname, first, last) of every function in ``data`` (a C, C++ or JS file at ``rel``)."""
    if rel.endswith((".js", ".cjs", ".mjs")):
        pj = jsfamily.parse_source(data)
        return [(f.qualname, f.line_start, f.line_end) for f in jsfamily.functions_in(pj, rel)]
    pf = cfamily.parse_source(data, "c" if rel.endswith(".c") else "cpp")
    return [(f.qualname, f.line_start, f.line_end) for f in cfamily.functions_in(pf, rel)]


def _function(rel: str, data: bytes, line: int) -> tuple[str, int, int] | None:
    """(qualname, first, last) of the innermost function holding ``line``."""
    holding = [f for f in functions_of(rel, data) if f[1] <= line <= f[2]]
    return min(holding, key=lambda f: f[2] - f[1]) if holding else None


def miss_kind(rel: str, original: bytes, faulty: bytes, line: int, event: dict[str, Any]) -> str:
    """One of :data:`KINDS` for the fault at ``rel:line`` (``faulty`` is the file with it)."""
    if not event:
        return "no search"
    fn = _function(rel, faulty, line)
    if fn is None:
        return "not mutated"
    qualname, first, last = fn
    ev = next((e for e in event.get("evidence") or [] if e.get("file") == rel and e.get("qualname") == qualname), {})
    if ev.get("fixed"):
        return "fixed"
    text, want = faulty.decode("utf-8", "replace"), original.decode("utf-8", "replace")
    mutants = mutants_in(rel, faulty, first, last, qualname=qualname, limit=None)  # past the plan's cap too
    restoring = False
    for m in mutants:
        try:
            restoring = apply_edits_text(text, [m.edit], rel) == want
        except EditError:
            continue
        if restoring:
            break
    if not restoring:
        return "no restoring mutant"
    tried = int(ev.get("tried") or 0)
    if not tried:
        if "planned" not in event:
            return "not mutated"
        return "planned, not tried" if [rel, qualname] in event["planned"] else "not planned"
    return "partly mutated" if tried < len(mutants) else "all mutated"
