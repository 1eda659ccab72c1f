"""Pre-image hashes: a candidate remembers the content of the files it was made from.

The edit engine refuses to apply a candidate to a file whose sha256 no longer
matches ``candidate.mutation["file_hashes"]`` (a ``{relative path: sha256}`` map).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..records import FixCandidate


def record_hashes(candidate: FixCandidate, workspace: Path) -> FixCandidate:
    """Remember the sha256 of every file the candidate edits, as it is now."""
    root = Path(workspace).resolve()
    hashes: dict[str, str] = {}
    for edit in candidate.edits:
        raw = Path(edit.file_path)
        try:
            path = (raw if raw.is_absolute() else root / raw).resolve()
            rel = path.relative_to(root).as_posix()
            if path.is_file():
                hashes[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        except (OSError, ValueError):
            continue  # the engine reports the problem clearly when someone applies it
    if hashes:
        candidate.mutation["file_hashes"] = hashes
    return candidate
