"""The one vocabulary every producer and consumer of Whetstone speaks.

Every record is a dataclass that round-trips exactly through JSON
(``from_dict(to_dict(r)) == r``) and serialises deterministically: the same
record always gives the same bytes (sorted keys, no whitespace).

Positions are 1-based lines and 1-based columns counted in characters
(Unicode code points) of the decoded line, as gcc and clang print them for
ASCII source.  Column 0 means "no column known".
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from .schema import SCHEMA_VERSION, dumps  # noqa: F401 - re-exported: one vocabulary

BUILD_TOOLS = ("gcc", "clang", "clang_tidy", "tsc", "cmake", "linker", "make", "unknown")
SEVERITIES = ("error", "warning", "note")
ERROR_TYPES = (
    "missing_include",
    "undefined_symbol",
    "type_mismatch",
    "missing_dependency",
    "syntax_error",
    "resource_limit",
    "unknown",
)
RUNNERS = ("gtest", "pytest", "jest", "tap", "junit", "ctest", "unittest", "python", "node", "mocha", "vitest",
           "unknown")
FAILURE_TYPES = (
    "assertion",
    "exception",
    "timeout",
    "wrong_output",
    "missing_output",
    "infra",
    "unknown",
)
MUTATION_TYPES = (
    "addImport",
    "rename",
    "changeType",
    "addDependency",
    "insertNode",
    "deleteNode",
    "replaceNode",
    "manual",
)
CANDIDATE_SOURCES = ("compiler-fixit", "interpreter-hint", "rule", "heuristic", "search")
VERDICT_FAILURES = (
    "compile-error",
    "link-error",
    "test-failure",
    "nondeterminism",
    "setup-error",
    "oom",
    "timeout",
)
RETRY_ADVICE = ("rerun", "fix-source", "fix-env", "escalate")
SESSION_STATUSES = ("pending", "running", "converged", "escalated", "failed")
ESCALATION_REASONS = (
    "max_attempts",
    "worsening_trend",
    "no_progress",
    "all_auto_tried",
    "manual_required",
    "infra_gap",
    "repeated_failure",
    "max_wall",  # the wall-time budget (--max-wall / budgets.max_wall_s) was spent
    "wall_time",  # the same, as older sessions name it
)

R = TypeVar("R", bound="Record")


def stable_id(*parts: object, length: int = 12) -> str:
    """A short content hash: the same inputs always name the same record."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8", "replace"))
    return digest.hexdigest()[:length]


