"""Turn ccwrap's spool files into session events.

ccwrap (native or Python) writes one JSON file per compiler invocation that
printed something, failed, or compiled cleanly a unit that had diagnostics
before: ``<store>/spool/<time>-<pid>-<rand>.json`` (format in docs/ccwrap.md).
Ingestion is lazy (``whetstone report``/``run`` call it) and safe to run
concurrently: each file is claimed by an atomic rename into
``spool/processing/`` before it is read, so exactly one ingester wins it, and
it is deleted once its events are appended.  Unreadable files are moved to
``spool/bad/`` with a one-line warning, never lost and never fatal.

Each command becomes one ``build_errors`` event per origin: ``tu:<abs source>``
for a compile (a later batch of the same origin replaces the earlier one, so a
unit that now compiles cleanly clears its old errors) or ``link:<output or
cwd>`` for a command without a single source.
"""

from __future__ import annotations

import json
import os
import re
import signal as _signal
from pathlib import Path
from typing import Any

from ..paths import workspace_relative
from ..records import BuildErrorRecord
from . import events
from .sessions import Session, latest_session_id, open_session, warn_line

SCHEMA_VERSION = "whetstone/1"
_RESOURCE_RE = re.compile(
    r"\bKilled\b|virtual memory exhausted|out of memory|cannot allocate memory|std::bad_alloc"
    r"|memory exhausted",
    re.I,
)
# Minimal fallback when the parser package itself fails: file:line[:col]: severity: message.
_FALLBACK_RE = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?:(?P<col>\d+):)?\s*"
                          r"(?P<sev>fatal error|error|warning|note):\s*(?P<msg>.*)$")
_ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def ingest_spool(store: Path) -> list[str]:
    """Ingest every pending spool file; returns the ids of the sessions that got events."""
    spool = Path(store) / "spool"
    try:
        names = sorted(
            entry.name
            for entry in os.scandir(spool)
            if entry.name.endswith(".json") and not entry.name.startswith(".") and entry.is_file()
        )
    except OSError:
        return []
    if not names:
        return []
    processing = spool / "processing"
    try:
        processing.mkdir(exist_ok=True)
        for sub in ("sessions", "audits"):  # ccwrap itself only creates spool/
            (Path(store) / sub).mkdir(exist_ok=True)
    except OSError as exc:
        warn_line(f"cannot ingest the ccwrap spool: {exc}")
        return []
    touched: list[str] = []
    sessions: dict[str, Session] = {}
    for name in names:
        claimed = processing / name
        try:
            os.rename(spool / name, claimed)
        except FileNotFoundError:
            continue  # another ingester claimed it first
        except OSError as exc:
            warn_line(f"cannot claim spool file {name}: {exc}")
            continue
        sid = _ingest_one(Path(store), claimed, sessions)
        if sid and sid not in touched:
            touched.append(sid)
    return touched


def _ingest_one(store: Path, path: Path, sessions: dict[str, Session]) -> str | None:
    try:
        entry = load_entry(path)
    except (OSError, ValueError) as exc:
        _quarantine(store, path, str(exc))
        return None
    try:
        session = _session_for(store, str(entry.get("session") or ""), sessions)
        for data in entry_events(entry, str(session.workspace)):
            session.append(events.BUILD_ERRORS, data)
    except OSError as exc:
        warn_line(f"cannot record spool file {path.name}: {exc}")
        try:
            os.replace(path, store / "spool" / path.name)  # unclaim: a later ingest retries it
        except OSError:
            pass
        return None
    try:
        path.unlink()
    except OSError:
        pass
    return session.session_id


def load_entry(path: Path) -> dict[str, Any]:
    """Read and validate one spool file; ValueError names what is wrong."""
    with open(path, "rb") as handle:
        raw = handle.read()
    try:
        entry = json.loads(raw.decode("utf-8", "replace"))
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(entry, dict) or entry.get("kind") != "ccwrap":
        raise ValueError("not a ccwrap spool entry")
    for key, kind in (("argv", list), ("sources", list), ("stderr", str), ("cwd", str)):
        if not isinstance(entry.get(key), kind):
            raise ValueError(f"field {key!r} missing or not a {kind.__name__}")
    for key in ("exit_code", "signal"):
        if not isinstance(entry.get(key, 0), int):
            raise ValueError(f"field {key!r} is not an integer")
    return entry


def _quarantine(store: Path, path: Path, why: str) -> None:
    bad = store / "spool" / "bad"
    try:
        bad.mkdir(exist_ok=True)
        os.replace(path, bad / path.name)
    except OSError:
        pass
    warn_line(f"skipped spool file {path.name}: {why} (kept in {bad})")


def _session_for(store: Path, sid: str, cache: dict[str, Session]) -> Session:
    key = sid or "\0default"
    if key not in cache:
        if sid:
            try:
                cache[key] = open_session(store, sid)
            except ValueError:  # a bad id in the spool: fall back to the default session
                return _session_for(store, "", cache)
        else:
            latest = latest_session_id(store)
            cache[key] = Session(store, latest) if latest else open_session(store, meta={"origin": "ccwrap"})
    return cache[key]


