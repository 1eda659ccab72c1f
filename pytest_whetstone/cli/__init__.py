"""The ``whetstone`` command: one thin layer over the core API (the MCP server uses the same)."""

from __future__ import annotations

import argparse
import atexit
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from .. import __version__

if TYPE_CHECKING:
    from types import ModuleType

    from ..launch import Launched

USAGE_ERROR = 2


class UsageError(Exception):
    """Bad invocation: one clear line on stderr, exit status 2."""


class _ToolNames:
    """``--tool``'s choices, read from the parsers only when `whetstone parse` checks or shows them (every
    other command, `run` first, starts without importing the parsers)."""

    def _names(self) -> list[str]:
        from ..parse import TOOLS

        return sorted(TOOLS)

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="whetstone",
        description="Turn build and test failures into located, classified records and fixes.",
    )
    parser.add_argument("--version", action="version", version=f"whetstone {__version__}")
    parser.add_argument("--dir", metavar="STORE", help="the store directory (default: nearest .whetstone/)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="run a build or test command, record it, print the verdict last")
    run.add_argument("--phase", default="", help="phase name for the verdict (build, tests, ...)")
    run.add_argument("--timeout", type=float, default=None, metavar="S", help="kill the command after S seconds")
    run.add_argument("--session", default=None, help="session id to record into (default: $WHETSTONE_SESSION or new)")
    run.add_argument("--shell", action="store_true", help="run CMD through /bin/sh (quoting is the caller's job)")
    run.add_argument("--agent", action="store_true", default=None,
                     help="print what an agent needs: one line per failure, the top candidates, the verdict "
                     "(default: on when $AGENT or $AI_AGENT is set)")
    run.add_argument("--search", action="store_true",
                     help="search validated fixes for failing C/C++/JS tests through the recorded build or a "
                     "scratch copy (budgets.search_budget_s; `whetstone fix` always does)")
    run.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD [ARGS...]")

    parse = sub.add_parser("parse", help="parse a saved log; JSON records on stdout")
    parse.add_argument("--tool", default="auto", choices=_ToolNames(), metavar="TOOL",
                       help="the log's format: %(choices)s (default: auto)")
    parse.add_argument("--cwd", default="", help="directory the logged command ran in (resolves relative paths)")
    parse.add_argument(
        "--format",
        default="json",
        choices=("json", "jsonl"),
        help="json: one document (default); jsonl: one record per line as parsed, then a summary line",
    )
    parse.add_argument("file", nargs="?", default="-", help="log file, or - for stdin")

    report = sub.add_parser("report", help="the fix suggestion report of the latest session")
    report.add_argument("--format", default="text", help="text, json, sarif, github or html")
    report.add_argument("--session", default=None, help="session id (default: the latest)")
    report.add_argument("--output", "-o", default=None, help="write to this file instead of stdout")
    report.add_argument("--exit-code", action="store_true",
                        help="exit 1 when the session shown still fails (default: 0 once the report is written)")
    report.add_argument("paths", nargs="*", help="session files or folders to merge (CI shards)")

    apply = sub.add_parser("apply", help="apply one fix candidate (shows the diff)")
    apply.add_argument("candidate_id")
    apply.add_argument("--session", default=None)
    apply.add_argument("--dry-run", action="store_true", help="show the diff, change nothing")

    undo = sub.add_parser("undo", help="revert the last application")
    undo.add_argument("--session", default=None)
    undo.add_argument("--force", action="store_true", help="revert even if the file changed since")

    fix = sub.add_parser("fix", help="the orchestrated loop: build, test, apply, re-run, keep or revert")
    fix.add_argument("--build", default=None, metavar="CMD", help="build command (shell syntax)")
    fix.add_argument("--test", default=None, metavar="CMD", help="test command (shell syntax)")
    fix.add_argument("--max-attempts", type=int, default=None)
    fix.add_argument("--max-wall", type=float, default=None, metavar="S")
    fix.add_argument("--dry-run", action="store_true", help="decide and report, never edit")
    fix.add_argument("--goal", default="build and tests pass")

    start = sub.add_parser("start", help="create a loop session (step it with `whetstone step`)")
    start.add_argument("--build", default=None, metavar="CMD")
    start.add_argument("--test", default=None, metavar="CMD")
    start.add_argument("--max-attempts", type=int, default=None)
    start.add_argument("--goal", default="build and tests pass")

    step = sub.add_parser("step", help="run one step of a loop session")
    step.add_argument("session_id")

    status = sub.add_parser("status", help="show a session's state")
    status.add_argument("session_id", nargs="?", default=None)

    sub.add_parser("mcp", help="MCP server on stdio for agents")

    compdb = sub.add_parser("compdb", help="write compile_commands.json from the commands ccwrap recorded")
    compdb.add_argument("--output", "-o", default="compile_commands.json", help="where (default: ./compile_commands.json)")

    demo = sub.add_parser("demo", help="run the whole story on the embedded example projects")
    demo.add_argument("--keep", action="store_true", help="keep the temporary copy of the examples")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help(sys.stderr)
        return USAGE_ERROR
    try:
        return _dispatch(args)
    except UsageError as exc:
        sys.stderr.write(f"whetstone {args.command}: error: {exc}\n")
        return USAGE_ERROR
    except BrokenPipeError:
        return 1


def console() -> NoReturn:
    """The installed ``whetstone`` command: :func:`main`, then the process ends without the interpreter's
    teardown of every module and object it loaded (about 20 ms after a run that parsed sources: a fifth
    of what `whetstone run` adds to a short test command).  What an orderly exit must do still happens
    first: the atexit callbacks (a coverage tracer's data, weakref finalizers' temporary directories) and
    both streams flushed.  Anything else (an exception, another live thread) exits the usual way."""
    code = main()
    run_exit_callbacks = getattr(atexit, "_run_exitfuncs", None)
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if run_exit_callbacks is None or others:
        sys.exit(code)
    run_exit_callbacks()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: what was lost is lost either way
            pass
    os._exit(code)


def _store(args: argparse.Namespace) -> Path:
    from ..store.location import resolve_store

    return resolve_store(args.dir)


def _dispatch(args: argparse.Namespace) -> int:
    handler = globals().get(f"_cmd_{args.command}")
    if handler is None:
        raise UsageError(f"unknown command {args.command!r}")
    return int(handler(args))


def _cmd_run(args: argparse.Namespace) -> int:
    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise UsageError("no command given; usage: whetstone run [--phase NAME] [--timeout S] -- CMD...")
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    command: list[str] | str = " ".join(cmd) if args.shell else cmd
    from ..audience import is_agent_environment
    from ..process import signals_interrupt

    agent = is_agent_environment() if args.agent is None else args.agent
    with signals_interrupt():
        # The command starts first; the core (record types, configuration, analysis) loads while it runs.
        launched = _launch(command, args, echo=not agent)
        try:
            core = _import_core(launched)
        except BaseException:
            if launched is not None:
                launched.running.stop(signal.SIGTERM)
                launched.log_path.unlink(missing_ok=True)
            raise
        outcome = core.run(command, phase=args.phase, timeout=args.timeout, store=launched.session.store if launched
                           else _store(args), session_id=args.session, shell=args.shell, agent=agent,
                           search=args.search, launched=launched)
    return outcome.exit_code


def _import_core(launched: Launched | None) -> ModuleType:
    """The core, imported while the command runs.  A SIGTERM, SIGHUP or SIGINT that lands meanwhile is
    kept on ``launched`` (the import is begun again: a module whose execution was interrupted is not
    kept), and the run acts on it once it can judge it, so the verdict is still printed last."""
    from ..process import Interrupted

    for _ in range(3):
        try:
            from .. import core

            return core
        except (Interrupted, KeyboardInterrupt) as exc:
            if launched is None:
                raise
            launched.pending_signal = exc.signum if isinstance(exc, Interrupted) else signal.SIGINT
    from .. import core

    return core


def _launch(command: list[str] | str, args: argparse.Namespace, *, echo: bool) -> Launched | None:
    """The command started in its session; None when that failed (the run then fails inside the core,
    where it is judged and ends with a verdict)."""
    from ..launch import launch

    try:
        return launch(command, cwd=Path.cwd().resolve(), store=_store(args), session_id=args.session,
                      shell=args.shell, echo=echo, timeout=args.timeout, phase=args.phase or "")
    except Exception:  # noqa: BLE001 - judged by the core's own attempt
        return None


def _cmd_parse(args: argparse.Namespace) -> int:
    from ..config import ConfigError, load_config
    from ..parse import iter_parse_file
    from ..parse.stream import write_json, write_jsonl

    if args.file != "-" and not Path(args.file).is_file():
        raise UsageError(f"no such file: {args.file}")
    try:
        config = load_config()
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    try:
        stream = iter_parse_file(args.file, args.tool, cwd=args.cwd, config=config)
    except (OSError, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    # Records are written as they are completed: memory does not grow with the log.
    writer = write_jsonl if getattr(args, "format", "json") == "jsonl" else write_json
    try:
        with stream:
            writer(stream, sys.stdout)
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise
        raise UsageError(str(exc)) from exc
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from .. import core

    store = _store(args)
    if not args.paths:
        _ingest_captures(store)
    sources = [Path(p) for p in args.paths] if args.paths else [store]
    text, code = core.report(sources, args.session, args.format, args.output, exit_code=args.exit_code)
    if text:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return code


def _ingest_captures(store: Path) -> None:
    """Fold in what ccwrap captured since the last run, so the report shows the build now."""
    from ..store.spool import ingest_spool

    try:
        ingest_spool(store)
    except Exception as exc:  # noqa: BLE001 - a bad capture must not block the report
        sys.stderr.write(f"whetstone: warning: could not read ccwrap captures: {exc}\n")


def _cmd_apply(args: argparse.Namespace) -> int:
    from .. import core
    from ..edits import EditError

    store = _store(args)
    try:
        diff_text = core.apply(store, args.session, args.candidate_id, args.dry_run)
    except (FileNotFoundError, KeyError) as exc:
        raise UsageError(str(exc).strip("'\"")) from exc
    except EditError as exc:  # refused: outside the workspace, file changed, overlap, manual
        sys.stderr.write(f"whetstone apply: refused: {exc}\n")
        return 1
    sys.stdout.write(diff_text if diff_text.endswith("\n") or not diff_text else diff_text + "\n")
    return 0


def _cmd_undo(args: argparse.Namespace) -> int:
    from .. import core
    from ..edits import EditError

    store = _store(args)
    try:
        message = core.undo(store, args.session, force=args.force)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from exc
    except EditError as exc:
        sys.stderr.write(f"whetstone undo: refused: {exc}\n")
        return 1
    sys.stdout.write(message + "\n")
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    from ..store.sessions import load_session

    store = _store(args)
    try:
        session = load_session(store, args.session_id)
    except (FileNotFoundError, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    state = session.state()
    summary = {
        "session_id": session.session_id,
        "status": state.status,
        "attempts": len(state.attempts),
        "gap_trend": [g.current for g in state.gaps],
        "build_errors": len(state.failing_errors()),
        "test_failures": len([f for f in state.test_failures if not f.flaky]),
        "candidates": len(state.current_candidates()),
        "unchecked_files": state.unchecked_files,
    }
    from .fix import loop_status

    summary.update(loop_status(store, session.session_id))
    sys.stdout.write(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    return 0


def _cmd_fix(args: argparse.Namespace) -> int:
    from .fix import cmd_fix

    return cmd_fix(args, _store(args))


def _cmd_start(args: argparse.Namespace) -> int:
    from .fix import cmd_start

    return cmd_start(args, _store(args))


def _cmd_step(args: argparse.Namespace) -> int:
    from .fix import cmd_step

    return cmd_step(args, _store(args))


def _cmd_mcp(args: argparse.Namespace) -> int:
    if args.dir:
        import os

        # the server's tools resolve every workspace's store; --dir names one for all of them
        os.environ["WHETSTONE_DIR"] = str(_store(args))
    try:
        from ..agent.server import main as mcp_main
    except ImportError as exc:
        raise UsageError(f"the MCP server needs the [mcp] extra: pip install 'whetstone[mcp]' ({exc})") from exc
    return int(mcp_main() or 0)


def _cmd_compdb(args: argparse.Namespace) -> int:
    from ..build.compdb import write_compile_commands

    try:
        count = write_compile_commands(_store(args), args.output)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror}") from exc
    if not count:
        sys.stderr.write("whetstone compdb: warning: no compile commands recorded (build once through ccwrap)\n")
    sys.stderr.write(f"whetstone compdb: {count} entries -> {args.output}\n")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from ..demo import run_demo

    return run_demo(keep=args.keep)


if __name__ == "__main__":
    sys.exit(main())
