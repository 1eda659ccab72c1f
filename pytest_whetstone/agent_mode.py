"""Whether an agent drives this process (then ``whetstone run`` prints condensed lines, not a summary).

Its own module: ``whetstone run`` asks before its command starts, and the report writer it belongs
beside loads the record classes, which the run builds while the command runs.
"""

from __future__ import annotations

import os

_AGENT_VARS = ("AGENT", "AI_AGENT")
_FALSE = ("", "0", "false", "no", "off")


def is_agent_environment() -> bool:
    """An agent drives when ``AGENT``/``AI_AGENT`` say so (the convention Vitest, Bun and others follow)."""
    return any(os.environ.get(name, "").strip().lower() not in _FALSE for name in _AGENT_VARS)
