"""The core API: one call per thing Whetstone does, the same for every face.

The CLI (``cli/``), the MCP tools (``agent/``) and the pytest plugin (``plugin/``) are thin
adapters over these functions, so a behaviour added here reaches all three.  (The shape is
coverage.py's: one facade, ``cmdline.py`` merely its client.)

| call | what it does |
|---|---|
| :func:`run` | run a command: records, located and classified, candidates, the verdict |
| :func:`parse` | parse a log's text into records (paths relative to the workspace) |
| :func:`locate` | place records in the source: C/C++ scopes, Python and native test suspects |
| :func:`candidates` | fix candidates for failing records (validated where a check exists) |
| :func:`report` | the fix suggestion report of a session, in any format |
| :func:`apply` / :func:`undo` | one candidate through the edit engine / revert the last one |
| :func:`start_loop`, :func:`step_loop`, :func:`run_loop` | the orchestrated loop |
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .config import Config
from .records import BuildErrorRecord, FixCandidate, TestFailureRecord
from .runner import RunOutcome, generate_candidates, locate_records, run_command

if TYPE_CHECKING:
    from .parse import ParseResult

# parse/, report/ and edits.py are imported by the calls that need them: `whetstone run` starts the command
# first and loads the parsers while it runs.

__all__ = [
    "RunOutcome",
    "apply",
    "candidates",
    "locate",
    "parse",
    "report",
    "run",
    "run_loop",
    "start_loop",
    "step_loop",
    "undo",
]

run = run_command
locate = locate_records


def parse(text: str, tool: str = "auto", *, workspace: Path | None = None, config: Config | None = None) -> ParseResult:
    """Records of one log; paths made relative to the workspace when given."""
    from .parse import normalize_paths, parse_text

    result = parse_text(text, tool, cwd=str(workspace or ""), config=config)
    if workspace is not None:
        normalize_paths(result, str(workspace), str(workspace))
    return result


def candidates(
    errors: Sequence[BuildErrorRecord],
    failures: Sequence[TestFailureRecord],
    workspace: Path,
    config: Config | None = None,
) -> list[FixCandidate]:
    """Candidates for the failing records; an error inside a generator costs one warning line."""
    return generate_candidates(list(errors), list(failures), workspace, config or Config())


def report(
    sources: Path | Sequence[Path],
    session_id: str | None = None,
    fmt: str = "text",
    output: str | None = None,
    *,
    exit_code: bool = False,
) -> tuple[str, int]:
    """(text, exit status) of ``whetstone report``."""
    from .report import run_report

    return run_report(sources, session_id, fmt, output, exit_code=exit_code)


def apply(store: Path, session_id: str | None, candidate_id: str, dry_run: bool = False) -> str:
    """Apply one candidate (or show its diff); returns the diff.  Raises EditError when refused."""
    from .edits import apply_candidate_by_id

    diff_text, _journal = apply_candidate_by_id(store, session_id, candidate_id, dry_run)
    return diff_text


def undo(store: Path, session_id: str | None = None, *, force: bool = False) -> str:
    from .edits import undo_last

    return undo_last(store, session_id, force=force)


def start_loop(store: Path, **options: object) -> str:
    """A new loop session (pending); returns its id."""
    from .orchestrate.phases import start_loop as _start

    return _start(store, **options).session_id  # type: ignore[arg-type]


def step_loop(store: Path, session_id: str) -> object:
    from .orchestrate.loop import FeedbackLoopOrchestrator

    return FeedbackLoopOrchestrator(store).step(session_id)


def run_loop(store: Path, session_id: str, max_wall_s: float | None = None) -> object:
    from .orchestrate.loop import FeedbackLoopOrchestrator

    return FeedbackLoopOrchestrator(store).run_to_completion(session_id, max_wall_s)
