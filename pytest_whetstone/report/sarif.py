"""`--format sarif`: SARIF 2.1.0 for GitHub code scanning and IDE SARIF viewers.

One result per build diagnostic (notes excepted) and per test failure; the
rule is the classifier's ``error_type`` / ``failure_type``; locations are
relative to ``%SRCROOT%`` (the workspace) where the file lies inside it;
columns count Unicode code points (``columnKind``), as our records do.
Validated and high-confidence candidates become ``fixes``
(artifactChanges → replacements with deletedRegion + insertedContent; the
region end is exclusive, as in our edits).  Kept inside GitHub's documented
limits (25,000 results per run, 1,000 locations per result, 20 tags per rule).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..records import BuildErrorRecord, FixCandidate, TestFailureRecord, TextEdit, stable_id
from .common import expected_actual, failure_title
from .model import ReportModel

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
MAX_RESULTS = 25_000
MAX_RELATED = 20
MAX_MESSAGE = 8_000
INFORMATION_URI = "https://pypi.org/project/whetstone/"

BUILD_RULES = {
    "missing_include": "A header or file named in an #include was not found.",
    "undefined_symbol": "A name is used that was never declared or defined (compiler or linker).",
    "type_mismatch": "A value's type does not fit where it is used.",
    "missing_dependency": "A library, package or build target the build needs is missing.",
    "syntax_error": "The source does not parse.",
    "resource_limit": "The build ran out of memory, disk or another resource.",
    "unknown": "A build diagnostic the classifier could not place.",
}
TEST_RULES = {
    "assertion": "A test assertion failed: the code returned something other than expected.",
    "exception": "The code under test raised an unexpected exception.",
    "timeout": "A test ran out of time.",
    "wrong_output": "The output differs from the expected (golden, snapshot) output.",
    "missing_output": "An expected output file or value was not produced.",
    "infra": "A test could not run: setup, teardown, collection or import failed.",
    "unknown": "A test failure the classifier could not place.",
}


def _rule_id(kind: str, name: str) -> str:
    return f"{kind}/{name}"


def _camel(text: str) -> str:
    return "".join(part.capitalize() for part in text.replace("/", "_").split("_"))


def _rules(model: ReportModel) -> tuple[list[dict[str, Any]], dict[str, int]]:
    used: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for e in model.build_errors:
        if e.severity == "note":
            continue
        name = e.error_type if e.error_type in BUILD_RULES else "unknown"
        if _rule_id("build", name) not in seen:
            seen.add(_rule_id("build", name))
            used.append(("build", name, BUILD_RULES[name]))
    for f in model.test_failures:
        name = f.failure_type if f.failure_type in TEST_RULES else "unknown"
        if _rule_id("test", name) not in seen:
            seen.add(_rule_id("test", name))
            used.append(("test", name, TEST_RULES[name]))
    used.sort()
    rules: list[dict[str, Any]] = []
    for kind, name, text in used:
        rules.append(
            {
                "id": _rule_id(kind, name),
                "name": _camel(f"{kind}_{name}"),
                "shortDescription": {"text": text},
                "fullDescription": {"text": text},
                "defaultConfiguration": {"level": "error"},
                "properties": {"tags": [kind, name.replace("_", "-")]},
            }
        )
    return rules, {r["id"]: i for i, r in enumerate(rules)}


def _uri(path: str, workspace: Path | None) -> dict[str, Any]:
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    loc: dict[str, Any] = {"uri": quote(Path(path).as_posix(), safe="/")}
    if workspace is not None:
        loc["uriBaseId"] = "SRCROOT"
    return loc


def _region(line: int, col: int = 0) -> dict[str, int] | None:
    if line < 1:
        return None
    region = {"startLine": line}
    if col >= 1:
        region["startColumn"] = col
    return region


def _location(path: str, line: int, col: int, workspace: Path | None, message: str = "") -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": _uri(path, workspace)}
    region = _region(line, col)
    if region:
        physical["region"] = region
    loc: dict[str, Any] = {"physicalLocation": physical}
    if message:
        loc["message"] = {"text": message}
    return loc


def _text(text: str) -> str:
    text = text.strip() or "(no message)"
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def _fix(candidate: FixCandidate, workspace: Path | None) -> dict[str, Any] | None:
    by_file: dict[str, list[TextEdit]] = {}
    for edit in candidate.edits:
        if not edit.file_path:
            return None
        by_file.setdefault(edit.file_path, []).append(edit)
    changes = []
    for path, edits in by_file.items():
        replacements = []
        for e in edits:
            start_line, start_col = max(1, e.start.line), max(1, e.start.col)
            end_line, end_col = max(start_line, e.end.line), max(1, e.end.col)
            if (end_line, end_col) < (start_line, start_col):
                return None  # a reversed range is no fix we can describe
            replacements.append(
                {
                    "deletedRegion": {
                        "startLine": start_line,
                        "startColumn": start_col,
                        "endLine": end_line,
                        "endColumn": end_col,
                    },
                    "insertedContent": {"text": e.new_text},
                }
            )
        changes.append({"artifactLocation": _uri(path, workspace), "replacements": replacements})
    state = "validated" if candidate.validated else f"confidence {candidate.confidence:.2f}"
    return {
        "description": {"text": _text(f"{candidate.description} ({state}, {candidate.candidate_id})")},
        "artifactChanges": changes,
    }


def _fixes(model: ReportModel, target_id: str) -> list[dict[str, Any]]:
    out = []
    for cand in model.fix_candidates_for(target_id):
        fix = _fix(cand, model.workspace)
        if fix is not None:
            out.append(fix)
    return out


def _error_result(e: BuildErrorRecord, model: ReportModel, index: dict[str, int]) -> dict[str, Any]:
    name = e.error_type if e.error_type in BUILD_RULES else "unknown"
    rule = _rule_id("build", name)
    if e.is_failure:
        level = "error"
    elif e.is_lint:
        level = "warning" if e.severity == "error" else "note"
    else:
        level = "warning" if e.severity == "warning" else "note"
    message = e.message + (f" [{e.error_code}]" if e.error_code and e.error_code not in e.message else "")
    result: dict[str, Any] = {
        "ruleId": rule,
        "ruleIndex": index[rule],
        "level": level,
        "message": {"text": _text(message)},
        "partialFingerprints": {
            "whetstoneFingerprint/v1": stable_id(rule, e.file_path, e.line, e.col, e.severity, e.message)
        },
        "properties": {"tool": e.tool, "severity": e.severity, "isLint": e.is_lint, "errorId": e.error_id},
    }
    if e.file_path:
        result["locations"] = [_location(e.file_path, e.line, e.col, model.workspace)]
    related = [_location(n.file_path, n.line, n.col, model.workspace, n.message or "note")
               for n in e.notes if n.file_path and not n.file_path.startswith("<")][:MAX_RELATED]
    if related:
        for i, loc in enumerate(related):
            loc["id"] = i
        result["relatedLocations"] = related
    if e.error_code:
        result["properties"]["errorCode"] = e.error_code
    fixes = _fixes(model, e.error_id)
    if fixes:
        result["fixes"] = fixes
    return result


def _failure_result(f: TestFailureRecord, model: ReportModel, index: dict[str, int]) -> dict[str, Any]:
    name = f.failure_type if f.failure_type in TEST_RULES else "unknown"
    rule = _rule_id("test", name)
    parts = [f"{'Flaky test' if f.flaky else 'Test failed'}: {failure_title(f)}"]
    ea = expected_actual(f, 1000)
    if ea:
        parts.append(ea)
    if f.message:
        parts.append(f.message)
    result: dict[str, Any] = {
        "ruleId": rule,
        "ruleIndex": index[rule],
        "level": "warning" if f.flaky else "error",
        "message": {"text": _text("\n".join(parts))},
        "partialFingerprints": {"whetstoneFingerprint/v1": stable_id(rule, f.failure_id or f.node_id)},
        "properties": {
            "runner": f.runner,
            "failureId": f.failure_id,
            "testName": f.test_name,
            "flaky": f.flaky,
        },
    }
    if f.file_path:
        result["locations"] = [_location(f.file_path, f.line, 0, model.workspace)]
    related = []
    if f.impl_file:
        related.append(_location(f.impl_file, f.impl_line, 0, model.workspace, "where the code failed"))
    for s in f.suspects:
        if s.file_path:
            related.append(
                _location(s.file_path, s.line_start, 0, model.workspace,
                          f"suspect {s.qualname} (score {s.score:.2f})")
            )
    if related:
        for i, loc in enumerate(related[:MAX_RELATED]):
            loc["id"] = i
        result["relatedLocations"] = related[:MAX_RELATED]
    fixes = _fixes(model, f.failure_id)
    if fixes:
        result["fixes"] = fixes
    return result


def to_data(model: ReportModel) -> dict[str, Any]:
    rules, index = _rules(model)
    results: list[dict[str, Any]] = []
    for e in model.build_errors:  # already ordered: failing errors first
        if e.severity != "note":
            results.append(_error_result(e, model, index))
    for f in sorted(model.test_failures, key=lambda f: f.flaky):
        results.append(_failure_result(f, model, index))
    truncated = len(results) > MAX_RESULTS
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "whetstone",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }
        },
        "automationDetails": {"id": f"whetstone/{model.session_id}"},
        "columnKind": "unicodeCodePoints",
        "results": results[:MAX_RESULTS],
        "properties": {
            "verdict": model.verdict.to_dict(),
            "truncated": truncated,
        },
    }
    if model.workspace is not None:
        root = model.workspace.resolve().as_uri().rstrip("/") + "/"
        run["originalUriBaseIds"] = {"SRCROOT": {"uri": root}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def render(model: ReportModel) -> str:
    return json.dumps(to_data(model), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
