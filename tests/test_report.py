"""Reports: every format from a realistic session (real gcc output, a failing test, a loop)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import pytest
from report_support import HAVE_GCC, make_workspace

from pytest_whetstone.records import BuildErrorRecord, FixCandidate, Position, TestFailureRecord, TextEdit
from pytest_whetstone.report import FORMATS, build_model, render, run_report
from pytest_whetstone.report import github as gh
from pytest_whetstone.report import sarif as sarif_mod
from pytest_whetstone.report.json_report import BUILD_ERROR_KEYS, CANDIDATE_KEYS, TEST_FAILURE_KEYS, TOP_KEYS
from pytest_whetstone.store.fold import SessionState, fold
from pytest_whetstone.verdict import BEGIN, END, parse_last

SCHEMA = Path(__file__).parent / "fixtures" / "sarif" / "sarif-schema-2.1.0.json"
HOSTILE = "\n::error::pwned %0A <script>alert(1)</script>,x:y\r\x1b[2J"

pytestmark = pytest.mark.skipif(not HAVE_GCC, reason="gcc is needed to produce real diagnostics")


@pytest.fixture
def ws(tmp_path, monkeypatch):
    monkeypatch.delenv("WHETSTONE_DIR", raising=False)
    monkeypatch.delenv("WHETSTONE_SESSION", raising=False)
    session, workspace = make_workspace(tmp_path / "ws")
    monkeypatch.chdir(workspace)
    return session, workspace


@pytest.fixture
def hostile_ws(tmp_path, monkeypatch):
    monkeypatch.delenv("WHETSTONE_DIR", raising=False)
    monkeypatch.delenv("WHETSTONE_SESSION", raising=False)
    session, workspace = make_workspace(tmp_path / "ws", hostile=HOSTILE)
    monkeypatch.chdir(workspace)
    return session, workspace


def report(session, fmt):
    text, code = run_report([session.store], None, fmt)
    assert code == 0, text
    return text


# --------------------------------------------------------------------------- json


def test_json_has_exactly_the_documented_shape(ws):
    session, workspace = ws
    data = json.loads(report(session, "json"))
    assert tuple(sorted(data)) == tuple(sorted(TOP_KEYS))
    assert data["schema_version"] == "whetstone/1"
    assert data["session_id"] == session.session_id
    assert (data["status"], data["failure"]) == ("fail", "compile-error")
    assert data["build_errors"] and data["test_failures"] and data["candidates"]
    for e in data["build_errors"]:
        assert sorted(e) == sorted(BUILD_ERROR_KEYS)
        assert e["file_path"] == "src/calc.c"  # relative to the workspace
    for f in data["test_failures"]:
        assert sorted(f) == sorted(TEST_FAILURE_KEYS)
        assert f["file_path"] == "tests/test_stats.py"
        for s in f["suspects"]:
            assert sorted(s) == ["evidence", "file_path", "line_end", "line_start", "qualname", "score"]
            assert s["file_path"] == "stats.py"
    for c in data["candidates"]:
        assert sorted(c) == sorted(CANDIDATE_KEYS)
        for edit in c["edits"]:
            assert not os.path.isabs(edit["file_path"])
    # ranked: validated first, then by confidence
    ranks = [(not c["validated"], -c["confidence"]) for c in data["candidates"]]
    assert ranks == sorted(ranks)
    assert data["candidates"][0]["validated"] is True
    # the real error comes first; lint last
    assert data["build_errors"][0]["severity"] == "error"
    assert data["build_errors"][-1]["is_lint"] is True


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_same_state_gives_the_same_bytes(ws, fmt):
    session, _ = ws
    first = report(session, fmt)
    assert first == report(session, fmt)
    state = fold(session.events())
    assert render(state, fmt, workspace=session.workspace) == render(fold(session.events()), fmt,
                                                                       workspace=session.workspace)


# --------------------------------------------------------------------------- text


def test_text_is_compact_first_error_first_and_ends_with_the_verdict(ws):
    session, _ = ws
    text = report(session, "text")
    lines = text.rstrip("\n").splitlines()
    assert lines[-3] == BEGIN and lines[-1] == END  # the verdict block is the very last thing
    verdict = parse_last(text)
    assert verdict is not None and verdict.failure == "compile-error" and verdict.first_error == "src/calc.c:6"
    assert verdict.counts["errors"] == 1 and verdict.counts["test_failures"] == 1
    assert lines[1].startswith("1 error, 2 warnings, 1 lint, 1 test failure (+1 flaky)")
    diag = [ln.strip() for ln in lines if ln.startswith("  src/calc.c:")]
    assert diag[0].startswith("src/calc.c:6:12: undefined_symbol: ")  # the error before the warnings
    assert any("FAILED tests/test_stats.py::test_mean [assertion] · expected 2, got 1.5" in ln for ln in lines)
    assert any("suspect stats.py:1 mean" in ln for ln in lines)
    # top candidates carry their diffs
    assert "+#include <stdio.h>" in text and "+    return total / len(values)" in text
    assert len(lines) < 80


def test_text_flattens_hostile_strings(hostile_ws):
    session, _ = hostile_ws
    text = report(session, "text")
    assert "\x1b" not in text and "\r" not in text
    assert "\\x1b[2J" in text
    assert not any(line.startswith("::error::pwned") for line in text.splitlines())
    assert parse_last(text) is not None


def test_text_falls_back_to_listing_edits_outside_the_workspace(tmp_path):
    state = SessionState(session_id="s1")
    err = BuildErrorRecord(tool="gcc", file_path="/elsewhere/x.c", line=3, col=1, message="boom").ensure_id()
    state.build_errors = [err]
    state.candidates = [FixCandidate(target_id=err.error_id, description="fix", confidence=0.8,
                                     mutation_type="replaceNode",
                                     edits=[TextEdit("/elsewhere/x.c", Position(3, 1), Position(3, 4), "int")]
                                     ).ensure_id()]
    text = render(state, "text", workspace=tmp_path)
    assert "replace /elsewhere/x.c:3:1-3:4 with 'int'" in text


# --------------------------------------------------------------------------- verdict classes


def _state(errors=(), failures=(), **kw) -> SessionState:
    st = SessionState(session_id="s", build_errors=list(errors), test_failures=list(failures))
    for key, value in kw.items():
        setattr(st, key, value)
    return st


@pytest.mark.parametrize(
    ("state", "failure", "status"),
    [
        (_state([BuildErrorRecord(tool="linker", message="undefined reference to `f'")]), "link-error", "fail"),
        (_state([BuildErrorRecord(tool="gcc", message="x", error_type="syntax_error")]), "compile-error", "fail"),
        (_state([BuildErrorRecord(tool="gcc", severity="warning", message="w")]), None, "pass"),
        (_state([BuildErrorRecord(tool="gcc", message="x", is_lint=True)]), None, "pass"),
        (_state(failures=[TestFailureRecord(failure_type="infra", failure_id="t")]), "setup-error", "fail"),
        (_state(failures=[TestFailureRecord(failure_type="assertion", failure_id="t", flaky=True)]),
         "nondeterminism", "warn"),
        (_state(verdicts=[{"failure": "timeout", "phase": "tests"}]), "timeout", "fail"),
        (_state(verdicts=[{"failure": "timeout"}, {"failure": None}]), None, "pass"),
        (_state(requirements_gap=[{"tool": "cmake"}]), "setup-error", "fail"),
    ],
)
def test_the_report_verdict_reflects_the_state_now(state, failure, status):
    model = build_model(state)
    assert (model.failure, model.status) == (failure, status)
    assert model.verdict.failure == failure


# --------------------------------------------------------------------------- sarif


def _uris(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "uri":
                yield value
            else:
                yield from _uris(value)
    elif isinstance(node, list):
        for value in node:
            yield from _uris(value)


def test_sarif_is_valid_against_the_official_schema(ws):
    session, workspace = ws
    doc = json.loads(report(session, "sarif"))
    schema = json.loads(SCHEMA.read_text())
    assert schema["id"].endswith("sarif-schema-2.1.0.json")
    jsonschema.Draft4Validator(schema).validate(doc)
    for uri in _uris(doc):
        assert " " not in uri and urlsplit(uri).path
    run = doc["runs"][0]
    assert doc["version"] == "2.1.0" and run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == workspace.resolve().as_uri() + "/"
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert "build/undefined_symbol" in ids and "test/assertion" in ids
    assert all(r["shortDescription"]["text"] for r in rules)
    results = run["results"]
    # one result per diagnostic (notes aside) and per failure
    assert len(results) == 4 + 2
    for r in results:
        assert ids[r["ruleIndex"]] == r["ruleId"]
        assert r["partialFingerprints"]["whetstoneFingerprint/v1"]
    first = results[0]
    assert first["level"] == "error" and first["ruleId"] == "build/undefined_symbol"
    loc = first["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "src/calc.c", "uriBaseId": "SRCROOT"}
    assert loc["region"] == {"startLine": 6, "startColumn": 12}
    levels = {r["message"]["text"].split(" [")[0]: r["level"] for r in results}
    assert levels["unused variable ‘unused’"] == "note"  # lint warning
    assert levels["implicit declaration of function ‘printf’"] == "warning"
    # gcc's note under it ("include '<stdio.h>' or provide a declaration") is a related location
    printf = next(r for r in results if r["message"]["text"].startswith("implicit declaration of function"))
    note = printf["relatedLocations"][0]
    assert note["physicalLocation"]["artifactLocation"]["uri"] == "src/calc.c"
    assert "stdio.h" in note["message"]["text"]
    # fixes: the 0.9 compiler fix-it and the validated test fix; never the 0.2 manual one
    with_fixes = [r for r in results if "fixes" in r]
    assert len(with_fixes) == 2
    include_fix = next(r for r in with_fixes if r["ruleId"] == "build/missing_include")["fixes"][0]
    change = include_fix["artifactChanges"][0]
    assert change["artifactLocation"]["uri"] == "src/calc.c"
    assert change["replacements"][0] == {
        "deletedRegion": {"startLine": 2, "startColumn": 1, "endLine": 2, "endColumn": 1},
        "insertedContent": {"text": "#include <stdio.h>\n"},
    }
    test_result = next(r for r in with_fixes if r["ruleId"] == "test/assertion")
    assert "validated" in test_result["fixes"][0]["description"]["text"]
    assert test_result["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "stats.py"
    assert run["properties"]["verdict"]["failure"] == "compile-error"


def test_sarif_stays_within_githubs_result_limit(ws, monkeypatch):
    session, _ = ws
    monkeypatch.setattr(sarif_mod, "MAX_RESULTS", 3)
    doc = json.loads(report(session, "sarif"))
    assert len(doc["runs"][0]["results"]) == 3
    assert doc["runs"][0]["properties"]["truncated"] is True
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(doc)


# --------------------------------------------------------------------------- github


def _unescape_data(text: str) -> str:
    # What the Actions runner does (ActionCommand.UnescapeData / UnescapeProperty).
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",") \
        .replace("%25", "%")


def test_github_annotations_cannot_be_hijacked(hostile_ws):
    session, _ = hostile_ws
    out = report(session, "github")
    lines = out.splitlines()
    assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    assert not any(line.startswith("::error::") for line in lines)
    hostile_line = next(ln for ln in lines if "pwned" in ln and "file=src/calc.c" in ln)
    head, message = hostile_line.split("::", 2)[1:]
    assert "\n" not in message and "\r" not in message
    assert _unescape_data(message).endswith(HOSTILE)  # round-trips exactly
    failure_line = next(ln for ln in lines if "title=test failure" in ln)
    props = failure_line.split("::", 2)[1].split(" ", 1)[1]
    title = dict(p.split("=", 1) for p in props.split(","))["title"]
    assert ":" not in title and "," not in title  # escaped inside a property
    assert _unescape_data(title).endswith("test_mean" + HOSTILE)


def test_github_levels(ws):
    session, _ = ws
    lines = report(session, "github").splitlines()
    assert lines[0].startswith("::error file=src/calc.c,line=6,col=12,title=undefined_symbol::")
    assert any(ln.startswith("::warning file=src/calc.c,line=3,col=9,") for ln in lines)  # lint
    assert any(ln.startswith("::notice file=tests/test_stats.py,line=9,") for ln in lines)  # flaky
    assert gh.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


# --------------------------------------------------------------------------- run_report


def test_usage_errors_are_one_line_and_exit_2(ws, tmp_path):
    session, workspace = ws
    for args in (
        ([session.store], None, "xml"),
        ([session.store], "no-such-session", "text"),
        ([session.store], "../evil", "text"),
        ([tmp_path / "missing"], None, "text"),
        ([tmp_path / "empty"], None, "text"),
    ):
        (tmp_path / "empty").mkdir(exist_ok=True)
        text, code = run_report(*args)
        assert code == 2, args
        assert text.startswith("whetstone: error: ") and "\n" not in text
    empty_store = tmp_path / "other" / ".whetstone"
    (empty_store / "sessions").mkdir(parents=True)
    text, code = run_report([empty_store], None, "text")
    assert code == 2 and "no session" in text


def test_output_file_and_explicit_session_file(ws, tmp_path):
    session, _ = ws
    out = tmp_path / "report.sarif"
    text, code = run_report([session.path], None, "sarif", str(out))
    assert code == 0 and str(out) in text
    assert json.loads(out.read_text())["version"] == "2.1.0"
    text, code = run_report([session.store], None, "json", str(tmp_path / "no-dir" / "r.json"))
    assert code == 2 and text.startswith("whetstone: error: cannot write")


def test_corrupt_lines_are_skipped_with_one_warning_each(ws, capsys):
    session, _ = ws
    with open(session.path, "a") as fh:
        fh.write('{"event": "build_errors", "data": {"records": [{"line": "x"\n')
        fh.write("[1, 2, 3]\n")
        fh.write('{"event": "build_errors", "data": {"origin": "evil", "records": '
                 '[{"file_path": "src/calc.c", "line": "77", "message": ["not", "a", "string"]}]}}\n')
    text, code = run_report([session.store], None, "text")
    assert code == 0 and parse_last(text) is not None
    err = capsys.readouterr().err
    assert err.count("whetstone: warning:") == 2
    assert "src/calc.c:77" in text  # the string line number was coerced, the list message dropped


def test_exit_code_flag_says_whether_the_session_shown_still_fails(ws, tmp_path, monkeypatch, capsys):
    session, _ = ws
    assert run_report([session.store], None, "text")[1] == 0  # written: 0 without the flag
    assert run_report([session.store], None, "text", exit_code=True)[1] == 1
    out = tmp_path / "r.json"
    assert run_report([session.store], None, "json", str(out), exit_code=True)[1] == 1 and out.exists()
    # A real run that passes, in a store of its own, through the command line.
    from pytest_whetstone.cli import main

    monkeypatch.setenv("WHETSTONE_DIR", str(tmp_path / "passing" / ".whetstone"))
    assert main(["run", "--", "true"]) == 0
    assert main(["report", "--exit-code"]) == 0
    assert main(["run", "--", "sh", "-c", "echo 'x.c:1:1: error: boom'; exit 1"]) == 1
    assert main(["report", "--exit-code"]) == 1
    assert main(["report"]) == 0
    capsys.readouterr()
