"""SARIF input: clang's ``-fdiagnostics-format=sarif`` (clang 22, PyPI ``ziglang``), CMake 4's
``--sarif-output`` (PyPI ``cmake``) and gcc 15's SARIF (from gcc's own test suite): the captured
fixtures in tests/fixtures/build/sarif (see capture_sarif.sh, gcc_upstream/SOURCE.md), and the
real clang when /tmp/zig holds it."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_whetstone.parse import iter_parse_text, parse_file, parse_text
from pytest_whetstone.parse.base import MAX_LINE, ParseContext, ParseResult
from pytest_whetstone.parse.sarif import SarifParser
from pytest_whetstone.parse.sarif_doc import load, records
from pytest_whetstone.parse.stream import write_jsonl

SARIF = Path(__file__).parent / "fixtures" / "build" / "sarif"
ZIG = Path("/tmp/zig/bin/python")


def _cwd(case: str) -> str:
    return f"/tmp/whetstone-fixtures/sarif_{case}"


def _shape(result) -> list[tuple]:  # noqa: ANN001
    return [(r.severity, r.file_path, r.line, r.col, r.message) for r in result.build_errors]


def _tallies(text: str) -> tuple[int, int]:
    """Errors and warnings clang's own "N warnings and M errors generated." lines count."""
    errors = warnings = 0
    for m in re.finditer(r"^(?:(\d+) warnings? and )?(\d+) (warning|error)s? generated\.$", text, re.M):
        if m.group(3) == "error":
            errors += int(m.group(2))
            warnings += int(m.group(1) or 0)
        else:
            warnings += int(m.group(2))
    return errors, warnings


@pytest.mark.parametrize("case", sorted(p.stem for p in SARIF.glob("clang_*.log")))
def test_clang_sarif_counts_equal_clangs_tally(case: str) -> None:
    text = (SARIF / f"{case}.log").read_text()
    result = parse_text(text, cwd=_cwd(case))
    assert result.build_errors and {r.tool for r in result.build_errors} == {"clang"}
    assert (result.reported_error_count, result.warning_count) == _tallies(text)
    assert "sarif" in result.tools


def test_clang_sarif_records_notes_and_caret() -> None:
    result = parse_text((SARIF / "clang_notes.log").read_bytes(), cwd=_cwd("clang_notes"))
    assert _shape(result) == [
        ("error", "notes.cpp", 2, 5, "redefinition of 'f'"),
        ("error", "notes.cpp", 9, 5, "no matching function for call to 'g'"),
        ("error", "notes.cpp", 11, 9, "too few arguments to function call, expected 1, have 0"),
        # the caret (clang's last, point location), not the first range
        ("warning", "notes.cpp", 13, 11, "comparison of integers of different signs: 'unsigned int' and 'int'"),
    ]
    redefinition, overload, too_few, _ = result.build_errors
    assert [n.to_dict() for n in redefinition.notes] == [
        {"severity": "note", "file_path": "notes.cpp", "line": 1, "col": 5, "message": "previous definition is here"}]
    assert [(n.line, n.col) for n in overload.notes] == [(4, 6), (5, 6)]
    assert too_few.notes[0].message == "'m' declared here"
    assert (redefinition.error_type, overload.error_type) == ("undefined_symbol", "type_mismatch")
    assert redefinition.error_code == "4950"  # clang's SARIF names its diagnostic by number, not by flag


def test_clang_sarif_include_chain_and_translation_unit() -> None:
    [rec] = parse_text((SARIF / "clang_header.log").read_bytes(), cwd=_cwd("clang_header")).build_errors
    assert (rec.file_path, rec.line, rec.col, rec.symbol) == ("inc/shape.h", 4, 73, "lenght")
    assert [n.to_dict() for n in rec.notes] == [
        {"severity": "note", "file_path": "header.c", "line": 1, "col": 0, "message": "included from here"}]
    assert rec.translation_unit == "header.c"


def test_make_log_with_a_sarif_document_per_compile() -> None:
    text = (SARIF / "clang_make.log").read_text()
    result = parse_text(text, cwd=_cwd("clang_make"))
    assert (result.reported_error_count, result.warning_count) == _tallies(text) == (5, 6)
    assert {r.translation_unit for r in result.build_errors if r.file_path.endswith(".c")} == {
        "undeclared.c", "fixit.c", "warnings.c"}
    # clang 22's SARIF names a rule by number ("7650"), not by its flag: lint is decided by the
    # flag alone, so none of these is lint (the text form's [-Wunused-variable] would be)
    assert [r.is_lint for r in result.build_errors if r.file_path == "warnings.c"] == [False] * 5
    # make's "*** [Makefile:8: undeclared.o] Error 1" lines are explained by the records
    assert all(r.tool == "clang" for r in result.build_errors)


