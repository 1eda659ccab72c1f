"""The store side of ccwrap (the Python twin of ``shim_store.c``).

Store discovery repeats ``pytest_whetstone.store.sessions.find_store`` on purpose:
ccwrap stands apart from the package and must not import it on the hot path.
"""

from __future__ import annotations

import datetime as _dt
import os
import secrets
from typing import Any

ROOT_MARKERS = ("whetstone.json5", ".git", "pyproject.toml", "setup.py", "CMakeLists.txt")
SCHEMA_VERSION = "whetstone/1"


def _parents(path: str) -> list[str]:
    out = [path]
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return out
        out.append(parent)
        path = parent


def find_store(cwd: str, *, create: bool) -> str | None:
    """$WHETSTONE_DIR, else the nearest .whetstone/ upwards, else (create) the project root's."""
    env = os.environ.get("WHETSTONE_DIR")
    if env:
        return os.path.realpath(os.path.join(cwd, os.path.expanduser(env)))
    for directory in _parents(cwd):
        if os.path.isdir(os.path.join(directory, ".whetstone")):
            return os.path.join(directory, ".whetstone")
    if not create:
        return None
    for directory in _parents(cwd):
        if any(os.path.exists(os.path.join(directory, m)) for m in ROOT_MARKERS):
            return os.path.join(directory, ".whetstone")
    return os.path.join(cwd, ".whetstone")


def fnv1a64(text: str) -> int:
    value = 0xCBF29CE484222325
    for byte in os.fsencode(text):
        value ^= byte
        value = (value * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def marker_path(store: str, origin: str) -> str:
    """``<store>/spool/tu/<fnv1a64(origin)>``: exists while that origin has diagnostics."""
    return os.path.join(store, "spool", "tu", f"{fnv1a64(origin):016x}")


def _text(raw: str | bytes) -> str:
    data = os.fsencode(raw) if isinstance(raw, str) else raw
    return data.decode("utf-8", "replace")


def _iso(now: _dt.datetime) -> str:
    return now.isoformat(timespec="milliseconds")


def command_key(cwd: str, output: str | None, sources: list[str]) -> str:
    """The name of one command's record: what it builds (directory, output, sources)."""
    return f"{fnv1a64(chr(10).join([cwd, output or '', *sources])):016x}"


def write_command(store: str, command: dict[str, Any]) -> None:
    """``<store>/commands/<key>.json``: the newest command that builds this output; raises OSError."""
    import json

    data = {
        "schema_version": SCHEMA_VERSION,
        "kind": "command",
        "directory": _text(command["directory"]),
        "arguments": [_text(a) for a in command["arguments"]],
        "compiler": _text(command["compiler"]),
        "family": command["family"],
        "sources": [_text(s) for s in command["sources"]],
        "output": _text(command["output"]) if command["output"] else None,
        "is_link": command["is_link"],
        "exit_code": command["exit_code"],
        "time": _iso(_dt.datetime.now(_dt.timezone.utc)),
    }
    directory = os.path.join(store, "commands")
    name = command_key(command["directory"], command["output"], command["sources"]) + ".json"
    payload = (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "surrogateescape")
    try:
        _write_atomic(directory, name, payload)
    except FileNotFoundError:
        os.makedirs(directory, exist_ok=True)
        _write_atomic(directory, name, payload)


def _write_atomic(directory: str, name: str, payload: bytes) -> None:
    rnd = secrets.token_hex(4)
    tmp = os.path.join(directory, f".tmp-{os.getpid()}-{rnd}.json")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.rename(tmp, os.path.join(directory, name))
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_spool(store: str, entry: dict[str, Any], stderr: bytes) -> None:
    """Write one spool file atomically (temp name, then rename); raises OSError."""
    import json  # only when there is something to write

    now = _dt.datetime.now(_dt.timezone.utc)
    data = {
        "schema_version": SCHEMA_VERSION,
        "kind": "ccwrap",
        "argv": [_text(a) for a in entry["argv"]],
        "compiler": _text(entry["compiler"]),
        "family": entry["family"],
        "cwd": _text(entry["cwd"]),
        "exit_code": entry["exit_code"],
        "signal": entry["signal"],
        "stderr": stderr.decode("utf-8", "replace"),
        "stdout": "",
        "stderr_truncated": entry["truncated"],
        "fixits_added": entry["fixits_added"],
        "clean": entry["clean"],
        "sources": [_text(s) for s in entry["sources"]],
        "output": _text(entry["output"]) if entry["output"] else None,
        "is_link": entry["is_link"],
        "session": os.environ.get("WHETSTONE_SESSION", ""),
        "time": _iso(now),
        "pid": os.getpid(),
    }
    name = f"{now.strftime('%Y%m%dT%H%M%S')}.{now.microsecond:06d}Z-{os.getpid()}-{secrets.token_hex(4)}.json"
    payload = (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode(
        "utf-8", "surrogateescape"
    )
    _write_atomic(os.path.join(store, "spool"), name, payload)
