"""The format every file Whetstone writes shares: its schema version and its one-line JSON.

A leaf module (json only), so the few steps that run before a command starts can write a session
line without loading the record types; :mod:`.records` re-exports both.
"""

from __future__ import annotations

import json
from typing import Any

SCHEMA_VERSION = "whetstone/1"


def dumps(data: Any) -> str:
    """Deterministic one-line JSON used for every file Whetstone writes."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