def test_streaming_gives_the_same_records() -> None:
    text = (SARIF / "clang_make.log").read_text()
    whole = parse_text(text, cwd=_cwd("clang_make"))
    out = io.StringIO()
    write_jsonl(iter_parse_text(text, cwd=_cwd("clang_make")), out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["build_error"] for line in lines[:-1]] == [r.to_dict() for r in whole.build_errors]
    assert lines[-1]["summary"]["error_count"] == 5


@pytest.mark.parametrize("case", ["cmake_configure", "cmake_errors"])
def test_cmake_sarif_file_says_what_cmakes_text_says(case: str) -> None:
    sarif = parse_file(str(SARIF / f"{case}.sarif"), cwd=_cwd(case) + "/proj")
    text = parse_text((SARIF / f"{case}.log").read_bytes(), cwd=_cwd(case) + "/proj")
    # (CMake's text doubles the space after a sentence its SARIF writes with one)
    assert [(r.severity, r.file_path, r.line, r.message.split()) for r in sarif.build_errors] == [
        (r.severity, r.file_path, r.line, r.message.split()) for r in text.build_errors]
    assert {r.tool for r in sarif.build_errors} == {"cmake"}
    assert {r.error_code for r in sarif.build_errors} <= {"CMake.Warning", "CMake.FatalError"}
    assert (sarif.reported_error_count, sarif.warning_count) == (text.reported_error_count, text.warning_count)
    assert parse_file(str(SARIF / f"{case}.sarif"), "sarif", cwd=_cwd(case) + "/proj").to_dict() == sarif.to_dict()


def test_cmake_sarif_missing_package_is_a_missing_dependency() -> None:
    result = parse_file(str(SARIF / "cmake_configure.sarif"), cwd=_cwd("cmake_configure"))
    error = [r for r in result.build_errors if r.severity == "error"][0]
    assert (error.file_path, error.line, error.error_type) == ("proj/CMakeLists.txt", 5, "missing_dependency")
    assert "\n" not in error.message and error.message.startswith('By not providing "FindNoSuchPackageAnywhere')


def _upstream(name: str) -> tuple[str, str]:
    """(the SARIF document, the text gcc printed for it) of a gcc test-suite file."""
    raw = (SARIF / "gcc_upstream" / name).read_text()
    start = raw.index('{"$schema"')
    end = raw.index("\n\n", start)
    expected = re.search(r'dg-begin-multiline-output "" \}\n(.*?)   \{ dg-end', raw, re.S)
    assert expected
    return raw[start:end], expected.group(1)


@pytest.mark.parametrize("name", sorted(p.name for p in (SARIF / "gcc_upstream").glob("*.sarif")))
def test_gcc_sarif_says_what_gccs_text_says(name: str) -> None:
    doc, text = _upstream(name)
    sarif, printed = parse_text(doc, cwd="/nonexistent"), parse_text(text, "gcc", cwd="/nonexistent")
    assert {r.tool for r in sarif.build_errors} == {"gcc"}
    assert [(s, f, ln, c) for s, f, ln, c, _ in _shape(sarif)] == [(s, f, ln, c) for s, f, ln, c, _ in _shape(printed)]
    # gcc's text form of a replayed error without an option ends in " [error]" (a gcc 15 quirk)
    assert [r.message for r in sarif.build_errors] == [r.message.removesuffix(" [error]") for r in printed.build_errors]
    for got, want in zip(sarif.build_errors, printed.build_errors, strict=True):
        assert [(n.file_path, n.line, n.col, n.message) for n in got.notes] == [
            (n.file_path, n.line, n.col, n.message) for n in want.notes]
    # the whole test-suite file (comments around the document, as a log's lines) gives both
    whole = parse_file(str(SARIF / "gcc_upstream" / name), cwd="/nonexistent")
    assert len(whole.build_errors) == 2 * len(sarif.build_errors)


