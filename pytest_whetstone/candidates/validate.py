"""Let the compiler decide: check C/C++ build candidates with the per-file gate.

For each failing error, its candidates with edits are tried in order of their priors: the
units the edit touches (and the error's own unit) are re-checked with their recorded commands
in syntax-only mode, or, for link errors, compiled into scratch objects and relinked with the
recorded link command.  A candidate is *validated* when its error is gone and no error appears
that was not there before; it is *rejected* (confidence halved) when the check ran and the
error stayed or new ones came.  The search stops at a count and a wall-time budget; the rest
keep their priors with ``validated: false``.  Nothing is written to the user's tree.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..records import BuildErrorRecord, FixCandidate, rank_candidates

MAX_CHECKS = 60
BUDGET_S = 30.0
PER_ERROR = 8
_BUILD_FILES = ("Makefile", "makefile", "GNUmakefile", "CMakeLists.txt")
_C_EXT = (".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".m", ".mm", ".h", ".hh", ".hpp", ".hxx", ".H", ".inc", ".inl", ".ipp", ".tcc")


@dataclass
class ValidationStats:
    """What the build-candidate validation did (written to the session)."""

    errors: int = 0  # failing errors whose candidates were considered
    checked: int = 0  # candidates the gate checked
    validated: int = 0
    rejected: int = 0
    unchecked: int = 0  # candidates left with their priors (budget, no command, not C/C++)
    compiler_runs: int = 0
    elapsed_s: float = 0.0
    stopped: str = ""  # "", "count", "time", "no-commands"
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def is_link_error(record: BuildErrorRecord) -> bool:
    text = record.message.lower()
    return "undefined reference" in text or "undefined symbol" in text or record.tool in ("ld", "lld", "linker")


def _key(record: BuildErrorRecord) -> tuple[str, str]:
    return (os.path.basename(record.file_path), record.message.strip())


def _removes(target: BuildErrorRecord, before: list[BuildErrorRecord], after: list[BuildErrorRecord]) -> bool:
    """The target error is gone (by its message) and no error is new."""
    was, now = Counter(_key(e) for e in before), Counter(_key(e) for e in after)
    if any(now[k] > was[k] for k in now):
        return False
    if not after:
        return True
    target_key = _key(target)
    if was[target_key]:
        return now[target_key] < was[target_key]
    return sum(now.values()) < sum(was.values())


class Validator:
    def __init__(self, workspace: Path, store: Path, *, max_checks: int = MAX_CHECKS, budget_s: float = BUDGET_S) -> None:
        from ..build.compdb import CompileDatabase
        from ..build.gate import Gate

        self.workspace = Path(workspace)
        self.db = CompileDatabase.from_store(store)
        self.gate = Gate(self.workspace, self.db)
        self.max_checks = max_checks
        self.deadline = time.monotonic() + budget_s
        self.stats = ValidationStats()
        self._before: dict[tuple[str, ...], list[BuildErrorRecord] | None] = {}
        self._after: dict[tuple[str, str], tuple[bool, list[BuildErrorRecord], str]] = {}

    def close(self) -> None:
        self.gate.close()

    def _abs(self, path: str) -> str:
        p = Path(path)
        return os.path.realpath(p if p.is_absolute() else self.workspace / p)

    def _over_budget(self) -> bool:
        if self.stats.checked >= self.max_checks:
            self.stats.stopped = self.stats.stopped or "count"
            return True
        if time.monotonic() > self.deadline:
            self.stats.stopped = self.stats.stopped or "time"
            return True
        return False

    def _baseline(self, files: tuple[str, ...], link: bool) -> list[BuildErrorRecord] | None:
        key = (("link:",) if link else ()) + files
        if key not in self._before:
            if link:
                result = self.gate.relink({})
            else:
                result = self.gate.check({f: None for f in files})
            self.stats.compiler_runs += len(result.units)
            ran = result.checked and all(u.exit_code >= 0 for u in result.units)
            self._before[key] = result.errors if ran else None
            if result.message and result.message not in self.stats.notes:
                self.stats.notes.append(result.message)
        return self._before[key]

    def check(self, record: BuildErrorRecord, cand: FixCandidate) -> str:
        """'validated', 'rejected' or 'unchecked' (and records it on the candidate)."""
        link = is_link_error(record)
        edit_files = sorted({self._abs(e.file_path) for e in cand.edits})
        added = [str(s) for s in cand.mutation.get("added_sources", []) or []]
        code_files = [f for f in edit_files if f.endswith(_C_EXT)]
        if len(code_files) != len(edit_files) and not added:
            return "unchecked"  # a build-file edit the gate cannot replay
        own_name = record.file_path
        if own_name and not self.db.for_source(self._abs(own_name)) and record.translation_unit:
            own_name = record.translation_unit  # an error in a header (or a system one): check its unit
        own = [self._abs(own_name)] if own_name and not link and own_name.endswith(_C_EXT) else []
        files = tuple(sorted(set(code_files) | set(own)))
        if not files and not added:
            return "unchecked"
        before = self._baseline(files, link)
        if before is None or not before:
            return "unchecked"  # the error does not reproduce with the recorded commands
        from ..edits import plan

        fingerprint = (cand.edits_fingerprint() + "|" + ",".join(added), "link" if link else ",".join(files))
        if fingerprint not in self._after:
            try:
                texts: dict[str, str | None] = {f: None for f in files}
                texts.update({str(p.path): p.after.decode("utf-8") for p in plan(cand.edits, self.workspace)})
                texts = {k: v for k, v in texts.items() if k.endswith(_C_EXT)}
            except Exception:  # noqa: BLE001 - an edit that does not apply cannot be validated
                return "unchecked"
            self.stats.checked += 1
            if link:
                result = self.gate.relink(texts, added_sources=added)
            else:
                result = self.gate.check(texts)
            self.stats.compiler_runs += len(result.units)
            ran = result.checked and all(u.exit_code >= 0 for u in result.units) and not result.unchecked
            units = ", ".join(Path(u.source).name for u in result.units)
            self._after[fingerprint] = (ran, result.errors, units)
        ran, after, units = self._after[fingerprint]
        if not ran:
            return "unchecked"
        what = f"relinked with the recorded link command ({units})" if link else f"re-checked {units} with the recorded command (syntax only)"
        if _removes(record, before, after):
            cand.validated = True
            if not after:  # the whole unit (or link) is clean now: the stronger proof
                cand.confidence = round(min(cand.confidence + 0.05, 0.99), 3)
            cand.mutation["validation"] = {"by": "gate", "covered": f"{what}: the error is gone, no new error",
                                           "errors_before": len(before), "errors_after": len(after)}
            return "validated"
        cand.mutation["validation"] = {"by": "gate", "result": "rejected", "covered": what,
                                       "errors_before": len(before), "errors_after": len(after)}
        cand.confidence = round(cand.confidence * 0.5, 3)
        return "rejected"


def _confirm_class(record: BuildErrorRecord, cand: FixCandidate, workspace: Path) -> None:
    """A fix that leaves its unit (or the link) clean says what the error was: its kind confirms
    or corrects the record's class (kept, with the class it replaces, on the candidate)."""
    if (cand.mutation.get("validation") or {}).get("errors_after") != 0 or is_link_error(record):
        return
    from ..classify.by_fix import fix_class

    proved = fix_class(cand, workspace)
    if proved and proved != record.error_type:
        cand.mutation["validation"]["reclassified"] = f"{record.error_type} -> {proved}"
        record.error_type = proved


