"""Who reads a run's output: a person at a terminal, or an agent that wants it terse.

A leaf module: ``whetstone run`` asks before its command starts (an agent gets no live echo).
"""

from __future__ import annotations

import os

_AGENT_VARS = ("AGENT", "AI_AGENT")
_FALSE = ("", "0", "false", "no", "off")


def is_agent_environment() -> bool:
    """An agent drives when ``AGENT``/``AI_AGENT`` say so (the convention Vitest, Bun and others follow)."""
    return any(os.environ.get(name, "").strip().lower() not in _FALSE for name in _AGENT_VARS)
