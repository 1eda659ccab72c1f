"""The HTML report: self-contained, escaped, and it really renders (headless Chromium)."""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from report_support import HAVE_GCC, make_workspace

from pytest_whetstone.records import TestFailureRecord
from pytest_whetstone.report import build_model, run_report
from pytest_whetstone.report.html import gap_chart
from pytest_whetstone.report.html import render as render_html
from pytest_whetstone.store.fold import SessionState

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
XSS = "<script>alert('x')</script><img src=x onerror=alert(1)>\"'&"

pytestmark = pytest.mark.skipif(not HAVE_GCC, reason="gcc is needed to produce real diagnostics")


@pytest.fixture
def ws(tmp_path, monkeypatch):
    monkeypatch.delenv("WHETSTONE_DIR", raising=False)
    monkeypatch.delenv("WHETSTONE_SESSION", raising=False)
    session, workspace = make_workspace(tmp_path / "ws", hostile=XSS)
    monkeypatch.chdir(workspace)
    return session, workspace


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)


def html_of(session) -> str:
    text, code = run_report([session.store], None, "html")
    assert code == 0, text
    return text


def test_every_untrusted_string_is_escaped(ws):
    session, _ = ws
    page = html_of(session)
    parser = _Tags()
    parser.feed(page)
    assert "script" not in parser.tags and "img" not in parser.tags
    assert not any(name.startswith("on") for name, _ in parser.attrs)
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    # everything that loads something: nothing external, no scripts at all
    assert not re.search(r"<script|<link|@import|url\(", page, re.I)
    assert not any(name == "src" for name, _ in parser.attrs)
    assert all(value.startswith("#") for name, value in parser.attrs if name == "href" and value)


def test_page_content(ws):
    session, workspace = ws
    page = html_of(session)
    assert page.startswith("<!DOCTYPE html>")
    assert "FAIL · compile-error" in page
    assert "test_stats.py" in page and "Suspects" in page and "<code>mean</code>" in page
    # source context read from the workspace file: the faulty line of stats.py
    assert "return total / (len(values) + 1)" in page
    # each candidate's diff and confidence
    assert 'class="add">+#include &lt;stdio.h&gt;</span>' in page
    assert "confidence 0.90" in page and "validated" in page
    # the loop: audit trail and the gap trend chart
    assert "Audit trail" in page and "<svg" in page and "<polyline" in page
    assert "===WHETSTONE-RESULT===" in page


def test_no_loop_section_without_a_loop():
    state = SessionState(session_id="s", test_failures=[TestFailureRecord(failure_id="t", message="m")])
    page = render_html(build_model(state))
    assert "<svg" not in page and "Audit trail" not in page
    assert "<h2>Test failures (1)</h2>" in page


def test_gap_chart_scales_points():
    svg = gap_chart([10, 5, 0])
    points = re.search(r'points="([^"]+)"', svg).group(1).split()
    ys = [float(p.split(",")[1]) for p in points]
    assert ys[0] < ys[1] < ys[2]  # higher gap is drawn higher up


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_renders_in_headless_chromium(ws, tmp_path):
    session, _ = ws
    page = tmp_path / "report.html"
    text, code = run_report([session.store], None, "html", str(page))
    assert code == 0, text
    shot = tmp_path / "shot.png"
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1200,1600",
         page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert shot.is_file(), proc.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a real page, not a blank one
