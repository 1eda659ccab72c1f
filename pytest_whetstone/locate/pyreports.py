"""Running a collected pytest item again for our own analysis: the re-run of a failing test, the
forks of the value-fault spectra (:mod:`.pyspectra`) and of the mutant pass (:mod:`.pymutants`).

Nobody sees those runs' reports (``runtestprotocol(log=False)``), yet pytest formats each failure in
full: for every traceback entry it parses the entry's whole source file to find the statement's range.
In a module of a few thousand lines that costs 0.1-0.5 s per failing run, far more than a small test
itself.  Inside :func:`brief_failures` a failure's report carries only the line every caller reads:
the exception as pytest's crash line gives it (``ExceptionInfo.exconly(tryshort=True)``, the same text
as ``longrepr.reprcrash.message`` of the full report), so outcomes and crash messages stay as they were.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

_PATCHED = ("repr_failure", "_repr_failure_py")  # the test's call, its setup and teardown


def crash_message(reports: list[Any]) -> str:
    """The first line of the first failing report's crash message ("" when none failed)."""
    for report in reports:
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            text = getattr(crash, "message", None) or str(report.longrepr or "")
            return text.splitlines()[0][:300] if text else ""
    return ""


@contextlib.contextmanager
def brief_failures(item: Any) -> Iterator[None]:
    """Within the block, ``item``'s failures are reported as their crash line alone.

    Only for plain test functions (``pytest.Function``, unittest's included); doctests and other
    plugins' items keep their own reports, whose crash line is not the exception's."""
    import pytest

    if not isinstance(item, pytest.Function) or any(name in vars(item) for name in _PATCHED):
        yield
        return

    def brief(excinfo: Any, style: Any = None) -> str:
        return str(excinfo.exconly(tryshort=True))

    for name in _PATCHED:
        setattr(item, name, brief)
    try:
        yield
    finally:
        for name in _PATCHED:
            vars(item).pop(name, None)