def tool_of(entry: dict[str, Any]) -> str:
    family = str(entry.get("family") or "")
    compiler = os.path.basename(str(entry.get("compiler") or ""))
    return "clang" if family == "clang" or "clang" in compiler else "gcc"


def origins_of(entry: dict[str, Any]) -> list[str]:
    """The same origins ccwrap used for its TU markers (see args.origins / shim.c)."""
    cwd = str(entry.get("cwd") or "")
    sources = [str(s) for s in entry.get("sources") or []]
    out = [f"tu:{s}" for s in sources]
    if not sources or (entry.get("is_link", False) and len(sources) > 1):
        out.append(f"link:{entry.get('output') or cwd}")
    return out


def entry_events(entry: dict[str, Any], workspace: str = "") -> list[dict[str, Any]]:
    """The ``build_errors`` event payloads for one spool entry, one per origin.

    Paths are made workspace-relative exactly as ``whetstone run`` does, so the
    same diagnostic seen by ccwrap and by a run's own parse folds into one.
    """
    cwd = str(entry.get("cwd") or "")
    tool = tool_of(entry)
    text = str(entry.get("stderr") or "")
    records = _parse(text, tool, cwd) if text else []
    exit_code = int(entry.get("exit_code") or 0)
    sig = int(entry.get("signal") or 0)
    sources = [str(s) for s in entry.get("sources") or []]
    if (exit_code or sig) and not any(r.is_failure for r in records):
        records.append(_exit_record(entry, tool, text, exit_code, sig, sources))
    origins = origins_of(entry)
    batches: dict[str, list[BuildErrorRecord]] = {o: [] for o in origins}
    for record in records:
        batches[_origin_for(record, origins, sources, cwd)].append(record)
    if workspace and cwd and _inside(cwd, workspace):
        _normalize(records, cwd, workspace)
    common = {
        "source": "ccwrap",
        "argv": entry.get("argv", []),
        "compiler": entry.get("compiler", ""),
        "cwd": cwd,
        "exit_code": exit_code,
        "signal": sig,
        "time": entry.get("time", ""),
    }
    events = []
    for origin in origins:
        batch = batches[origin]
        data: dict[str, Any] = {"origin": origin, "records": [r.to_dict() for r in batch], **common}
        if not batch and origin.startswith("tu:") and not exit_code and not sig:
            data["clean_tus"] = [origin[3:]]
        events.append(data)
    return events


def _inside(path: str, root: str) -> bool:
    path, root = os.path.normpath(path), os.path.normpath(root)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _normalize(records: list[BuildErrorRecord], cwd: str, workspace: str) -> None:
    for record in records:
        record.file_path = workspace_relative(record.file_path, workspace, cwd)
        for edit in record.fixits:
            edit.file_path = workspace_relative(edit.file_path, workspace, cwd)
        record.error_id = ""
        record.ensure_id()


def _origin_for(record: BuildErrorRecord, origins: list[str], sources: list[str], cwd: str) -> str:
    if len(origins) == 1:
        if len(sources) == 1:
            record.translation_unit = sources[0]
        return origins[0]
    for candidate in (record.translation_unit, record.file_path):
        if candidate:
            path = os.path.normpath(os.path.join(cwd, candidate))
            if path in sources:
                record.translation_unit = path
                return f"tu:{path}"
    links = [o for o in origins if o.startswith("link:")]
    return links[0] if links else origins[0]


def _parse(text: str, tool: str, cwd: str) -> list[BuildErrorRecord]:
    try:
        from ..parse import parse_text

        return list(parse_text(text, tool=tool, cwd=cwd).build_errors)
    except Exception as exc:  # noqa: BLE001 - a parser bug must not lose the capture
        warn_line(f"build output parser failed ({exc}); used the minimal fallback")
        return _fallback_parse(text, tool)


def _fallback_parse(text: str, tool: str) -> list[BuildErrorRecord]:
    out = []
    for line in text.splitlines():
        match = _FALLBACK_RE.match(_ANSI_RE.sub("", line))
        if not match:
            continue
        sev = "error" if match["sev"] == "fatal error" else match["sev"]
        record = BuildErrorRecord(
            tool=tool,
            severity=sev,
            file_path=match["file"],
            line=int(match["line"]),
            col=int(match["col"] or 0),
            message=match["msg"],
            raw=line,
        )
        out.append(record.ensure_id())
    return out


def _exit_record(
    entry: dict[str, Any], tool: str, text: str, exit_code: int, sig: int, sources: list[str]
) -> BuildErrorRecord:
    compiler = os.path.basename(str(entry.get("compiler") or "compiler"))
    if sig:
        try:
            name = _signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        message = f"{compiler} was killed by {name}"
    else:
        message = f"{compiler} exited with status {exit_code} without a diagnostic"
    resource = bool(sig) or bool(_RESOURCE_RE.search(text))
    tail = [line for line in text.splitlines() if line.strip()][-5:]
    record = BuildErrorRecord(
        tool=tool,
        severity="error",
        file_path=sources[0] if len(sources) == 1 else "",
        message=message,
        context_lines=tail,
        error_type="resource_limit" if resource else "unknown",
        translation_unit=sources[0] if len(sources) == 1 else "",
        raw="\n".join(tail),
    )
    return record.ensure_id()
