"""A SARIF 2.1.0 document read into ``BuildErrorRecord``s (the mapping, no line handling).

What gcc (13+, ``-fdiagnostics-format=sarif-stderr|sarif-file``), clang
(``-fdiagnostics-format=sarif``) and CMake (4.0+, ``--sarif-output``) write:

- ``runs[].results[]``: one diagnostic each; ``level`` is the severity (absent: the
  rule's default level, else ``warning``; ``none`` is a note), ``ruleId`` the
  ``error_code`` (gcc writes its option, ``-Wformat=``, or the bare kind ``error``
  when there is none, which is dropped; clang its internal diagnostic number; CMake
  ``CMake.Warning`` / ``CMake.FatalError``);
- the location: ``physicalLocation.artifactLocation`` (``uri``, resolved against
  ``originalUriBaseIds[uriBaseId]`` or ``artifacts[index]``; ``file://`` URIs become
  paths) and ``region.startLine/startColumn``.  clang lists the ranges first and its
  caret last, as a region with no ``endLine``: that point is the diagnostic's column,
  as in its text output;
- notes: gcc's ``relatedLocations`` with a message (clang's, without one, are the
  include chain: "included from here"), and clang's results of level ``note``, which
  follow the result they explain;
- ``fixes[].artifactChanges[].replacements[]`` become ``fixits`` (SARIF's end column is
  exclusive, as ours);
- ``locations[].logicalLocations`` of kind ``function`` give ``function``; an artifact
  whose roles include ``analysisTarget`` is the translation unit.

A document cut short (a truncated file or log) is decoded as far as it goes: every
result complete before the cut is read (``load`` says it was partial).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote, urljoin, urlparse

from ..lazy_pattern import lazy_pattern
from ..records import INCLUDED_FROM, BuildErrorRecord, Note, Position, TextEdit
from .base import SOURCE_EXT, ParseContext
from .gcc_text import find_symbol

_DECODER = json.JSONDecoder()
_MAX_NOTES = 64
_MAX_FIXITS = 64
# Partial containers are kept down to the results list (top -> runs -> run -> results);
# a result (or anything deeper) cut in the middle is dropped.
_KEEP_PARTIAL_DEPTH = 3
_SCHEMA = lazy_pattern(r'"\$schema"\s*:\s*"[^"]*sarif', re.IGNORECASE)
_LEVELS = {"error": "error", "warning": "warning", "note": "note", "none": "note"}
_WS = " \t\r\n"


def sniff(head: str) -> bool:
    """A JSON object that says it is SARIF: a SARIF ``$schema``, or ``"version": "2.1.0"``
    with ``"runs"``."""
    if not head.startswith("{"):
        return False
    head = head[:1024]
    return bool(_SCHEMA.search(head)) or ('"runs"' in head and '"2.1.0"' in head and '"version"' in head)


# --------------------------------------------------------------------------- decoding


def load(text: str) -> tuple[dict[str, Any], bool]:
    """(the document, complete?).  A document cut short gives what came before the cut."""
    start = text.find("{")
    if start < 0:
        return {}, False
    value, _, complete = _partial(text, start, 0)
    return (value if isinstance(value, dict) else {}), complete


def _skip(s: str, pos: int) -> int:
    n = len(s)
    while pos < n and s[pos] in _WS:
        pos += 1
    return pos


def _partial(s: str, pos: int, depth: int) -> tuple[Any, int, bool]:
    """(value, end, complete) of the JSON value at ``pos``: whole when it decodes, else the
    members before the cut (objects and arrays), else None."""
    try:
        value, end = _DECODER.raw_decode(s, pos)
        return value, end, True
    except (ValueError, RecursionError):
        pass
    if depth > _KEEP_PARTIAL_DEPTH or pos >= len(s) or s[pos] not in "{[":
        return None, pos, False
    is_object = s[pos] == "{"
    out: Any = {} if is_object else []
    close = "}" if is_object else "]"
    pos = _skip(s, pos + 1)
    while pos < len(s) and s[pos] != close:
        key = ""
        if is_object:
            try:
                key, pos = _DECODER.raw_decode(s, pos)
            except ValueError:
                return out, pos, False
            pos = _skip(s, pos)
            if not isinstance(key, str) or pos >= len(s) or s[pos] != ":":
                return out, pos, False
            pos = _skip(s, pos + 1)
        value, pos, complete = _partial(s, pos, depth + 1)
        if value is not None and (complete or depth + 1 <= _KEEP_PARTIAL_DEPTH):
            if is_object:
                out[key] = value
            else:
                out.append(value)
        if not complete:
            return out, pos, False
        pos = _skip(s, pos)
        if pos < len(s) and s[pos] == ",":
            pos = _skip(s, pos + 1)
        elif pos < len(s) and s[pos] != close:
            return out, pos, False
    return out, pos + 1, pos < len(s)


# --------------------------------------------------------------------------- mapping


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def tool_name(driver_name: str, hint: str) -> str:
    """Our tool name for a SARIF driver: gcc's drivers are "GNU C17", "GNU C++17"."""
    name = driver_name.strip().lower()
    if not name:
        return hint if hint in ("gcc", "clang", "cmake", "clang_tidy") else "sarif"
    if name.startswith("gnu "):
        return "gcc"
    if name in ("clang", "clang++") or name.startswith("clang "):
        return "clang"
    if name == "clang-tidy":
        return "clang_tidy"
    return re.sub(r"[^a-z0-9_+]+", "_", name).strip("_") or "sarif"


