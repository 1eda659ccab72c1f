"""How every file Whetstone writes is spelled: the schema version, one-line JSON, content ids.

Kept apart from ``records`` (which re-exports all three) so that what ``whetstone run`` does before its
command starts - open the session, append ``run_started`` - does not first build every record class.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

SCHEMA_VERSION = "whetstone/1"


def stable_id(*parts: object, length: int = 12) -> str:
    """A short content hash: the same inputs always name the same record."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8", "replace"))
    return digest.hexdigest()[:length]


def dumps(data: Any) -> str:
    """Deterministic one-line JSON used for every file Whetstone writes."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
