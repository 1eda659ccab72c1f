"""Which test file a JS failure's test lives in, for the trial that re-runs it (:mod:`.native_trial_js`)."""

from __future__ import annotations

import os
from pathlib import Path

from ..paths import SKIP_DIRS
from ..records import TestFailureRecord
from .native_spectra_js import suite_files

# Generated output and caches: never needed by a test run, often large.
SKIP_COPY = SKIP_DIRS | {"coverage", ".nyc_output", ".next", ".nuxt", ".turbo", ".cache", ".parcel-cache",
                         ".svelte-kit", ".vite", ".jest-cache", ".yarn"}


def test_file_of(record: TestFailureRecord, workspace: Path) -> str:
    """The workspace-relative test file of a record (its suite, or the first frame in a test file)."""
    for cand in (record.test_suite, record.file_path, record.node_id.split("::", 1)[0]):
        if not cand:
            continue
        path = Path(cand)
        if path.is_absolute():
            try:
                rel = path.resolve().relative_to(workspace.resolve()).as_posix()
            except ValueError:
                continue
            if (workspace / rel).is_file():
                return rel
            continue
        cand = cand.removeprefix("./")
        if (workspace / cand).is_file():
            return cand
        hits = _find(workspace, cand)
        if len(hits) == 1:
            return hits[0]
    return ""


def declaring_file(workspace: Path, paths: list[str], title: str) -> str:
    """The one test file among those ``paths`` name whose text holds ``title`` as a string literal
    (`test('subexpr', ...)`), or "" when none or several do."""
    if not title.strip():
        return ""
    quoted = [f"{q}{title}{q}".encode() for q in ("'", '"', "`")]
    hits: list[str] = []
    for rel in suite_files(workspace, paths):
        try:
            data = (workspace / rel).read_bytes()
        except OSError:
            continue
        if any(q in data for q in quoted):
            hits.append(rel)
            if len(hits) > 1:
                return ""
    return hits[0] if hits else ""


def _find(workspace: Path, tail: str) -> list[str]:
    """Workspace-relative files ending with ``/tail`` (Jest's JSON names suites from their common
    directory), outside node_modules and generated output; at most two."""
    name = Path(tail).name
    hits: list[str] = []
    for dirpath, dirnames, filenames in os.walk(workspace):
        dirnames[:] = [d for d in dirnames if d not in SKIP_COPY]
        if name in filenames:
            rel = (Path(dirpath) / name).relative_to(workspace).as_posix()
            if ("/" + rel).endswith("/" + tail):
                hits.append(rel)
                if len(hits) > 1:
                    break
    return hits