def test_gcc_sarif_fixits_function_and_codes() -> None:
    [warning] = parse_text(_upstream("3.27.30-fixes-1.sarif")[0], cwd="/nonexistent").build_errors
    assert (warning.error_code, warning.function, warning.file_path) == (
        "-Wformat=", "test_mismatching_types", "/this/path/does/not/exist/diagnostic-ranges.c")
    assert [f.to_dict() for f in warning.fixits] == [{
        "file_path": "/this/path/does/not/exist/diagnostic-ranges.c", "start": {"line": 5, "col": 17},
        "end": {"line": 5, "col": 19}, "new_text": "%s"}]
    [deletion] = parse_text(_upstream("3.27.30-fixes-2.sarif")[0]).build_errors
    assert deletion.error_code == ""  # gcc's ruleId "error" names no option
    assert [(f.start.col, f.end.col, f.new_text) for f in deletion.fixits] == [(10, 18, "")]
    [insertion] = parse_text(_upstream("3.27.30-fixes-3.sarif")[0]).build_errors
    assert [(f.start.col, f.end.col, f.new_text) for f in insertion.fixits] == [(1, 1, "struct ")]
    [error] = parse_text(_upstream("unlabelled-secondary-locations.sarif")[0], cwd="/nonexistent").build_errors
    assert [n.message for n in error.notes] == ["declared here"]  # the unlabelled range is no note
    assert error.translation_unit == "too-many-arguments.c"


def test_gcc_one_line_sarif_among_other_lines() -> None:
    """gcc 13/14 print the document on one line (sarif-stderr): the same document compacted,
    between make's lines and the linker's."""
    doc = json.dumps(json.loads(_upstream("unlabelled-secondary-locations.sarif")[0]))
    log = f"gcc -c too-many-arguments.c\n{doc}\nmake: *** [Makefile:2: t.o] Error 1\n"
    result = parse_text(log, cwd="/nonexistent")
    assert [(r.tool, r.line, r.col) for r in result.build_errors] == [("gcc", 5, 3)]


def _doc_line(case: str) -> str:
    return next(line for line in (SARIF / f"{case}.log").read_text().splitlines() if line.startswith("{"))


def test_a_sarif_line_longer_than_max_line_is_read_whole() -> None:
    doc = json.loads(_doc_line("clang_make"))
    results = doc["runs"][0]["results"]
    doc["runs"][0]["results"] = results * (MAX_LINE // 200)
    line = json.dumps(doc)
    assert len(line) > 4 * MAX_LINE
    result = parse_text(f"clang -c undeclared.c\n{line}\n", cwd=_cwd("clang_make"))
    assert len(result.build_errors) == len(doc["runs"][0]["results"])


def test_truncated_sarif_reads_what_came_before_and_warns_once(capsys: pytest.CaptureFixture[str]) -> None:
    data = (SARIF / "cmake_configure.sarif").read_text()
    whole = parse_text(data).build_errors
    cut = data.index('"level" : "error"')
    part = parse_text(data[:cut]).build_errors
    assert _shape_of(part) == _shape_of(whole[:2])
    assert capsys.readouterr().err.count("whetstone: warning:") == 1
    line = _doc_line("clang_notes")
    cut_line = parse_text(line[: line.index("too few arguments")], cwd=_cwd("clang_notes")).build_errors
    assert [r.message for r in cut_line] == ["redefinition of 'f'", "no matching function for call to 'g'"]


def _shape_of(records: list) -> list[tuple]:
    return [(r.severity, r.line, r.message) for r in records]


def test_a_cut_document_does_not_swallow_the_lines_after_it() -> None:
    line = _doc_line("clang_undeclared")
    log = line[:-40] + "\nmain.c:3:1: error: expected ';' before '}' token\n"
    result = parse_text(log, cwd=_cwd("clang_undeclared"))
    assert [r.message for r in result.build_errors][-1] == "expected ';' before '}' token"


_FIXTURE_TEXTS = [p.read_text() for p in sorted(SARIF.glob("*.log")) + sorted(SARIF.glob("*.sarif"))]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(_FIXTURE_TEXTS), st.integers(min_value=0, max_value=12000), st.binary(max_size=300),
       st.integers(min_value=0, max_value=60))
