"""The one edit engine: plan, diff, apply (atomically, journaled) and undo text edits.

Every fix candidate, whatever produced it (compiler fix-its, tree-sitter,
libcst, search), is a list of :class:`~.records.TextEdit` and goes through
here.  Positions are 1-based lines and 1-based columns counted in characters
(code points) of the decoded line, end exclusive; a position may sit at the
end of a line (col = len + 1) or at ``(last line + 1, 1)`` (end of file).

Safety rules (docs/fixes.md): edits are applied only inside
the workspace (after resolving symlinks), only to UTF-8 text files, only when
the file still has the content the candidate was made from (sha256 in
``candidate.mutation["file_hashes"]``, see candidates/hashing.py), and
overlapping edits are an error, never a silent merge.  Each application is
journaled in the session (pre-image content and hash) so ``undo`` restores
byte for byte.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import os
import secrets
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .records import FixCandidate, Position, TextEdit, rank_candidates, stable_id
from .store import events
from .store.sessions import Session, load_session, now_iso

__all__ = [
    "EditError",
    "FilePlan",
    "JournalEntry",
    "plan",
    "diff",
    "apply",
    "apply_edits_text",
    "undo",
    "sha256_bytes",
    "apply_candidate_by_id",
    "undo_last",
    "candidate_diff",
]


class EditError(ValueError):
    """An edit that cannot be applied safely; the message is one clear line."""


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class FilePlan:
    """What applying a candidate does to one file."""

    rel: str  # workspace-relative POSIX path (the journal key)
    path: Path  # absolute, symlinks resolved: the file actually written
    before: bytes | None  # None when the file is created
    after: bytes
    edits: list[TextEdit] = field(default_factory=list)

    @property
    def before_hash(self) -> str | None:
        return None if self.before is None else sha256_bytes(self.before)

    @property
    def after_hash(self) -> str:
        return sha256_bytes(self.after)


@dataclass
class JournalEntry:
    journal_id: str
    candidate_id: str
    fingerprint: str
    files: list[str]
    pre_images: dict[str, dict[str, Any]]
    post_hashes: dict[str, str]
    applied_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "journal_id": self.journal_id,
            "candidate_id": self.candidate_id,
            "fingerprint": self.fingerprint,
            "files": list(self.files),
            "pre_images": self.pre_images,
            "post_hashes": dict(self.post_hashes),
            "applied_at": self.applied_at,
        }


# --------------------------------------------------------------------------- paths


def resolve_in_workspace(file_path: str, workspace: Path) -> tuple[Path, str]:
    """(absolute resolved path, workspace-relative POSIX path) or EditError."""
    if not file_path or "\x00" in file_path:
        raise EditError(f"invalid file path {file_path!r}")
    root = Path(workspace).resolve()
    raw = Path(file_path)
    target = (raw if raw.is_absolute() else root / raw).resolve()
    try:
        rel = target.relative_to(root)
    except ValueError:
        raise EditError(f"refusing {file_path!r}: it lies outside the workspace {root}") from None
    if not rel.parts:
        raise EditError(f"refusing {file_path!r}: it names the workspace itself")
    return target, rel.as_posix()


def rel_path(file_path: str, workspace: Path) -> str:
    """Workspace-relative key for a path (no safety checks beyond resolution)."""
    return resolve_in_workspace(file_path, workspace)[1]


# --------------------------------------------------------------------------- text


# Text that is not UTF-8 (Latin-1 comments in old C sources) is read byte for byte: each stray byte is
# one character (a lone surrogate) and is written back unchanged.
TEXT_ERRORS = "surrogateescape"


def _decode(data: bytes, name: str) -> str:
    if b"\x00" in data:
        raise EditError(f"refusing {name}: binary file (contains NUL bytes)")
    return data.decode("utf-8", TEXT_ERRORS)


def _pre_image(before: bytes | None) -> dict[str, str | None]:
    """The journal's copy of a file: its text, or base64 when it is not UTF-8 (JSON holds no raw bytes)."""
    if before is None:
        return {"content": None}
    try:
        return {"content": before.decode("utf-8")}
    except UnicodeDecodeError:
        return {"content": None, "content_b64": base64.b64encode(before).decode("ascii")}