class _Run:
    """What one run's results need to resolve: base URIs, artifacts, rules."""

    def __init__(self, run: dict[str, Any], ctx: ParseContext) -> None:
        self.ctx = ctx
        driver = _dict(_dict(run.get("tool")).get("driver"))
        self.tool = tool_name(str(driver.get("name") or ""), ctx.tool_hint)
        self.rules = _list(driver.get("rules"))
        self.bases: dict[str, str] = {}
        for key, base in _dict(run.get("originalUriBaseIds")).items():
            uri = _dict(base).get("uri")
            if isinstance(uri, str):
                self.bases[str(key)] = uri
        self.artifacts = _list(run.get("artifacts"))
        self.target = ""
        for artifact in self.artifacts:
            artifact = _dict(artifact)
            if "analysisTarget" in _list(artifact.get("roles")):
                self.target = self.path(_dict(artifact.get("location")))
                break

    def path(self, artifact_location: dict[str, Any]) -> str:
        uri = artifact_location.get("uri")
        if not isinstance(uri, str):
            index = artifact_location.get("index")
            if isinstance(index, int) and 0 <= index < len(self.artifacts):
                uri = _dict(_dict(self.artifacts[index]).get("location")).get("uri")
            if not isinstance(uri, str):
                return ""
        base = self.bases.get(str(artifact_location.get("uriBaseId") or ""))
        try:
            if base and not urlparse(uri).scheme:
                uri = urljoin(base if base.endswith("/") else base + "/", uri)
            return self.ctx.resolve(uri_to_path(uri))
        except ValueError:  # a malformed URI ("file://[x/a.c"): kept as written
            return uri

    def level(self, result: dict[str, Any]) -> str:
        level = result.get("level")
        if not isinstance(level, str):
            index = result.get("ruleIndex")
            rule = _dict(self.rules[index]) if isinstance(index, int) and 0 <= index < len(self.rules) else {}
            level = _dict(rule.get("defaultConfiguration")).get("level", "warning")
        return _LEVELS.get(str(level), "warning")


def uri_to_path(uri: str) -> str:
    """``file:///tmp/my%20os/x.c`` -> ``/tmp/my os/x.c``; ``file:///C:/src/x.c`` -> ``C:/src/x.c``;
    a relative reference is only unquoted."""
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        path = unquote(parsed.path)
        if re.match(r"/[A-Za-z]:[/\\]", path):
            path = path[1:]
        return path
    if parsed.scheme and len(parsed.scheme) > 1:
        return uri  # another scheme: kept as written
    return unquote(uri)


def _message(result: dict[str, Any], rules: list[Any]) -> str:
    message = _dict(result.get("message"))
    text = message.get("text") or message.get("markdown")
    if not isinstance(text, str):
        index = result.get("ruleIndex")
        rule = _dict(rules[index]) if isinstance(index, int) and 0 <= index < len(rules) else {}
        template = _dict(_dict(rule.get("messageStrings")).get(str(message.get("id") or ""))).get("text")
        text = template if isinstance(template, str) else ""
        for i, arg in enumerate(_list(message.get("arguments"))):
            text = text.replace(f"{{{i}}}", str(arg))
    if "\n" in text:
        # Multi-line messages (CMake's paragraphs) on one line, as the text parsers give them.
        text = " ".join(part.strip() for part in text.splitlines() if part.strip())
    return text


def _where(location: dict[str, Any], run: _Run) -> tuple[str, int, int]:
    physical = _dict(location.get("physicalLocation"))
    region = _dict(physical.get("region"))
    return run.path(_dict(physical.get("artifactLocation"))), _int(region.get("startLine")), \
        _int(region.get("startColumn"))


