"""Repository memory: what earlier loop sessions in this workspace learned, per failure fingerprint.

A pure fold over the workspace's own session logs -- no second store of truth.
For each failure fingerprint (the loop breaker's: class, place, normalised
message) and each edit set tried on it (``FixCandidate.edits_fingerprint``):
how often it was kept and reverted, why (progress / same / worse), in which
sessions, and the candidate itself so a fix that worked can be offered again.

Bounded and incremental: ``<store>/memory/index.jsonl`` holds one line per
judged attempt (the facts), ``<store>/memory/state.json`` how many bytes of each
session file are already folded (plus the attempts applied but not yet judged).
A refresh folds only bytes not folded yet, so a loop step costs O(new events),
not O(all sessions).  Both files are derived: deleting them (or
:meth:`RepositoryMemory.rebuild`) refolds everything from the logs, and a session
file that was rewritten (shorter, or a different first line) triggers that.

Untrusted input: a corrupt line, a session that ran in another checkout (its
``loop_started`` names another workspace: a merged store, a copied directory)
or a candidate editing a path outside the workspace is skipped with one
warning per file; nothing read here is executed, and a recalled fix is only
offered when every file it edits still has the content it was made for -- the
edit engine checks that again, and refuses paths outside the workspace, when
the loop applies it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import edits
from ..records import FixCandidate, stable_id
from ..store import events
from ..store.sessions import append_line, warn_line, workspace_of

VERSION = 1
MEMORY_DIR = "memory"
INDEX = "index.jsonl"
STATE = "state.json"
MAX_PENDING = 64  # applied-but-unjudged attempts remembered per session file
MAX_SESSIONS_PER_ENTRY = 4
COMPACT_SLACK = 256  # index lines beyond two per (failure, edit set) before it is rewritten compacted
MAX_FILE_BYTES = 16 * 1024 * 1024  # a larger session file is folded in chunks of this size
JUDGED = ("progress", "same", "worse")


@dataclass
class Outcome:
    """What earlier sessions learned about one edit set for one failure."""

    target: str  # the failure fingerprint
    edits: str  # FixCandidate.edits_fingerprint()
    kept: int = 0
    reverted: int = 0
    last: str = ""  # kept | reverted
    why: str = ""  # the last verdict: progress | same | worse
    sessions: list[str] = field(default_factory=list)  # most recent last
    candidate: dict[str, Any] | None = None
    files: dict[str, str] = field(default_factory=dict)  # rel -> sha256 the edit was made for
    description: str = ""

    @property
    def worked(self) -> bool:
        return self.last == "kept"

    def add(self, fact: dict[str, Any]) -> None:
        kept, reverted = int(fact.get("kept", 0) or 0), int(fact.get("reverted", 0) or 0)
        if fact.get("outcome") == "kept":
            kept += 1
        elif fact.get("outcome") == "reverted":
            reverted += 1
        self.kept += kept
        self.reverted += reverted
        self.last = str(fact.get("last") or fact.get("outcome") or self.last)
        self.why = str(fact.get("why") or self.why)
        for sid in fact.get("sessions") or [fact.get("session")]:
            if isinstance(sid, str) and sid:
                if sid in self.sessions:
                    self.sessions.remove(sid)
                self.sessions.append(sid)
        del self.sessions[:-MAX_SESSIONS_PER_ENTRY]
        candidate = fact.get("candidate")
        if isinstance(candidate, dict):
            self.candidate = candidate
            files = fact.get("files")
            self.files = {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}
        self.description = str(fact.get("description") or self.description)[:300]

    def to_line(self) -> dict[str, Any]:
        """The compacted form: one index line per (failure, edit set)."""
        return {"target": self.target, "edits": self.edits, "kept": self.kept, "reverted": self.reverted,
                "last": self.last, "why": self.why, "sessions": self.sessions, "candidate": self.candidate,
                "files": self.files, "description": self.description}

    def to_dict(self) -> dict[str, Any]:
        return {"failure": self.target, "edits": self.edits, "kept": self.kept, "reverted": self.reverted,
                "last": self.last, "why": self.why, "sessions": list(self.sessions), "description": self.description}


@dataclass
class Recall:
    """What memory says about the failures a check saw."""

    preferred: set[str] = field(default_factory=set)  # edit fingerprints that were kept for them
    avoided: set[str] = field(default_factory=set)  # edit fingerprints that were reverted (and never kept)
    # reverted on exactly the content the files have now: applying it again would measure the same
    exhausted: set[str] = field(default_factory=set)
    replay: list[FixCandidate] = field(default_factory=list)  # kept fixes offered again, re-targeted
    outcomes: list[Outcome] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.preferred or self.avoided)

    def describe(self) -> str:
        parts = []
        if self.preferred:
            parts.append(f"{len(self.preferred)} fix(es) that worked before")
        if self.exhausted:
            parts.append(f"{len(self.exhausted)} reverted before on these very files (not tried again)")
        if self.avoided - self.exhausted:
            parts.append(f"{len(self.avoided - self.exhausted)} reverted before (tried last)")
        return "memory: " + ", ".join(parts) if parts else ""

    def to_dict(self) -> dict[str, Any]:
        return {"preferred": sorted(self.preferred), "avoided": sorted(self.avoided),
                "exhausted": sorted(self.exhausted),
                "replayed": [c.candidate_id for c in self.replay],
                "outcomes": [o.to_dict() for o in self.outcomes]}


class RepositoryMemory:
    def __init__(self, store: Path, workspace: Path | None = None) -> None:
        self.store = Path(store)
        self.workspace = Path(workspace or workspace_of(self.store)).resolve()
        self.dir = self.store / MEMORY_DIR
        self.entries: dict[tuple[str, str], Outcome] = {}
        self.by_target: dict[str, dict[str, Outcome]] = {}  # failure fingerprint -> edit set -> outcome
        self._index_pos = 0  # bytes of index.jsonl already in self.entries
        self._index_lines = 0  # lines of index.jsonl read or written (compaction trigger)
        self._index_id: tuple[int, int] | None = None  # (inode, device) of the index read
        self.folded_events = 0  # events folded by the last refresh (the bench's O(new) figure)
        self._dirty = False  # did this refresh move a cursor (then state.json is written)
        self._state_cache: tuple[tuple[int, int, int], dict[str, Any]] | None = None
        self._warned: set[str] = set()

    # -- queries -----------------------------------------------------------------
    def recall(self, failures: Iterable[Any], current_session: str = "") -> Recall:
        """Memory for these failures (``state.Failure``: fingerprint + record_id), from other sessions."""
        out = Recall()
        for failure in failures:
            for _, outcome in sorted(self.by_target.get(failure.fingerprint, {}).items()):
                if not [s for s in outcome.sessions if s != current_session]:
                    continue
                out.outcomes.append(outcome)
                if outcome.kept and (outcome.worked or outcome.kept > outcome.reverted):
                    out.preferred.add(outcome.edits)
                    candidate = self._replayable(outcome, failure.record_id)
                    if candidate is not None:
                        out.replay.append(candidate)
                elif outcome.reverted:
                    out.avoided.add(outcome.edits)
                    if self._unchanged(outcome):
                        out.exhausted.add(outcome.edits)
        out.avoided -= out.preferred
        out.exhausted -= out.preferred
        return out

    def _unchanged(self, outcome: Outcome) -> bool:
        """Do the files the edit set touched still hold the content it was reverted on?"""
        if not outcome.files:
            return False
        for rel, want in outcome.files.items():
            try:
                path, _ = edits.resolve_in_workspace(rel, self.workspace)
                if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != want:
                    return False
            except (edits.EditError, OSError):
                return False
        return True

    def summary(self, limit: int = 20) -> dict[str, Any]:
        worked = [o for o in self.entries.values() if o.kept]
        reverted = [o for o in self.entries.values() if o.reverted and not o.kept]
        recent = sorted(self.entries.values(), key=lambda o: (o.sessions[-1:] or [""])[0], reverse=True)
        return {"failures": len({o.target for o in self.entries.values()}), "fixes_that_worked": len(worked),
                "reverted": len(reverted), "recent": [o.to_dict() for o in recent[:limit]],
                "index": str(self.dir / INDEX)}

    def _replayable(self, outcome: Outcome, target_id: str) -> FixCandidate | None:
        if outcome.candidate is None:
            return None
        try:
            cand = FixCandidate.from_dict(outcome.candidate)
        except (TypeError, ValueError, KeyError, AttributeError):
            return None
        if not cand.edits or cand.edits_fingerprint() != outcome.edits:
            return None
        for edit in cand.edits:
            try:
                path, rel = edits.resolve_in_workspace(edit.file_path, self.workspace)
            except edits.EditError as exc:
                self._warn_once(f"edit:{outcome.edits}", f"memory: a remembered fix is not offered: {exc}")
                return None
            want = outcome.files.get(rel)
            try:
                have = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
            except OSError:
                return None
            if want is None or have != want:
                return None  # the file is not what the fix was made for
        source_session = outcome.sessions[-1] if outcome.sessions else ""
        cand.target_id = target_id
        cand.candidate_id = "C" + stable_id("memory", target_id, outcome.edits)
        cand.validated = False
        cand.description = f"worked before for this failure (session {source_session}): {cand.description}"[:600]
        cand.mutation = {**cand.mutation, "file_hashes": dict(outcome.files), "recalled_from": source_session}
        return cand

    # -- folding -------------------------------------------------------------------
    def refresh(self) -> int:
        """Fold what the session logs gained since the last refresh; returns the events folded."""
        self.folded_events = 0
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            with self._locked():
                state = self._read_state()
                if state is None:
                    self._reset_files()
                    state = _empty_state()
                self._read_index()
                self._dirty = False
                self._fold_sessions(state)
                if self._dirty:
                    self._write_state(state)
                self._maybe_compact()
        except OSError as exc:
            warn_line(f"memory: cannot update {self.dir}: {exc}")
        return self.folded_events

    def rebuild(self) -> int:
        """Forget the derived files and fold every session log again."""
        try:
            with self._locked():
                self._reset_files()
        except OSError as exc:
            warn_line(f"memory: cannot rebuild {self.dir}: {exc}")
        return self.refresh()

    def _reset_files(self) -> None:
        for name in (INDEX, STATE):
            try:
                (self.dir / name).unlink()
            except FileNotFoundError:
                pass
        self._forget()
        self._state_cache = None

    def _forget(self) -> None:
        self.entries.clear()
        self.by_target.clear()
        self._index_pos, self._index_id, self._index_lines = 0, None, 0

    @contextmanager
    def _locked(self) -> Iterator[None]:
        fd = os.open(self.dir / ".lock", os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _read_state(self) -> dict[str, Any] | None:
        path = self.dir / STATE
        try:
            st = path.stat()
        except FileNotFoundError:
            self._state_cache = None
            return None if (self.dir / INDEX).exists() else _empty_state()
        key = (st.st_ino, st.st_mtime_ns, st.st_size)
        if self._state_cache is not None and self._state_cache[0] == key:
            return self._state_cache[1]  # nobody wrote it since this process did: no re-read
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            warn_line(f"memory: {path} is unreadable; rebuilding it from the session logs")
            return None
        if not isinstance(state, dict) or state.get("version") != VERSION or not isinstance(state.get("files"), dict):
            return None
        self._state_cache = (key, state)
        return state

    def _write_state(self, state: dict[str, Any]) -> None:
        path = self.dir / STATE
        tmp = path.with_name(f".{STATE}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(state, sort_keys=True, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, path)
        st = path.stat()
        self._state_cache = ((st.st_ino, st.st_mtime_ns, st.st_size), state)

    def _read_index(self) -> None:
        """Take in the index lines this process has not seen (other processes append too)."""
        path = self.dir / INDEX
        try:
            st = path.stat()
        except FileNotFoundError:
            self._forget()
            return
        ident = (st.st_ino, st.st_dev)
        if ident != self._index_id or st.st_size < self._index_pos:
            self._forget()
            self._index_id = ident
        if st.st_size == self._index_pos:
            return
        with open(path, "rb") as handle:
            handle.seek(self._index_pos)
            data = handle.read()
        end = data.rfind(b"\n") + 1
        for raw in data[:end].splitlines():
            try:
                fact = json.loads(raw)
            except ValueError:
                self._warn_once("index", f"memory: skipped a corrupt line of {path}")
                continue
            if isinstance(fact, dict):
                self._take(fact)
                self._index_lines += 1
        self._index_pos += end

    def _take(self, fact: dict[str, Any]) -> None:
        target, edit_set = fact.get("target"), fact.get("edits")
        if not isinstance(target, str) or not isinstance(edit_set, str) or not target or not edit_set:
            return
        key = (target, edit_set)
        outcome = self.entries.get(key)
        if outcome is None:
            outcome = self.entries[key] = Outcome(target=target, edits=edit_set)
            self.by_target.setdefault(target, {})[edit_set] = outcome
        outcome.add(fact)

    def _fold_sessions(self, state: dict[str, Any]) -> None:
        files: dict[str, Any] = state["files"]
        directory = self.store / "sessions"
        try:
            names = sorted(e.name for e in os.scandir(directory) if e.name.endswith(".jsonl") and e.is_file())
        except FileNotFoundError:
            names = []
        for name in names:
            path = directory / name
            cursor = files.get(name)
            try:
                size = path.stat().st_size
            except OSError:
                continue
            if isinstance(cursor, dict) and cursor.get("offset") == size:
                continue  # nothing new: one stat, no read
            self._dirty = True
            if not isinstance(cursor, dict):
                cursor = files[name] = {"offset": 0, "head": "", "pending": {}}
            elif size < int(cursor.get("offset", 0)) or not self._same_head(path, str(cursor.get("head", ""))):
                # the log was rewritten: the facts folded from it may be wrong -- start over
                warn_line(f"memory: session log {name} was rewritten; rebuilding the memory index")
                self._reset_files()
                state["files"] = {}
                self._fold_sessions(state)
                return
            self._fold_file(path, cursor)

    def _same_head(self, path: Path, head: str) -> bool:
        if not head:
            return True
        return _head_of(path) == head

    def _fold_file(self, path: Path, cursor: dict[str, Any]) -> None:
        offset = int(cursor.get("offset", 0))
        with open(path, "rb") as handle:
            handle.seek(offset)
            data = handle.read(MAX_FILE_BYTES)
        end = data.rfind(b"\n") + 1  # complete lines only: a writer may be mid-line
        if offset == 0 and end:
            cursor["head"] = _head_of(path)
        facts: list[dict[str, Any]] = []
        for raw in data[:end].splitlines():
            if not raw.strip():
                continue
            self.folded_events += 1
            if cursor.get("foreign"):
                continue
            try:
                event = json.loads(raw)
            except ValueError:
                self._warn_file(path, cursor, "a corrupt line")
                continue
            if not isinstance(event, dict) or not isinstance(event.get("data"), dict):
                self._warn_file(path, cursor, "a line that is not an event")
                continue
            fact = self._fold_event(path, cursor, event)
            if fact is not None:
                facts.append(fact)
        for fact in facts:
            append_line(self.dir / INDEX, json.dumps(fact, sort_keys=True, separators=(",", ":")))
            self._take(fact)
            self._index_lines += 1
        if facts:
            try:
                self._index_pos = (self.dir / INDEX).stat().st_size
            except OSError:
                pass
        cursor["offset"] = offset + end

    def _fold_event(self, path: Path, cursor: dict[str, Any], event: dict[str, Any]) -> dict[str, Any] | None:
        kind, data = event.get("event"), event["data"]
        if kind == events.LOOP_STARTED:
            ran_in = str(data.get("workspace") or "")
            if ran_in and os.path.normpath(ran_in) != str(self.workspace):
                cursor["foreign"] = True
                cursor["pending"] = {}
                self._warn_file(path, cursor, f"a session from another checkout ({ran_in[:200]})")
            return None
        pending: dict[str, Any] = cursor.setdefault("pending", {})
        if kind == events.LOOP_INTENT:
            intent = _intent_of(data)
            if intent is not None:
                pending[intent["intent_id"]] = intent
                while len(pending) > MAX_PENDING:
                    pending.pop(next(iter(pending)))
            return None
        if kind != events.LOOP_JUDGED:
            return None
        intent = pending.pop(str(data.get("intent_id", "")), None)
        verdict = str(data.get("verdict", ""))
        if not isinstance(intent, dict) or verdict not in JUDGED:
            return None
        candidate = intent.get("candidate")
        if isinstance(candidate, dict) and not self._inside(candidate):
            self._warn_file(path, cursor, "a candidate that edits a path outside the workspace (not carried over)")
            candidate = None
        return {"target": intent["target"], "edits": intent["edits"],
                "outcome": "kept" if data.get("action") == "keep" else "reverted", "why": verdict,
                "session": path.stem, "candidate": candidate, "files": intent.get("files", {}),
                "description": intent.get("description", "")}

    def _inside(self, candidate: dict[str, Any]) -> bool:
        for edit in candidate.get("edits") or []:
            try:
                edits.resolve_in_workspace(str((edit or {}).get("file_path", "")), self.workspace)
            except (edits.EditError, AttributeError):
                return False
        return True

    def _maybe_compact(self) -> None:
        """Rewrite the index with one line per (failure, edit set) once it is mostly repetition."""
        path = self.dir / INDEX
        if self._index_lines <= 2 * len(self.entries) + COMPACT_SLACK:
            return
        tmp = path.with_name(f".{INDEX}.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as handle:
            for outcome in self.entries.values():
                handle.write(json.dumps(outcome.to_line(), sort_keys=True, separators=(",", ":")) + "\n")
        os.replace(tmp, path)
        st = path.stat()
        self._index_pos, self._index_id = st.st_size, (st.st_ino, st.st_dev)
        self._index_lines = len(self.entries)

    def _warn_file(self, path: Path, cursor: dict[str, Any], what: str) -> None:
        if cursor.get("warned"):
            return
        cursor["warned"] = True
        warn_line(f"memory: skipped {what} in {path.name}; the rest of the memory is used")

    def _warn_once(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            warn_line(message)


def _empty_state() -> dict[str, Any]:
    return {"version": VERSION, "files": {}}


def _head_of(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.readline(4096)).hexdigest()[:16]


def _intent_of(data: dict[str, Any]) -> dict[str, Any] | None:
    """The parts of a ``loop_intent`` memory keeps; None when it is not well formed."""
    intent_id, target, edit_set = data.get("intent_id"), data.get("target_fingerprint"), data.get("fingerprint")
    if not (isinstance(intent_id, str) and isinstance(target, str) and isinstance(edit_set, str)):
        return None
    if not (intent_id and target and edit_set):
        return None
    raw_files = data.get("files")
    files: dict[str, Any] = raw_files if isinstance(raw_files, dict) else {}
    pre = {str(rel): str(h.get("pre")) for rel, h in files.items() if isinstance(h, dict) and h.get("pre")}
    candidate = data.get("candidate") if isinstance(data.get("candidate"), dict) else None
    return {"intent_id": intent_id, "target": target, "edits": edit_set, "files": pre, "candidate": candidate,
            "description": str(data.get("description", ""))[:300]}
