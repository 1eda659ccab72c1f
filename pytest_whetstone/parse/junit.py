"""JUnit XML, as ctest ``--output-junit``, gtest ``--gtest_output=xml``, jest-junit
and pytest ``--junitxml`` write it.

``<testcase classname name [file line time]>`` holding ``<failure message type>``,
``<error>`` or ``<skipped>``.  The producer is recognised and its own reading
of the failure text reused, so records carry what the console parsers would
give them: gtest (``<testsuites name="AllTests">``, runner ``gtest``), pytest
(``<testsuites name="pytest tests">``, runner ``pytest``), jest-junit
(``<testsuites name="jest tests">``, runner ``jest``), ctest (``status`` on every
testcase; embedded gtest output in ``<system-out>`` gives gtest records, like
the console parser), anything else runner ``junit``.

Safety: a document with a DTD or an entity declaration is refused (no producer
writes one; refusing them rules out entity-expansion attacks whatever the
expat version).  Parsing is incremental (``XMLPullParser``): a truncated file
yields every testcase that was complete before the cut, never an exception.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

from ..lazy_pattern import lazy_pattern
from ..records import TestFailureRecord
from .base import DocumentParser, ParseContext, ParseResult, strip_ansi
from .ctest import CtestParser, _Test
from .gtest import build_record as gtest_record
from .jest import analyse as jest_analyse
from .pytest_text import PytestTextParser, _Section
from .tap import producer_location

_DTD = lazy_pattern(r"<!(?:DOCTYPE|ENTITY)", re.I)
# an exception's class ("ValueError", "java.lang.NullPointerException"); a <failure type> that is none is
# the check's kind ("failure", Catch2's "REQUIRE"), not an exception
_EXCEPTION_CLASS = lazy_pattern(r"(?:Error|Exception|Throwable|\.[A-Z]\w*)$")
CHUNK = 64 * 1024


class UnsafeXML(ValueError):
    pass


def iter_testcases(text: str) -> Iterator[tuple[str, dict[str, str], ET.Element]]:
    """(kind, root attributes, element) for each complete testcase, then stop at the first error."""
    if _DTD.search(text):
        raise UnsafeXML("JUnit XML with a DTD or entity declaration refused")
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
    root_attrs: dict[str, str] = {}
    root_tag = ""
    for start in range(0, len(text), CHUNK):
        try:
            parser.feed(text[start : start + CHUNK])
            events: list[Any] = list(parser.read_events())
        except ET.ParseError:
            return  # truncated or broken: what was complete has been yielded
        for pair in events:
            event, item = pair[0], pair[-1]
            if not isinstance(item, ET.Element):
                continue
            elem = item
            if event == "start" and not root_tag:
                root_tag, root_attrs = elem.tag, dict(elem.attrib)
                root_attrs["__tag__"] = root_tag
            elif event == "end" and elem.tag == "testcase":
                yield "testcase", root_attrs, elem
                elem.clear()


def _producer(root: dict[str, str], case: ET.Element) -> str:
    name = root.get("name", "")
    if name == "AllTests":
        return "gtest"
    if name == "pytest tests" or root.get("__tag__") == "testsuite" and name == "pytest":
        return "pytest"
    if name == "jest tests":
        return "jest"
    if case.get("status") in ("run", "fail", "notrun", "disabled") and root.get("__tag__") == "testsuite":
        return "ctest"
    return "junit"


class JunitParser(DocumentParser):
    name = "junit"

    @staticmethod
    def sniff(head: str) -> bool:
        return head.startswith(("<?xml", "<testsuites", "<testsuite")) and "<testsu" in head

    def parse(self, text: str, result: ParseResult, ctx: ParseContext) -> None:
        for _, root, case in iter_testcases(text):
            producer = _producer(root, case)
            problem = next((c for c in case if c.tag in ("failure", "error")), None)
            skipped = case.find("skipped")
            status = case.get("status", "")
            if producer == "ctest" and (status == "disabled" or status == "notrun" and not _missing_exe(case)):
                result.skip_count += 1  # ctest: "Not Run (Disabled)" is not a pass
                continue
            if producer == "gtest" and case.get("result") == "suppressed":
                continue  # a DISABLED_ test: gtest counts it apart (disabled="1"), neither run nor skipped
            if problem is None and (skipped is not None or status == "notrun") and producer != "ctest":
                result.skip_count += 1
                continue
            if problem is None and status != "notrun":
                result.pass_count += 1
                continue
            for record in self._records(producer, case, problem):
                result.test_failures.append(record)
                if problem is not None and problem.tag == "error":
                    result.test_error_count += 1  # the document's errors="N" (pytest: setup, teardown, collection)
                else:
                    result.fail_count += 1
            result.saw(producer if producer != "junit" else "junit")

    def _records(self, producer: str, case: ET.Element, problem: ET.Element | None) -> list[TestFailureRecord]:
        message = strip_ansi(problem.get("message", "")) if problem is not None else ""
        body_text = strip_ansi((problem.text or "") if problem is not None else "")
        name, classname = case.get("name", ""), case.get("classname", "")
        if producer == "gtest":
            lines = body_text.split("\n") if body_text else message.split("\n")
            if lines and re.match(r"^.+:\d+$", lines[0]):
                lines[0] += ": Failure"
            record = gtest_record(f"{classname}.{name}", lines)
            if not record.file_path and case.get("file"):
                record.file_path, record.line = case.get("file", ""), int(case.get("line") or 0)
            return [record]
        if producer == "pytest":
            return [self._pytest(case, problem, message, body_text)]
        if producer == "jest":
            lines = body_text.split("\n")
            record = jest_analyse(classname if classname != name else "", name.strip(), lines)
            record.test_suite = ""
            record.node_id = name.strip()
            return [record]
        if producer == "ctest":
            out = strip_ansi(case.findtext("system-out") or "")
            status = case.get("status", "")
            said = (message or "").strip().split("\n", 1)[0]  # "Required regular expression not found. ..."
            test = _Test(0, name, status="***Not Run" if status == "notrun" else f"***Failed  {said}".rstrip(),
                         output=out.split("\n"))
            sub = ParseResult()
            parser = CtestParser(sub, ParseContext())
            parser._record(test)
            return sub.test_failures
        record = TestFailureRecord(
            runner="junit",
            test_suite=classname,
            test_name=name,
            node_id=f"{classname}::{name}" if classname else name,
            message=(message or body_text)[:2000],
            exception_type=problem.get("type", "") if problem is not None else "",
            file_path=case.get("file", ""),
            line=int(case.get("line") or 0) if (case.get("line") or "").isdigit() else 0,
            outcome="error" if problem is not None and problem.tag == "error" else "failed",
            raw=body_text[:4000],
        )
        where = None if record.file_path else producer_location(body_text or message or "")
        if where:
            record.file_path, record.line, _test_file = where
        if problem is not None and problem.tag == "failure" and not _EXCEPTION_CLASS.search(record.exception_type):
            record.exception_type = ""
        return [record]

    @staticmethod
    def _pytest(case: ET.Element, problem: ET.Element | None, message: str, body: str) -> TestFailureRecord:
        classname, name = case.get("classname", ""), case.get("name", "")
        section = _Section(name, "ERRORS" if problem is not None and problem.tag == "error" else "FAILURES")
        section.body = body.split("\n")
        helper = PytestTextParser(ParseResult(), ParseContext())
        status = "ERROR" if section.kind == "ERRORS" else "FAILED"
        module_path = classname.replace(".", "/")
        record = helper._record(f"{classname}::{name}", status, message if not body else "", section)
        record.test_suite = classname
        if not record.file_path and case.get("file"):
            record.file_path = case.get("file", "")
        record.node_id = f"{module_path}::{name}"
        if not record.message:
            record.message = message
        return record


def _missing_exe(case: ET.Element) -> bool:
    text = (case.findtext("system-out") or "") + " ".join(s.get("message", "") for s in case.iter("skipped"))
    return "Unable to find executable" in text or "Could not find executable" in text


DOC_PARSERS = [JunitParser]