def validate_build_candidates(
    records: list[BuildErrorRecord],
    candidates: list[FixCandidate],
    workspace: Path,
    store: Path,
    *,
    max_checks: int | None = None,
    budget_s: float | None = None,
    stats: ValidationStats | None = None,
) -> list[FixCandidate]:
    """Check candidates with the gate in order of their priors; returns them re-ranked."""
    started = time.monotonic()
    validator = Validator(workspace, store, max_checks=MAX_CHECKS if max_checks is None else max_checks,
                          budget_s=BUDGET_S if budget_s is None else budget_s)
    out_stats = validator.stats
    try:
        if not validator.db:
            out_stats.stopped = "no-commands"
            out_stats.notes.append("no compile commands recorded: candidates keep their priors (build once through ccwrap)")
            return candidates
        by_target: dict[str, list[FixCandidate]] = {}
        for cand in candidates:
            if cand.edits:
                by_target.setdefault(cand.target_id, []).append(cand)
        seen: set[str] = set()
        for record in records:
            record.ensure_id()
            if record.error_id in seen or record.error_id not in by_target or not record.is_failure:
                continue
            seen.add(record.error_id)
            out_stats.errors += 1
            tried = 0
            for cand in sorted(by_target[record.error_id], key=lambda c: -c.confidence):
                if tried >= PER_ERROR or validator._over_budget():
                    break
                verdict = validator.check(record, cand)
                tried += verdict != "unchecked"
                if verdict == "validated":
                    out_stats.validated += 1
                    _confirm_class(record, cand, validator.workspace)
                    break  # the best prior that holds: the others keep theirs
                if verdict == "rejected":
                    out_stats.rejected += 1
    finally:
        validator.close()
        out_stats.unchecked = sum(1 for c in candidates if c.edits and "validation" not in c.mutation)
        out_stats.elapsed_s = round(time.monotonic() - started, 3)
        if stats is not None:
            for name, value in asdict(out_stats).items():
                setattr(stats, name, value)
    return rank_candidates(candidates)
