"""The loop's per-file gate: a C/C++ edit the compiler rejects is never written, let alone built.

Before the loop applies a candidate that edits C or C++ files, the translation units it touches are
re-checked with their recorded commands in syntax-only mode (``build/gate.py``), once on the text as
it is and once with the edit applied in memory.  An edit that brings an error the unit did not have
is refused; the loop skips it without a build and tries the next candidate.  Without recorded
commands (the build did not run through ccwrap) nothing is refused and the full build judges.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..records import BuildErrorRecord, FixCandidate

_C_FAMILY = (".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".inl", ".ipp", ".tcc")


def _key(error: BuildErrorRecord) -> tuple[str, str]:
    return (Path(error.file_path).name, error.message)


def gate_refusal(candidate: FixCandidate, workspace: Path, store: Path) -> str:
    """Why the gate refuses the edit ("" when it accepts it or cannot check it)."""
    if not candidate.edits or not all(e.file_path.lower().endswith(_C_FAMILY) for e in candidate.edits):
        return ""
    from ..build.compdb import CompileDatabase
    from ..build.gate import Gate

    db = CompileDatabase.from_store(store)
    if not db:
        return ""
    with Gate(workspace, db) as gate:
        before = gate.check(sorted({e.file_path for e in candidate.edits}))
        if not before.checked:
            return ""
        after = gate.check(list(candidate.edits))
    if not after.checked:
        return ""
    new = Counter(_key(e) for e in after.errors) - Counter(_key(e) for e in before.errors)
    if not new:
        return ""
    name, message = next(iter(new))
    return f"the per-file gate rejected it: {len(list(new.elements()))} new error(s), first: {name}: {message[:160]}"