def _primary(locations: list[Any]) -> dict[str, Any]:
    """The location a diagnostic points at: clang lists its ranges, then its caret as a
    region with no ``endLine``; everyone else writes one location."""
    if len(locations) > 1:
        for location in reversed(locations):
            region = _dict(_dict(_dict(location).get("physicalLocation")).get("region"))
            if region and "endLine" not in region:
                return _dict(location)
    return _dict(locations[0]) if locations else {}


def _function(location: dict[str, Any]) -> str:
    for logical in _list(location.get("logicalLocations")):
        logical = _dict(logical)
        if logical.get("kind") in ("function", "member") or "fullyQualifiedName" in logical:
            name = logical.get("fullyQualifiedName") or logical.get("name")
            if isinstance(name, str):
                return name
    return ""


def _notes(result: dict[str, Any], run: _Run) -> list[Note]:
    notes: list[Note] = []
    for related in _list(result.get("relatedLocations")):
        related = _dict(related)
        text = _dict(related.get("message")).get("text")
        if not isinstance(text, str):
            if "id" in related:
                continue  # gcc: an unlabelled secondary range of the diagnostic, not a note
            text = INCLUDED_FROM  # clang: a level of the include chain
        path, line, col = _where(related, run)
        if text is INCLUDED_FROM:
            col = 0  # at the #include line, as "In file included from a.c:1:" says it
        notes.append(Note("note", path, line, col, text))
        if len(notes) >= _MAX_NOTES:
            break
    return notes


def _fixits(result: dict[str, Any], run: _Run) -> list[TextEdit]:
    edits: list[TextEdit] = []
    for fix in _list(result.get("fixes")):
        for change in _list(_dict(fix).get("artifactChanges")):
            change = _dict(change)
            path = run.path(_dict(change.get("artifactLocation")))
            for replacement in _list(change.get("replacements")):
                replacement = _dict(replacement)
                region = _dict(replacement.get("deletedRegion"))
                line, col = _int(region.get("startLine")), _int(region.get("startColumn"))
                if not (path and line and col) or len(edits) >= _MAX_FIXITS:
                    continue
                end = Position(_int(region.get("endLine")) or line, _int(region.get("endColumn")) or col)
                text = _dict(replacement.get("insertedContent")).get("text")
                edits.append(TextEdit(path, Position(line, col), end, text if isinstance(text, str) else ""))
    return edits


def records(doc: dict[str, Any], ctx: ParseContext) -> Iterator[BuildErrorRecord]:
    """One record per result (notes folded into the result they follow), in order."""
    for run_data in _list(doc.get("runs")):
        run_data = _dict(run_data)
        run = _Run(run_data, ctx)
        last: BuildErrorRecord | None = None
        for result in _list(run_data.get("results")):
            if not isinstance(result, dict):
                continue
            record = _record(result, run)
            if record.severity == "note" and last is not None:
                if len(last.notes) < _MAX_NOTES:
                    last.notes.append(Note("note", record.file_path, record.line, record.col, record.message))
                    last.notes.extend(record.notes[: _MAX_NOTES - len(last.notes)])
                continue
            if last is not None:
                yield last
            last = record
        if last is not None:
            yield last
        for invocation in _list(run_data.get("invocations")):
            for notification in _list(_dict(invocation).get("toolExecutionNotifications")):
                notification = _dict(notification)
                if notification.get("level") in ("error", "warning"):
                    yield _record(notification, run)


def _record(result: dict[str, Any], run: _Run) -> BuildErrorRecord:
    severity = run.level(result)
    location = _primary(_list(result.get("locations")))
    path, line, col = _where(location, run)
    notes = _notes(result, run)
    message = _message(result, run.rules)
    rule = result.get("ruleId")
    code = rule if isinstance(rule, str) and rule not in _LEVELS else ""
    chain = [n.file_path for n in notes if n.message == INCLUDED_FROM and n.file_path]
    unit = chain[-1] if chain else run.target or (path if path.endswith(SOURCE_EXT) else run.ctx.sole_source())
    return BuildErrorRecord(
        tool=run.tool, severity=severity, file_path=path, line=line, col=col, error_code=code,
        message=message, notes=notes, fixits=_fixits(result, run), function=_function(location),
        symbol=find_symbol(message) if severity != "note" and message else "",
        translation_unit=unit, raw=json.dumps(result, ensure_ascii=False)[:16384],
    )