class Record:
    """Mixin: JSON round-trip for nested dataclasses."""

    # Nested record types per field, so from_dict can rebuild them.
    _nested: ClassVar[dict[str, type[Record]]] = {}
    _nested_lists: ClassVar[dict[str, type[Record]]] = {}

    def to_dict(self) -> dict[str, Any]:
        names = _FIELD_NAMES.get(type(self))
        if names is None:
            names = _FIELD_NAMES[type(self)] = tuple(f.name for f in dataclasses.fields(self))  # type: ignore[arg-type]
        out: dict[str, Any] = {}
        for name in names:
            value = getattr(self, name)
            # most fields are str/int/bool/None: skip _plain's isinstance checks for them
            out[name] = value if type(value) in _SCALARS else _plain(value)
        return out

    def to_json(self) -> str:
        return dumps(self.to_dict())

    @classmethod
    def from_dict(cls: type[R], data: dict[str, Any]) -> R:
        if not isinstance(data, dict):
            raise TypeError(f"{cls.__name__}: expected an object, got {type(data).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                continue  # newer writers may add keys; readers ignore them
            if key in cls._nested and value is not None:
                value = cls._nested[key].from_dict(value)
            elif key in cls._nested_lists and value is not None:
                value = [cls._nested_lists[key].from_dict(v) for v in value]
            kwargs[key] = value
        return cls(**kwargs)

    @classmethod
    def from_json(cls: type[R], text: str) -> R:
        return cls.from_dict(json.loads(text))


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # dataclasses.fields() per call is the slow part of to_dict
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    if isinstance(value, Record):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [v if type(v) in _SCALARS else _plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


# --------------------------------------------------------------------------- edits


@dataclass
class Position(Record):
    line: int = 1
    col: int = 1


@dataclass
class TextEdit(Record):
    """Replace [start, end) of file_path with new_text (LSP / SARIF shape)."""

    file_path: str = ""
    start: Position = field(default_factory=Position)
    end: Position = field(default_factory=Position)
    new_text: str = ""

    _nested: ClassVar[dict[str, type[Record]]] = {"start": Position, "end": Position}


# --------------------------------------------------------------------------- build

# The message of a note standing for one level of an include chain
# ("In file included from a.h:3," / "from b.c:1:"): the note points at the #include.
INCLUDED_FROM = "included from here"
_NOTE_TEXT = re.compile(r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+)(?::(?P<col>\d+))?: note: (?P<msg>.*)$")
_INCLUDE_TEXT = re.compile(r"^(?:In file included from|from) (?P<file>[^\s:][^:]*?):(?P<line>\d+)(?::(?P<col>\d+))?[,:]?$")


@dataclass
class Note(Record):
    """A note a tool printed under a diagnostic: where it points and what it says
    (an overload candidate, a previous definition, "declared here", an include site)."""

    severity: str = "note"
    file_path: str = ""
    line: int = 0
    col: int = 0
    message: str = ""

    def __str__(self) -> str:
        if not self.file_path:
            return self.message
        where = self.file_path + (f":{self.line}" if self.line else "") + (f":{self.col}" if self.col else "")
        return f"{where}: note: {self.message}"

    @classmethod
    def from_dict(cls, data: Any) -> Note:
        if isinstance(data, str):
            return cls.from_text(data)  # sessions written before notes had locations
        return super().from_dict(data)

    @classmethod
    def from_text(cls, text: str) -> Note:
        """A note as printed (``a.c:3:5: note: ...``, an include-chain line, or bare text)."""
        m = _NOTE_TEXT.match(text) or _INCLUDE_TEXT.match(text)
        if m is None:
            return cls(message=text)
        message = m.groupdict().get("msg") or INCLUDED_FROM
        return cls(file_path=m["file"], line=int(m["line"]), col=int(m["col"] or 0), message=message)


@dataclass
class BuildErrorRecord(Record):
    error_id: str = ""
    tool: str = "unknown"
    severity: str = "error"
    file_path: str = ""
    line: int = 0
    col: int = 0
    error_code: str = ""
    message: str = ""
    context_lines: list[str] = field(default_factory=list)
    ast_node_id: str | None = None
    error_type: str = "unknown"
    is_lint: bool = False
    # Notes ("note: ..." lines, include chains, instantiation context, a linker's other
    # definition) attached to this error, each with the place it points at.
    notes: list[Note] = field(default_factory=list)
    # Compiler fix-its (from -fdiagnostics-parseable-fixits), already in our edit shape.
    fixits: list[TextEdit] = field(default_factory=list)
    # The symbol an undefined-reference / undeclared-identifier error is about, when known.
    symbol: str = ""
    # The function the linker named ("in function `main'"), when known.
    function: str = ""
    # The translation unit (source file being compiled) that produced this, when known.
    translation_unit: str = ""
    raw: str = ""
    schema_version: str = SCHEMA_VERSION

    _nested_lists: ClassVar[dict[str, type[Record]]] = {"fixits": TextEdit, "notes": Note}

    def ensure_id(self) -> BuildErrorRecord:
        if not self.error_id:
            # stable_id(tool, severity, file_path, line, col, message), inlined: one f-string
            # instead of a generator of str() calls (the hot path of a big log).
            key = f"{self.tool}\x1f{self.severity}\x1f{self.file_path}\x1f{self.line}\x1f{self.col}\x1f{self.message}"
            self.error_id = "E" + hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:12]
        return self

    @property
    def is_failure(self) -> bool:
        """A non-lint error fails a gate (classify by tag, not severity); so does lint the
        tool itself turned into an error (``[-Werror=unused-variable]``, ``[-Werror,-Wshadow]``,
        ``-pedantic-errors``' ``[-Wpedantic]``, a permissive error such as ``[-Wint-conversion]``,
        clang-tidy's ``[check,-warnings-as-errors]``): it failed the build.  Only lint a
        configuration rule declared, with no flag of the tool's own, stays out."""
        code = self.error_code
        return self.severity == "error" and (
            not self.is_lint or code.startswith("-W") or code.endswith("-warnings-as-errors"))


# --------------------------------------------------------------------------- tests


@dataclass
class Suspect(Record):
    file_path: str = ""
    qualname: str = ""
    line_start: int = 0
    line_end: int = 0
    score: float = 0.0
    # why it ranks where it does, when a signal says so in words (e.g. a value fault's spectrum:
    # "dstar 0.82 over 3 failing / 12 passing tests (run by 3 / 2)"); empty otherwise
    evidence: str = ""


@dataclass
class TestFailureRecord(Record):
    __test__ = False  # not a pytest test class

    failure_id: str = ""
    runner: str = "unknown"
    test_suite: str = ""
    test_name: str = ""
    failure_type: str = "unknown"
    expected_value: str = ""
    actual_value: str = ""
    file_path: str = ""
    line: int = 0
    message: str = ""
    ast_node_id: str | None = None
    suspects: list[Suspect] = field(default_factory=list)
    node_id: str = ""
    exception_type: str = ""
    # Deepest frame outside tests and site-packages: where the implementation failed.
    impl_file: str = ""
    impl_line: int = 0
    # "failed", "error" (setup/teardown/collection), "xpass-strict", "timeout".
    outcome: str = "failed"
    flaky: bool = False
    duration_ms: int = 0
    raw: str = ""
    schema_version: str = SCHEMA_VERSION

    _nested_lists: ClassVar[dict[str, type[Record]]] = {"suspects": Suspect}

    def ensure_id(self) -> TestFailureRecord:
        if not self.failure_id:
            self.failure_id = "T" + stable_id(
                self.runner, self.node_id or f"{self.test_suite}::{self.test_name}"
            )
        return self

    def place_suspects(self, suspects: list[Suspect]) -> None:
        """The suspects, best first; the record's node becomes the first one's (``file::qualname``), and
        stays as it was when there is none."""
        self.suspects = suspects
        if suspects:
            self.ast_node_id = f"{suspects[0].file_path}::{suspects[0].qualname}"


def is_python_failure(record: TestFailureRecord) -> bool:
    """Reported by pytest or at a ``.py`` file: the Python locators and generators take it, never the
    C/C++/JS ones (``locate.native_tests.is_native``)."""
    return record.runner == "pytest" or record.file_path.endswith(".py")


# --------------------------------------------------------------------------- candidates


MANUAL_CONFIDENCE = 0.05  # a manual fallback ranks below every concrete candidate


@dataclass
class FixCandidate(Record):
    candidate_id: str = ""
    target_id: str = ""
    description: str = ""
    confidence: float = 0.0
    mutation_type: str = "manual"
    # Free-form description of the mutation for tools that want more than edits.
    mutation: dict[str, Any] = field(default_factory=dict)
    edits: list[TextEdit] = field(default_factory=list)
    source: str = "rule"
    validated: bool = False
    schema_version: str = SCHEMA_VERSION

    _nested_lists: ClassVar[dict[str, type[Record]]] = {"edits": TextEdit}

    @classmethod
    def manual(
        cls, target_id: str, description: str, *, confidence: float = MANUAL_CONFIDENCE, source: str = "rule",
        details: dict[str, Any] | None = None,
    ) -> FixCandidate:
        """Advice a person (or agent) carries out: no edits, never applied automatically."""
        return cls(
            target_id=target_id, description=description, confidence=round(confidence, 3), mutation_type="manual",
            mutation=_details(details), source=source,
        ).ensure_id()

    @classmethod
    def edit(
        cls, target_id: str, description: str, edits: list[TextEdit], *, mutation_type: str, confidence: float,
        source: str, validated: bool = False, details: dict[str, Any] | None = None,
    ) -> FixCandidate:
        """Concrete text edits the engine can apply (and the loop may apply on its own)."""
        return cls(
            target_id=target_id, description=description, confidence=round(confidence, 3),
            mutation_type=mutation_type, mutation=_details(details), edits=edits, source=source,
            validated=validated,
        ).ensure_id()

    @property
    def applicability(self) -> str:
        """What may be done with it (ruff's applicability): ``validated`` (a re-run proved it),
        ``automatic`` (the loop may apply it and check), ``display-only`` (advice, no edits)."""
        if self.mutation_type == "manual" or not self.edits:
            return "display-only"
        return "validated" if self.validated else "automatic"

    def edits_fingerprint(self) -> str:
        """Identity of what applying this would do: a hash of its edits."""
        if not self.edits:
            return "manual:" + stable_id(self.target_id, self.description)
        return stable_id(*(e.to_json() for e in self.edits))

    def ensure_id(self) -> FixCandidate:
        if not self.candidate_id:
            self.candidate_id = "C" + stable_id(
                self.target_id, self.mutation_type, self.description, self.edits_fingerprint()
            )
        return self


APPLICABILITY = ("validated", "automatic", "display-only")


def _details(details: dict[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (details or {}).items() if v not in (None, "")}


def rank_candidates(candidates: list[FixCandidate]) -> list[FixCandidate]:
    """Validated first, then confidence, then a stable tie-break on the id."""
    return sorted(
        candidates, key=lambda c: (not c.validated, -round(c.confidence, 6), c.candidate_id)
    )


# --------------------------------------------------------------------------- sessions


@dataclass
class GapModel(Record):
    metric_type: str = "error_count"  # error_count | test_failure_count | requirements
    current: int = 0
    target: int = 0

    @property
    def converged(self) -> bool:
        return self.current <= self.target


@dataclass
class AttemptRecord(Record):
    attempt_id: str = ""
    session_id: str = ""
    action: str = "build"  # build | test | probe | apply | run
    phase: str = ""
    command: str = ""
    exit_code: int | None = None
    outcome: str = "failure"  # success | failure | error | timeout | oom
    candidate_id: str = ""
    gap_before: GapModel | None = None
    gap_after: GapModel | None = None
    started_at: str = ""
    duration_ms: int = 0
    schema_version: str = SCHEMA_VERSION

    _nested: ClassVar[dict[str, type[Record]]] = {"gap_before": GapModel, "gap_after": GapModel}


@dataclass
class ObservationRecord(Record):
    observation_id: str = ""
    attempt_id: str = ""
    raw_text: str = ""
    raw_truncated: bool = False
    error_count: int = 0
    warning_count: int = 0
    fail_count: int = 0
    pass_count: int = 0
    record_ids: list[str] = field(default_factory=list)
    gap: GapModel | None = None
    failure: str | None = None  # verdict failure class
    schema_version: str = SCHEMA_VERSION

    _nested: ClassVar[dict[str, type[Record]]] = {"gap": GapModel}


@dataclass
class OrchestratorDecision(Record):
    action_type: str = ""  # probe_environment | build_iteration | test_iteration | converge | escalate
    rationale: str = ""
    confidence: float = 1.0
    candidate_id: str = ""
    escalation_reason: str = ""
    schema_version: str = SCHEMA_VERSION


@dataclass
class AuditEntry(Record):
    step_index: int = 0
    action_type: str = ""
    action_description: str = ""
    candidate_applied: str | None = None
    gap_before: GapModel | None = None
    gap_after: GapModel | None = None
    session_status_after: str = ""
    duration_ms: int = 0
    rationale: str = ""
    schema_version: str = SCHEMA_VERSION

    _nested: ClassVar[dict[str, type[Record]]] = {"gap_before": GapModel, "gap_after": GapModel}


@dataclass
class AttemptSummary(Record):
    action: str = ""
    outcome: str = ""
    candidate_id: str = ""
    gap_before: GapModel | None = None
    gap_after: GapModel | None = None

    _nested: ClassVar[dict[str, type[Record]]] = {"gap_before": GapModel, "gap_after": GapModel}


@dataclass
class EscalationReport(Record):
    session_id: str = ""
    goal: str = ""
    goal_type: str = ""
    attempts_made: int = 0
    final_gap: GapModel | None = None
    attempts_summary: list[AttemptSummary] = field(default_factory=list)
    top_remaining_candidates: list[FixCandidate] = field(default_factory=list)
    escalation_reason: str = ""
    recommended_next_step: str = ""
    setup_script: str = ""
    schema_version: str = SCHEMA_VERSION

    _nested: ClassVar[dict[str, type[Record]]] = {"final_gap": GapModel}
    _nested_lists: ClassVar[dict[str, type[Record]]] = {
        "attempts_summary": AttemptSummary,
        "top_remaining_candidates": FixCandidate,
    }


@dataclass
class Verdict(Record):
    """The always-last machine-readable block (see verdict.py)."""

    target: str = ""
    status: str = "pass"  # pass | fail | warn
    failure: str | None = None
    phase: str = ""
    first_error: str | None = None
    retry: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    report: str | None = None
    schema_version: str = SCHEMA_VERSION
