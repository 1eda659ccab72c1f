"""The verdict block: closed taxonomy, always last, nested runs silent."""

from __future__ import annotations

import io
import json

import pytest

from pytest_whetstone import verdict
from pytest_whetstone.records import VERDICT_FAILURES


@pytest.mark.parametrize("failure", [None, *VERDICT_FAILURES])
def test_status_and_retry_for_each_class(failure: str | None) -> None:
    v = verdict.make_verdict("make", failure)
    assert v.status == ("pass" if failure is None else "warn" if failure == "nondeterminism" else "fail")
    assert (v.retry is None) == (failure is None)


def test_render_is_three_lines_one_json() -> None:
    v = verdict.make_verdict("pytest", "test-failure", phase="tests", first_error="a.py:3", counts={"failed": 1})
    text = verdict.render(v)
    lines = text.splitlines()
    assert lines[0] == verdict.BEGIN and lines[2] == verdict.END
    body = json.loads(lines[1])
    assert body["schema_version"] == "whetstone/1"
    assert body["failure"] == "test-failure" and body["retry"] == "fix-source"


def test_parse_last_reads_the_last_block() -> None:
    first = verdict.render(verdict.make_verdict("a", "oom"))
    last = verdict.render(verdict.make_verdict("b", None))
    parsed = verdict.parse_last("noise\n" + first + "more\n" + last)
    assert parsed is not None and parsed.target == "b" and parsed.status == "pass"
    assert verdict.parse_last("nothing here") is None


def test_nested_runs_print_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setenv(verdict.ENV_NESTED, "1")
    assert verdict.emit(verdict.make_verdict("x", None), out) is False
    assert out.getvalue() == ""
    monkeypatch.delenv(verdict.ENV_NESTED)
    assert verdict.emit(verdict.make_verdict("x", None), out)
    assert out.getvalue().endswith(verdict.END + "\n")