def _line_starts(text: str) -> list[int]:
    """Offsets where each line begins; only '\\n' ends a line (as compilers count)."""
    starts = [0]
    pos = text.find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def _newline_of(text: str) -> str:
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def _offset(text: str, starts: list[int], line: int, col: int, name: str) -> int:
    n_lines = len(starts)
    if line == n_lines + 1 and col == 1 and text.endswith("\n"):
        return len(text)  # just past a final newline: the end of the file
    if line < 1 or line > n_lines:
        raise EditError(f"{name}: line {line} is out of range (1..{n_lines})")
    begin = starts[line - 1]
    end = starts[line] if line < n_lines else len(text)
    content = text[begin:end].rstrip("\n").rstrip("\r")
    if col < 1 or col > len(content) + 1:
        raise EditError(f"{name}:{line}: column {col} is out of range (1..{len(content) + 1})")
    return begin + col - 1


def _adapt_newlines(new_text: str, newline: str) -> str:
    if newline == "\r\n" and "\n" in new_text and "\r\n" not in new_text:
        return new_text.replace("\n", "\r\n")
    return new_text


# the last text's line starts and newline: a mutant search applies hundreds of edits to the same original,
# and reading a large file's lines again for each cost as much as a screened run's own bookkeeping
_last_text: tuple[str, list[int], str] = ("", [0], "\n")


def apply_edits_text(text: str, edits: list[TextEdit], name: str = "<text>") -> str:
    """Apply edits (same file) to text; EditError on overlap or bad positions."""
    global _last_text
    last = _last_text
    if last[0] is text:
        starts, newline = last[1], last[2]
    else:
        starts, newline = _line_starts(text), _newline_of(text)
        _last_text = (text, starts, newline)
    spans: list[tuple[int, int, str]] = []
    for edit in edits:
        a = _offset(text, starts, edit.start.line, edit.start.col, name)
        b = _offset(text, starts, edit.end.line, edit.end.col, name)
        if b < a:
            raise EditError(
                f"{name}: edit ends ({edit.end.line}:{edit.end.col}) before it starts "
                f"({edit.start.line}:{edit.start.col})"
            )
        spans.append((a, b, _adapt_newlines(edit.new_text, newline)))
    spans.sort(key=lambda s: (s[0], s[1]))
    for (a1, b1, _), (a2, b2, _) in zip(spans, spans[1:], strict=False):
        if b1 > a2 or (a1 == b1 == a2 == b2):
            raise EditError(f"{name}: overlapping edits at offsets {a1}-{b1} and {a2}-{b2}")
    out: list[str] = []
    cursor = 0
    for a, b, new in spans:
        out.append(text[cursor:a])
        out.append(new)
        cursor = b
    out.append(text[cursor:])
    return "".join(out)


# --------------------------------------------------------------------------- plan / diff


def plan(edits: list[TextEdit], workspace: Path) -> list[FilePlan]:
    """Validate edits and compute each file's new content (nothing is written)."""
    by_file: dict[str, tuple[Path, list[TextEdit]]] = {}
    for edit in edits:
        path, rel = resolve_in_workspace(edit.file_path, workspace)
        by_file.setdefault(rel, (path, []))[1].append(edit)
    plans: list[FilePlan] = []
    for rel in sorted(by_file):
        path, file_edits = by_file[rel]
        if path.is_dir():
            raise EditError(f"refusing {rel}: it is a directory")
        if not path.exists():
            plans.append(_creation_plan(rel, path, file_edits))
            continue
        try:
            before = path.read_bytes()
        except OSError as exc:
            raise EditError(f"cannot read {rel}: {exc.strerror or exc}") from None
        text = _decode(before, rel)
        if any("\ufffd" in e.new_text for e in file_edits) and b"\xef\xbf\xbd" not in before:
            # a replacement character stands for bytes that were not UTF-8: writing it would change them
            raise EditError(f"refusing {rel}: the edit carries text that stood for bytes that are not UTF-8")
        after = apply_edits_text(text, file_edits, rel).encode("utf-8", TEXT_ERRORS)
        plans.append(FilePlan(rel=rel, path=path, before=before, after=after, edits=file_edits))
    return plans


def _creation_plan(rel: str, path: Path, edits: list[TextEdit]) -> FilePlan:
    # A new file is one insertion at 1:1; anything else points into a file that is not there.
    if len(edits) != 1 or any(
        (p.line, p.col) != (1, 1) for e in edits for p in (e.start, e.end)
    ):
        raise EditError(f"refusing {rel}: file does not exist")
    if not path.parent.is_dir():
        raise EditError(f"refusing {rel}: directory {path.parent} does not exist")
    return FilePlan(rel=rel, path=path, before=None, after=edits[0].new_text.encode("utf-8"), edits=edits)


