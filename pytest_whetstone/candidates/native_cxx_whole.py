"""A C/C++ test binary run whole, on past the tests that kill it.

A GoogleTest binary that dies in a test (an ``assert``, a crash, an uncaught signal) writes no XML
report, and every test after that one never runs.  Judged by its exit status alone, a mutant that makes
the failing test pass and kills a later one looks like the unchanged binary, which died too: a fix
"validated" that breaks the suite.  So the output says which tests ended and how, the test it died in
counts as failed, and the binary is run again past those (``--gtest_filter=-...``) until it ends on its
own or the resumptions run out (:mod:`.native_trial_cxx`'s wider check and its run of the user's own
binary both read each test this way).
"""

from __future__ import annotations

from typing import Protocol

from ..parse.gtest import test_progress
from .native_cxx_binaries import Binary

RESUMES = 4  # a binary that keeps dying is run again past its dead tests this many times at most


class Execute(Protocol):
    def __call__(self, binary: Binary, path: str, tests: list[str] | None, extra_env: dict[str, str] | None = ...,
                 timeout_s: float | None = ...) -> tuple[int | None, str, dict[str, str | None]]: ...


def run_whole(execute: Execute, binary: Binary, path: str, extra_env: dict[str, str] | None = None,
              timeout_s: float | None = None, resumes: int = RESUMES, known: set[str] | None = None
              ) -> tuple[int | None, dict[str, str | None]]:
    """(exit code of the first run, None when a run timed out; each test's verdict, None when it passed).
    ``resumes``: how many runs past a dead test at most (0: the first run's output alone, which still
    names the test it died in: the screen's check of a screened fix, where a mutant that kills tests is
    common and each run again would cost a time limit).  ``known``: the tests failing before the change;
    a death in any other test already says the change broke one, and nothing past it is run (None: the
    user's own binary, read whole)."""
    code, output, results = execute(binary, path, None, extra_env, timeout_s)
    if not binary.gtest or code in (0, None) or results:
        return code, results
    verdicts: dict[str, str | None] = {}
    for resumed in range(resumes + 1):
        ended, died_in = test_progress(output)
        verdicts.update((name, None if passed else "failed") for name, passed in ended.items())
        if not died_in:  # it died outside any test (a global set-up): there is nothing to run past
            break
        verdicts[died_in] = f"crashed (exit {code})"
        if resumed == resumes or (known is not None and died_in not in known):
            break
        # gtest's negative filter: every test but those that already ended or died
        again, output, results = execute(binary, path, ["-" + ":".join(verdicts)], extra_env, timeout_s)
        if again is None:
            return None, verdicts
        if again == 0 or results:
            return code, {**verdicts, **results}
    return code, verdicts
