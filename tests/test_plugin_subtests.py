"""Failing unittest subtests stay failures: not flaky, and counted once."""

from __future__ import annotations

import pytest

from pytest_whetstone.store.sessions import load_session

SUITE = '''
import unittest

class TestParity(unittest.TestCase):
    def test_even(self):
        for n in (2, 3, 5):
            with self.subTest(n=n):
                self.assertEqual(n % 2, 0)
'''


def test_failing_subtests_are_not_flaky_and_not_counted_twice(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_parity=SUITE)
    plain = pytester.runpytest_subprocess("-p", "no:whetstone")
    ours = pytester.runpytest_subprocess("-p", "whetstone")
    assert ours.ret == plain.ret
    assert ours.parseoutcomes() == plain.parseoutcomes()
    state = load_session(pytester.path / ".whetstone").state()
    assert state.test_failures and not any(f.flaky for f in state.test_failures)
