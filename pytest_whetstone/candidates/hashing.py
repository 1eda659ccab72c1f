"""Pre-image hashes: a candidate remembers the content of the files it was made from.

The edit engine refuses to apply a candidate to a file whose sha256 no longer
matches ``candidate.mutation["file_hashes"]`` (a ``{relative path: sha256}`` map).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..records import FixCandidate


def record_hashes(candidate: FixCandidate, workspace: Path, known: dict[str, str] | None = None) -> FixCandidate:
    """Remember the sha256 of every file the candidate edits, as it is now.  ``known`` (edit path ->
    sha256) spares re-reading a file for the next candidates of the same generation."""
    if not candidate.edits:
        return candidate
    root = Path(workspace).resolve()
    hashes: dict[str, str] = {}
    known = {} if known is None else known
    for edit in candidate.edits:
        raw = Path(edit.file_path)
        try:
            path = (raw if raw.is_absolute() else root / raw).resolve()
            rel = path.relative_to(root).as_posix()
            key = str(path)
            if key not in known and path.is_file():
                known[key] = hashlib.sha256(path.read_bytes()).hexdigest()
            if key in known:
                hashes[rel] = known[key]
        except (OSError, ValueError):
            continue  # the engine reports the problem clearly when someone applies it
    if hashes:
        candidate.mutation["file_hashes"] = hashes
    return candidate
