"""Headers' schemata compiled together (:mod:`.native_screen`).

A header's schema is compiled as part of every unit that includes it, and those are mostly the same
units for the headers of one library: kiwi's tests include `kiwi.h`, which includes all of them, and a
schema of `constraint.h`, then of `symbolics.h`, then of `strength.h` compiled the same test file three
times over, about 3 s each.  When a header's schema is wanted, the other headers the plan holds whose
units are among its units (and whose schemata nobody is building) are compiled into the same pass, each
numbering its mutants apart from the others', so one run of the binary serves any of them.  An error is
blamed on each file's own choices as for one file; a pass whose errors name no choice leaves each header
to its own schema, built when its first mutant comes up, as before.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from .native_schema import REACH_SLOTS, Schema, held_by, schema_text
from .native_search_stats import trace_row

if TYPE_CHECKING:
    from .native_screen import Screen
    from .native_screen_state import FileState

MAX_FILES = 4  # headers in one pass, at most
MAX_IDS = REACH_SLOTS - 96  # their mutants together: every id's reach must be recordable


def build_together(screen: Screen, rel: str, state: FileState, trial: Any) -> bool:
    """Build header ``rel``'s schema in one pass with the plan's other headers whose units it compiles
    anyway; False when there are none, or when the pass failed (then ``rel`` is built alone)."""
    from .native_screen import is_header

    if getattr(trial, "prepare_schemata", None) is None or getattr(trial, "schema_units", None) is None:
        return False
    units = trial.schema_units(rel)
    members: list[tuple[str, FileState]] = [(rel, state)]
    held: list[FileState] = []
    total = len(state.mutants)
    try:
        for other, other_state in list(screen.files.items()):
            if len(members) >= MAX_FILES:
                break
            if other == rel or not is_header(other) or other_state.ready or not other_state.mutants \
                    or total + len(other_state.mutants) > MAX_IDS or not trial.schema_units(other) <= units:
                continue
            if not other_state.building.acquire(blocking=False):  # another trial builds it: leave it there
                continue
            held.append(other_state)
            if other_state.ready:
                continue
            members.append((other, other_state))
            total += len(other_state.mutants)
        return len(members) > 1 and _compile_together(screen, members, trial)
    finally:
        for other_state in held:
            other_state.building.release()


def _compile_together(screen: Screen, members: list[tuple[str, FileState]], trial: Any) -> bool:
    from .native_schema_errors import blamed, not_constants
    from .native_screen import MAX_COMPILES

    state_of = dict(members)
    data: dict[str, bytes] = {}
    for rel, state in members:
        state.ready = True
        text = screen.original(rel)
        if text is not None:
            data[rel] = text.encode("utf-8", "surrogateescape")
            screen.focus(rel, state, trial)
    skips: dict[str, frozenset[int]] = {rel: frozenset() for rel in data}
    risky, last = True, 0.0
    schemata: dict[str, Schema] = {}  # the last ones compiled: the next hold none they did not
    for _ in range(MAX_COMPILES):
        before, schemata = schemata, {}
        first = 1
        for rel, state in members:
            if rel in data:
                schema = schema_text(rel, data[rel], held_by(state.mutants, before.get(rel)), skip_lines=skips[rel],
                                     skip=frozenset(state.rejected | state.apart), risky=risky, first_id=first)
                first += len(state.mutants)  # ids apart, whatever each schema holds
                if schema is not None:
                    schemata[rel] = schema
        if len(schemata) < 2 or (last and screen.deadline - time.monotonic() < 2 * last):
            break
        started = time.monotonic()
        why = trial.prepare_schemata({rel: schema.text for rel, schema in schemata.items()})
        last = time.monotonic() - started
        errors: dict[str, tuple[set[int], set[tuple[int, ...]]]] = dict(trial.errors_by_file) if why else {}
        for rel in schemata:
            state_of[rel].compile_s.append(last)
        trace_row({"schema": "+".join(schemata), "s": round(last, 3),
                   "mutants": sum(len(s.ids) for s in schemata.values()), "error": why[:300]})
        if not why:
            screen.notes.append(f"schemata of {', '.join(schemata)}: compiled together")
            for rel, schema in schemata.items():
                screen.adopt(rel, state_of[rel], schema, skips[rel], trial, last, mend=False)
            return True
        named = {rel: errors.get(rel, (set(), set())) for rel in schemata}
        named_any = any(lines for lines, _points in named.values())  # the files' errors read together
        if risky and any(not_constants(schema, named[rel][0], named_any) for rel, schema in schemata.items()):
            risky = False
            continue
        progress = False
        for rel, schema in schemata.items():
            own, apart, bad = blamed(schema, *named[rel])
            progress = progress or bool(own or apart or bad)
            state_of[rel].rejected |= own
            state_of[rel].apart |= apart
            skips[rel] = skips[rel] | bad
        if not progress:
            break
    for _rel, state in members:  # each on its own, when its first mutant comes up (what was rejected stays so)
        state.ready = False
    return False