def _diff_lines(data: bytes | None) -> list[str]:
    if not data:
        return []
    # Split on \n only, as the engine counts lines (splitlines also splits on \x0c etc.).
    lines = [seg + "\n" for seg in data.decode("utf-8", "replace").split("\n")]
    lines[-1] = lines[-1][:-1]
    if lines[-1] == "":
        lines.pop()
    return lines


def diff(plans: list[FilePlan]) -> str:
    """A git-style unified diff of the plans (``\\ No newline at end of file`` kept)."""
    chunks: list[str] = []
    for p in plans:
        old = _diff_lines(p.before)
        new = _diff_lines(p.after)
        fromfile = "/dev/null" if p.before is None else f"a/{p.rel}"
        for line in difflib.unified_diff(old, new, fromfile, f"b/{p.rel}", lineterm="\n"):
            if line.endswith("\n"):
                chunks.append(line)
            else:
                chunks.append(line + "\n\\ No newline at end of file\n")
    return "".join(chunks)


def candidate_diff(candidate: FixCandidate, workspace: Path) -> str:
    """The diff a candidate would make now ('' for manual ones); EditError if it cannot apply."""
    if not candidate.edits:
        return ""
    return diff(plan(candidate.edits, workspace))


# --------------------------------------------------------------------------- writing


def _atomic_write(path: Path, data: bytes, mode: int | None) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".whetstone-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def _mode_of(path: Path) -> int | None:
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return None


def _restore(path: Path, before: bytes | None, mode: int | None) -> None:
    if before is None:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
    else:
        _atomic_write(path, before, mode)


def _write_all(plans: list[FilePlan]) -> None:
    """All files or none: on a failure the files already written are put back."""
    done: list[tuple[FilePlan, int | None]] = []
    try:
        for p in plans:
            current = p.path.read_bytes() if p.path.exists() else None
            if current != p.before:
                raise EditError(f"refusing {p.rel}: it changed while the edit was being applied")
            mode = _mode_of(p.path)
            _atomic_write(p.path, p.after, mode)
            done.append((p, mode))
    except BaseException as exc:
        for p, mode in reversed(done):
            _restore(p.path, p.before, mode)
        if isinstance(exc, OSError):
            raise EditError(f"cannot write {exc.filename or ''}: {exc.strerror or exc}") from None
        raise


def apply(
    candidate: FixCandidate,
    workspace: Path,
    session: Session | None,
    expected_hashes: dict[str, str] | None = None,
) -> JournalEntry:
    """Apply a candidate's edits atomically and journal the pre-images in the session."""
    if not candidate.edits:
        raise EditError(f"candidate {candidate.candidate_id or '?'} is manual: {candidate.description}")
    plans = plan(candidate.edits, workspace)
    expected = expected_hashes
    if expected is None:
        expected = candidate.mutation.get("file_hashes") if isinstance(candidate.mutation, dict) else None
    for p in plans:
        want = (expected or {}).get(p.rel)
        if want and want != p.before_hash:
            raise EditError(
                f"refusing {p.rel}: it changed since the failure was observed (sha256 mismatch)"
            )
    _write_all(plans)
    entry = JournalEntry(
        journal_id="J" + stable_id(candidate.candidate_id, now_iso(), secrets.token_hex(4)),
        candidate_id=candidate.candidate_id,
        fingerprint=candidate.edits_fingerprint(),
        files=[p.rel for p in plans],
        pre_images={
            p.rel: {
                "sha256": p.before_hash,
                **_pre_image(p.before),
                "mode": _mode_of(p.path),
            }
            for p in plans
        },
        post_hashes={p.rel: p.after_hash for p in plans},
        applied_at=now_iso(),
    )
    if session is not None:
        try:
            session.append(events.APPLIED, entry.to_dict())
        except BaseException:
            # An application nobody can undo is worse than none: put the files back.
            for p in reversed(plans):
                _restore(p.path, p.before, _mode_of(p.path))
            raise
    return entry


