"""A failing test whose fault raised in a thread: the thread's frames locate it (pytest reports the
exception as PytestUnhandledThreadExceptionWarning; the test itself only sees a missing answer)."""

from __future__ import annotations

import pytest

from pytest_whetstone.store.sessions import load_session

SERVER = '''
import threading


def handle(request, replies):
    replies.append(request.upper() + sufix)  # NameError: `suffix` misspelled


def helper_format(text):
    return text.strip()


def serve(request):
    replies = []
    worker = threading.Thread(target=handle, args=(helper_format(request), replies))
    worker.start()
    worker.join(5)
    return replies
'''
TEST = '''
from server import serve

def test_serve_replies():
    assert serve(" ping ") == ["PING!"]
'''


def test_a_thread_exception_locates_the_failure(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WHETSTONE_MUTANT_PASS_S", "0")  # the thread's frames alone, not mutants
    pytester.makepyfile(server=SERVER, test_server=TEST)
    pytester.makeini("[pytest]\npythonpath = .\n")
    result = pytester.runpytest_subprocess("-p", "whetstone", "--whetstone-search=0")
    result.assert_outcomes(failed=1)
    assert any("PytestUnhandledThreadExceptionWarning" in line for line in result.outlines)
    state = load_session(pytester.path / ".whetstone").state()
    suspects = state.test_failures[0].suspects
    assert suspects[0].qualname == "handle", suspects
