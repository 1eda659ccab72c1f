"""Exceptions a failing test raised where its traceback cannot show them: in a thread, or as an
"unraisable" one (``__del__``, a callback, a generator's ``close``).

pytest reports them as warnings (``PytestUnhandledThreadExceptionWarning``,
``PytestUnraisableExceptionWarning``) whose text carries the exception's own traceback.  A server
thread that raised ``NameError`` makes its client's test time out; the timeout's frames name the
test, the thread's frames name the fault.  Their frames join the failure's evidence as the deepest.
"""

from __future__ import annotations

import re
from typing import Any

CATEGORIES = frozenset({"PytestUnhandledThreadExceptionWarning", "PytestUnraisableExceptionWarning"})
_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+)', re.MULTILINE)
MAX_TEXTS = 20  # per run: a test that leaks thousands of them must not grow memory


def is_side_exception(warning_message: Any) -> bool:
    return type(getattr(warning_message, "message", None)).__name__ in CATEGORIES or getattr(
        getattr(warning_message, "category", None), "__name__", "") in CATEGORIES


def frames_of(text: str) -> list[tuple[str, int]]:
    """(file, line) of the traceback lines in a warning's text, outermost first."""
    return [(m.group(1), int(m.group(2))) for m in _FRAME.finditer(text)]