def undo(session: Session, journal_id: str | None = None, *, force: bool = False) -> JournalEntry:
    """Restore, byte for byte, the last (or the named) application not yet reverted."""
    applied = session.state().applied
    if not applied:
        raise EditError("nothing to undo: no applied candidate in this session")
    if journal_id is None:
        data = applied[-1]
    else:
        matches = [a for a in applied if a.get("journal_id") == journal_id]
        if not matches:
            raise EditError(f"nothing to undo: journal {journal_id!r} is not applied in this session")
        data = matches[-1]
    workspace = session.workspace
    pre_images: dict[str, Any] = data.get("pre_images") or {}
    post_hashes: dict[str, str] = data.get("post_hashes") or {}
    restores: list[tuple[Path, bytes | None, bytes | None, str]] = []
    for rel in data.get("files", []):
        path, key = resolve_in_workspace(str(rel), workspace)  # never trust a session path
        pre = pre_images.get(key) or {}
        content = pre.get("content")
        before = None if content is None else str(content).encode("utf-8")
        if pre.get("content_b64") is not None:
            before = base64.b64decode(str(pre["content_b64"]))
        if before is not None and pre.get("sha256") and sha256_bytes(before) != pre["sha256"]:
            raise EditError(f"cannot undo {key}: the journaled pre-image is corrupt (hash mismatch)")
        current = path.read_bytes() if path.exists() else None
        now_hash = None if current is None else sha256_bytes(current)
        if not force and now_hash != post_hashes.get(key):
            raise EditError(
                f"refusing to undo {key}: it changed since the candidate was applied (use force)"
            )
        restores.append((path, current, before, key))
    done: list[tuple[Path, bytes | None]] = []
    try:
        for path, current, before, key in restores:
            mode = (pre_images.get(key) or {}).get("mode")
            _restore(path, before, _mode_of(path) if mode is None else int(mode))
            done.append((path, current))
    except OSError as exc:
        for path, current in reversed(done):
            _restore(path, current, _mode_of(path))
        raise EditError(f"cannot undo: {exc.strerror or exc}") from None
    session.append(
        "reverted", {"journal_id": data.get("journal_id"), "files": [r[3] for r in restores]}
    )
    return JournalEntry(
        journal_id=str(data.get("journal_id", "")),
        candidate_id=str(data.get("candidate_id", "")),
        fingerprint=str(data.get("fingerprint", "")),
        files=[r[3] for r in restores],
        pre_images=pre_images,
        post_hashes=post_hashes,
        applied_at=str(data.get("applied_at", "")),
    )


# --------------------------------------------------------------------------- CLI helpers


def find_candidate(candidates: list[FixCandidate], candidate_id: str) -> FixCandidate:
    """The candidate with this id, or the one whose id starts with it."""
    exact = [c for c in candidates if c.candidate_id == candidate_id]
    if exact:
        return exact[0]
    prefixed = [c for c in candidates if candidate_id and c.candidate_id.startswith(candidate_id)]
    if len(prefixed) == 1:
        return prefixed[0]
    if prefixed:
        raise EditError(f"candidate id {candidate_id!r} is ambiguous ({len(prefixed)} match)")
    raise EditError(f"no candidate {candidate_id!r} in this session")


def apply_candidate_by_id(
    store: Path, session_id: str | None, candidate_id: str, dry_run: bool = False
) -> tuple[str, JournalEntry | None]:
    """`whetstone apply ID [--dry-run]`: (the diff, the journal entry or None on a dry run)."""
    session = load_session(store, session_id)
    state = session.state()
    candidate = find_candidate(rank_candidates(state.candidates), candidate_id)
    workspace = session.workspace
    if not candidate.edits:
        raise EditError(f"candidate {candidate.candidate_id} is manual: {candidate.description}")
    text = candidate_diff(candidate, workspace)
    if dry_run:
        return text, None
    return text, apply(candidate, workspace, session)


def undo_last(store: Path, session_id: str | None = None, *, force: bool = False) -> str:
    """`whetstone undo`: revert the last application; a one-line summary."""
    session = load_session(store, session_id)
    entry = undo(session, force=force)
    files = ", ".join(entry.files) or "no files"
    return f"reverted {entry.journal_id} (candidate {entry.candidate_id}): restored {files}"


def whole_file_replacement(rel: str, current: bytes, new_text: str) -> FixCandidate:
    """A candidate that replaces a whole file with ``new_text`` (a rollback that goes through the engine)."""
    text = current.decode("utf-8", TEXT_ERRORS)  # the end position counts stray bytes as the engine does
    last_start = text.rfind("\n") + 1
    end = Position(line=text.count("\n") + 1, col=len(text) - last_start + 1)
    return FixCandidate(
        candidate_id="rollback", mutation_type="replaceNode", source="rule",
        edits=[TextEdit(file_path=rel, start=Position(1, 1), end=end, new_text=new_text)],
    )