def test_junk_truncation_and_interleaving_never_raise(text: str, cut: int, junk: bytes, every: int) -> None:
    whole = parse_text(text)
    part = parse_text(text[:cut])
    assert len(part.build_errors) <= len(whole.build_errors) + 2  # a cut line may read as another shape
    spliced = text[:cut].encode() + junk + text[cut:].encode()
    parse_text(spliced)
    reader = SarifParser(ParseResult(), ParseContext())  # directly: the dispatcher would hide a raise
    for line in spliced.decode("utf-8", "replace").splitlines():
        reader.feed(line)
    reader.flush()
    if every:
        lines = text.splitlines()
        noise = junk.decode("utf-8", "replace").splitlines() or ["x"]
        mixed = [line for i, line in enumerate(lines) for line in ([line, noise[i % len(noise)]] if i % every == 0
                                                                   else [line])]
        parse_text("\n".join(mixed))


@pytest.mark.skipif(not ZIG.exists() or shutil.which("make") is None,
                    reason="clang's SARIF needs /tmp/zig (python3 -m venv /tmp/zig && /tmp/zig/bin/pip install ziglang)")
@pytest.mark.parametrize("source", ["undeclared.c", "notes.cpp", "fixit.c", "warnings.c"])
def test_real_clang_sarif_gives_what_its_text_gives(tmp_path: Path, source: str) -> None:
    shutil.copytree(SARIF / "src", tmp_path, dirs_exist_ok=True)
    driver = "c++" if source.endswith(".cpp") else "cc"
    argv = [str(ZIG), "-m", "ziglang", driver, "-c", "-o", "/dev/null", "-Wall", "-Wextra", source]
    def run(*extra: str) -> str:
        return subprocess.run([*argv, *extra], cwd=tmp_path, capture_output=True, text=True, timeout=300).stderr
    text = parse_text(run("-fno-color-diagnostics"), cwd=str(tmp_path))
    sarif = parse_text(run("-fdiagnostics-format=sarif", "-Wno-sarif-format-unstable"), cwd=str(tmp_path))
    assert _shape(sarif) == _shape(text) and sarif.build_errors
    assert [[str(n) for n in r.notes] for r in sarif.build_errors] == [[str(n) for n in r.notes]
                                                                      for r in text.build_errors]
    assert (sarif.reported_error_count, sarif.warning_count) == (text.reported_error_count, text.warning_count)


def test_malformed_uris_and_odd_members_are_kept_not_fatal() -> None:
    doc = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "GNU C17"}},
                                         "originalUriBaseIds": {"PWD": {"uri": "file://[broken/"}},
                                         "results": [
        {"level": "error", "message": {"text": "one"}, "ruleId": True,
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": "file://[x/a.c"},
                                             "region": {"startLine": "3", "startColumn": -1}}}]},
        {"level": "bogus", "message": {"id": "m", "arguments": [7]}, "ruleIndex": 0,
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": "b.c", "uriBaseId": "PWD"},
                                             "region": {"startLine": 2}}}]},
        "not a result", {"locations": None, "relatedLocations": [None, 3], "fixes": [{"artifactChanges": [7]}]},
    ]}]}
    doc["runs"][0]["tool"]["driver"]["rules"] = [{"messageStrings": {"m": {"text": "value {0} is bad"}}}]
    result = parse_text(json.dumps(doc))
    assert [(r.tool, r.severity, r.file_path, r.line, r.col, r.error_code, r.message) for r in result.build_errors] == [
        ("gcc", "error", "file://[x/a.c", 0, 0, "", "one"),
        ("gcc", "warning", "b.c", 2, 0, "", "value 7 is bad"),
        ("gcc", "warning", "", 0, 0, "", ""),
    ]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["uri", "index", "uriBaseId", "region", "startLine", "startColumn", "endLine", "message",
                         "text", "id", "locations", "physicalLocation", "artifactLocation", "relatedLocations",
                         "fixes", "artifactChanges", "replacements", "deletedRegion", "insertedContent", "level",
                         "ruleId", "ruleIndex", "logicalLocations", "kind", "name", "roles"]), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_JSON, max_size=5), _JSON, _JSON)
def test_any_json_in_a_sarif_shape_never_raises(results: list, tool: object, bases: object) -> None:
    doc = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
           "runs": [{"tool": tool, "originalUriBaseIds": bases, "artifacts": results, "results": results}]}
    text = json.dumps(doc)
    # the reader itself, not only the dispatcher (which would drop a parser that raised)
    for cut in (len(text), len(text) // 3, len(text) // 2, len(text) - 2):
        list(records(load(text[:cut])[0], ParseContext(cwd="/w")))
    parse_text("make\n" + text + "\nmore\n")
