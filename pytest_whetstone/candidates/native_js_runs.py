"""The JavaScript side of a native trial: which runner a test command uses, the argv that re-runs only
some tests, and what each run said, per test (:mod:`.native_trial_js` owns the scratch copy and the
protocol).

Every runner is read through a machine format, never its console text: Jest and vitest ``--json
--outputFile``, ``node --test`` a small reporter module writing one JSON event a line, mocha its ``json``
reporter, tape / node-tap the TAP a test file prints (``not ok N desc`` with its YAML block).
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..parse.tap import parse_yaml_block, test_frame

KINDS = ("jest", "vitest", "mocha", "node-test", "tape")
SIG_MAX = 240

# One JSON object a line: the events ``node --test`` reports, with what a trial needs of each.
NODE_REPORTER = r"""
export default async function* reporter(source) {
  for await (const event of source) {
    const d = event.data || {};
    if (event.type === 'test:stderr') {
      yield JSON.stringify({ type: event.type, file: d.file || '', message: String(d.message) }) + '\n';
      continue;
    }
    if (!['test:start', 'test:pass', 'test:fail'].includes(event.type)) continue;
    const det = d.details || {};
    let err = det.error;
    if (err && err.cause && typeof err.cause === 'object') err = err.cause;
    let message;
    if (err) {
      const name = err.name && err.name !== 'Error' ? err.name + ': ' : '';
      message = name + String(err.message === undefined ? err : err.message);
    }
    yield JSON.stringify({
      type: event.type, name: String(d.name), nesting: d.nesting, file: d.file || '',
      skip: Boolean(d.skip || d.todo), suite: det.type === 'suite', message,
    }) + '\n';
  }
}
"""


@dataclass
class RunResult:
    """One run, read per test: (test file, title parts) -> passed, or the failure's signature."""

    passed: set[tuple[str, str]] = field(default_factory=set)
    failed: dict[tuple[str, str], str] = field(default_factory=dict)
    file_errors: dict[str, str] = field(default_factory=dict)  # a test file that did not load
    files: list[str] = field(default_factory=list)  # test files that ran
    sites: dict[tuple[str, str], set[int]] = field(default_factory=dict)  # TAP: the lines a failure was made at
    ok: bool = False  # the run as a whole passed
    note: str = ""  # why the output could not be read


def title_key(parts: list[str]) -> str:
    return "\x1f".join(p.strip() for p in parts)


def signature(message: str, scratch: str = "") -> str:
    """How a test fails, short: the message up to its stack or code frame, whitespace collapsed."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", message)
    if scratch:
        text = text.replace(scratch.rstrip("/") + "/", "")
    keep: list[str] = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("at ") or re.match(r"^>?\s*\d+ \|", s) or s.startswith("|"):
            break
        if s:
            keep.append(s)
    return " ".join(" ".join(keep).split())[:SIG_MAX]


def error_line(message: str, scratch: str = "") -> str:
    """A file that did not load: its ``SyntaxError: ...`` (or other error) line, else the signature."""
    for line in re.sub(r"\x1b\[[0-9;]*m", "", message).splitlines():
        s = line.strip()
        if re.match(r"^[A-Z]\w*(?:Error|Exception)\b:", s):
            return (s.replace(scratch.rstrip("/") + "/", "") if scratch else s)[:SIG_MAX]
    return signature(message, scratch)


# --------------------------------------------------------------------------- the command


@dataclass
class Command:
    """What the user's test command says: the runner, its flags worth keeping, its test paths."""

    kind: str = ""
    flags: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    node_flags: list[str] = field(default_factory=list)  # ``node --require x --test``

    @property
    def requires(self) -> list[str]:
        """The modules the runner loads before the test files (tape's ``-r x``)."""
        return [value for flag, value in zip(self.flags, self.flags[1:], strict=False) if flag in ("-r", "--require")]


_RUNNER_NAMES = {"jest": "jest", "vitest": "vitest", "mocha": "mocha", "_mocha": "mocha", "tape": "tape",
                 "tap": "tape", "node": "node"}
_WRAPPERS = {"npx", "nyc", "c8", "cross-env", "env", "dotenv", "pnpm", "yarn", "exec", "--"}
# Flags that would change what a trial reads, select other tests, or write into the user's tree.
_DROP = {"--watch", "--watchAll", "--coverage", "--json", "--ci", "--silent", "--verbose", "-u",
         "--updateSnapshot", "--bail", "-b", "-o", "--onlyChanged", "--listTests", "--passWithNoTests",
         "--run", "run", "--test", "--forbid-only", "--reporter", "--test-reporter", "-R", "--color",
         "--colors", "--no-color", "--watchman", "--no-watchman", "--detectOpenHandles", "--forceExit"}
_DROP_VALUE = {"-t", "--testNamePattern", "--outputFile", "--reporters", "--reporter", "-R",
               "--changedSince", "--coverageDirectory", "--grep", "-g", "--test-name-pattern",
               "--test-reporter", "--test-reporter-destination", "--cacheDirectory", "--shard"}
_KEEP_VALUE = {"--config", "-c", "--selectProjects", "--env", "--testEnvironment", "--rootDir", "--roots",
               "--maxWorkers", "-w", "--require", "-r", "--import", "--loader", "--experimental-loader",
               "--timeout", "--ui", "--file", "--extension", "--setupFiles", "--dir", "--root", "--project"}


def npm_script(tokens: list[str]) -> str:
    """``npm test`` / ``npm run x`` / ``yarn x`` / ``pnpm run x``: the script's name, else ""."""
    if not tokens or Path(tokens[0]).name not in ("npm", "yarn", "pnpm"):
        return ""
    rest = [t for t in tokens[1:] if not t.startswith("-")]
    if not rest:
        return "test" if Path(tokens[0]).name == "yarn" else ""
    if rest[0] in ("test", "t", "tst"):
        return "test"
    if rest[0] in ("run", "run-script") and len(rest) > 1:
        return rest[1]
    return rest[0] if Path(tokens[0]).name in ("yarn", "pnpm") and rest[0] not in ("install", "add") else ""


def read_command(command: str, workspace: Path, depth: int = 0) -> Command:
    """The runner and flags in ``command``, through npm scripts (a few levels) and wrappers."""
    try:
        tokens = shlex.split(command)
    except ValueError:
        return Command()
    for segment in _segments(tokens):
        script = npm_script(segment)
        body = _scripts(workspace).get(script, "") if script and depth < 4 else ""
        found = read_command(body, workspace, depth + 1) if body else _read_segment(segment)  # yarn jest
        if found.kind:
            return found
    return Command()


def _scripts(workspace: Path) -> dict[str, str]:
    try:
        data = json.loads((workspace / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in scripts.items()} if isinstance(scripts, dict) else {}


def _segments(tokens: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for t in tokens:
        if t in ("&&", "||", ";", "|"):
            out.append([])
        else:
            out[-1].append(t)
    return [s for s in out if s]


def _read_segment(tokens: list[str]) -> Command:
    i = 0
    while i < len(tokens) and (re.match(r"^[A-Za-z_]\w*=", tokens[i]) or Path(tokens[i]).name in _WRAPPERS
                               or (i and tokens[i - 1] in ("nyc", "c8") and tokens[i].startswith("-"))):
        i += 1
    if i >= len(tokens):
        return Command()
    name = Path(tokens[i]).name
    name = re.sub(r"\.(?:c?js|mjs|cmd)$", "", name)
    kind = _RUNNER_NAMES.get(name, "")
    rest = tokens[i + 1:]
    cmd = Command()
    if kind == "node":
        j = 0
        while j < len(rest) and rest[j].startswith("-") and rest[j] != "--test":
            cmd.node_flags.append(rest[j])
            if rest[j] in _KEEP_VALUE and j + 1 < len(rest):
                cmd.node_flags.append(rest[j + 1])
                j += 1
            j += 1
        if j < len(rest) and rest[j] == "--test":
            kind = "node-test"
            rest = rest[j + 1:]
        elif j < len(rest):
            inner = _read_segment(rest[j:])  # node node_modules/.bin/jest ...
            if inner.kind:
                inner.node_flags = cmd.node_flags
                return inner
            kind = "tape"  # node test/index.js: a script that prints TAP
            rest = rest[j:]
        else:
            return Command()
    if not kind:
        return Command()
    cmd.kind = kind
    j = 0
    while j < len(rest):
        t = rest[j]
        head = t.split("=", 1)[0]
        if head in _DROP_VALUE and "=" not in t:
            j += 2
            continue
        if head in _DROP or head in _DROP_VALUE or head.startswith("--test-"):
            j += 1
            continue
        if t.startswith("-"):
            cmd.flags.append(t)
            if t in _KEEP_VALUE and j + 1 < len(rest):
                cmd.flags.append(rest[j + 1])
                j += 1
        else:
            cmd.paths.append(t)
        j += 1
    return cmd


def kind_for(runners: set[str], command: Command, workspace: Path) -> str:
    """The runner kind: the command's when it names one, else the records' runner."""
    if command.kind:
        return command.kind
    if runners == {"jest"}:
        return "jest"
    if runners == {"vitest"}:
        return "vitest"
    if runners == {"mocha"}:
        return "mocha"
    if runners == {"node"}:
        return "node-test"
    if runners == {"tap"}:
        return "tape" if (workspace / "node_modules" / ".bin" / "tape").exists() else "node-test"
    return ""


# --------------------------------------------------------------------------- reading the outputs


def read_jest_json(path: Path, root: str) -> RunResult:
    """Jest's (and vitest's) ``--json`` report."""
    out = RunResult()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        out.note = f"no JSON report ({type(exc).__name__})"
        return out
    prefix = root.rstrip("/") + "/"
    for suite in data.get("testResults", []) or []:
        name = str(suite.get("name", ""))
        rel = name[len(prefix):] if name.startswith(prefix) else name
        out.files.append(rel)
        results = suite.get("assertionResults", []) or []
        message = str(suite.get("message", "") or suite.get("failureMessage", "") or "")
        if suite.get("status") == "failed" and not any(a.get("status") == "failed" for a in results):
            out.file_errors[rel] = error_line(message.replace("Test suite failed to run", ""), root) or "failed"
        for a in results:
            ancestors = [str(t) for t in a.get("ancestorTitles", []) or [] if str(t)]  # vitest: "" for the file
            key = (rel, title_key([*ancestors, str(a.get("title", ""))]))
            if a.get("status") == "passed":
                out.passed.add(key)
            elif a.get("status") == "failed":
                out.failed[key] = signature("\n".join(map(str, a.get("failureMessages", []) or [])), root)
    out.ok = bool(data.get("success")) and not out.failed and not out.file_errors
    return out


def read_node_events(path: Path, root: str) -> RunResult:
    """The reporter's JSON lines: titles rebuilt from the ``test:start`` order (definition order)."""
    out = RunResult()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        out.note = "no test events"
        return out
    prefix = root.rstrip("/") + "/"
    stack: list[str] = []
    stderr: dict[str, list[str]] = {}  # a file's stderr: why it did not load
    for line in lines:
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        nesting = int(ev.get("nesting") or 0)
        name = str(ev.get("name", ""))
        file = str(ev.get("file", ""))
        rel = file[len(prefix):] if file.startswith(prefix) else file
        if ev.get("type") == "test:stderr":
            stderr.setdefault(rel, []).append(str(ev.get("message", "")))
            continue
        if rel and rel not in out.files:
            out.files.append(rel)
        if ev.get("type") == "test:start":
            del stack[nesting:]
            stack.append(name)
            continue
        parts = [*stack[:nesting], name]
        if nesting == 0 and (name == file or name.endswith(rel) and rel):
            if ev.get("type") == "test:fail":  # the file itself: it did not load, or exited badly
                why = "".join(stderr.get(rel, [])) or str(ev.get("message") or "failed")
                out.file_errors[rel] = error_line(why, root)
            continue
        if ev.get("skip") or ev.get("suite"):
            continue
        if ev.get("type") == "test:pass":
            out.passed.add((rel, title_key(parts)))
        else:
            out.failed[(rel, title_key(parts))] = signature(str(ev.get("message") or "failed"), root)
    return out


def read_mocha_json(text: str, root: str) -> RunResult:
    """mocha's ``json`` reporter on stdout (tests may print before it: the last ``{`` block)."""
    out = RunResult()
    start = text.rfind('{\n  "stats"')
    try:
        data = json.loads(text[start:] if start >= 0 else text)
    except ValueError:
        out.note = "no mocha JSON report"
        return out
    prefix = root.rstrip("/") + "/"
    for group, passed in (("passes", True), ("failures", False)):
        for t in data.get(group, []) or []:
            file = str(t.get("file", ""))
            rel = file[len(prefix):] if file.startswith(prefix) else file
            if rel not in out.files:
                out.files.append(rel)
            key = (rel, title_key([str(t.get("fullTitle", ""))]))
            if passed:
                out.passed.add(key)
            else:
                err = t.get("err") or {}
                out.failed[key] = signature(str(err.get("message", "") or err.get("stack", "") or "failed"), root)
    return out


_TAP_TEST = re.compile(r"^(not ok|ok)\b(?: \d+)?(?: -)? ?(.*?)(?:\s+#\s*(?:SKIP|TODO)\b.*)?$", re.I)
_TAP_SKIP = re.compile(r"#\s*(?:SKIP|TODO)\b", re.I)
_TAP_SAID = ("operator", "expected", "actual", "wanted", "found", "message")
_TAP_SUMMARY = re.compile(r"^(?:tests|pass|fail|skip|todo|ok|Subtest:)\b", re.I)
_TAP_PLAN = re.compile(r"^\s*1\.\.\d+")
# node's report of an uncaught exception that ended the process (the TAP parser's crash record)
_TAP_CRASH = re.compile(r"^(?:Uncaught )?(?:[A-Z]\w*(?:Error|Exception)|Error)(?: \[[\w.]+\])?: ")
# tape's ``at:`` line: where the failing assertion was made (``at: Test.<anonymous> (/p/test/x.js:51:4)``)
_TAP_AT = re.compile(r"^at:\s+(?:.*?\()?(?:file://)?(?P<file>[^()\s]+?):(?P<line>\d+)(?::\d+)?\)?$")


def read_tap(text: str, file: str | list[str], root: str) -> RunResult:
    """The TAP of one run (tape, node-tap, a script): every ``ok``/``not ok`` keyed by its description.

    ``file`` is what the run was given: one test file, a glob, or several files run by one process.
    A failure is keyed by the test file its ``at:`` line names when that is one of them (or the run was
    given a glob), so one process may run many files; a passing assertion has no location and counts
    for each of them.  A description that both passed and failed (tape's default "should be equal")
    is failing."""
    given = [file] if isinstance(file, str) else list(file)
    out = RunResult(files=list(given))
    prefix = root.rstrip("/") + "/"
    lines = text.splitlines()
    header, header_failed = "", False  # tape's ``# name`` of the test running, and whether it failed
    crash = ""
    for i, line in enumerate(lines):
        if line.startswith("# ") and not _TAP_SUMMARY.match(line[2:]):
            if header and not header_failed:  # a test that ran to its end: its name passed
                out.passed.update((f, title_key([header])) for f in given)
            header, header_failed, crash = line[2:].strip(), False, ""
            continue
        if _TAP_PLAN.match(line):
            crash = ""
        crashed = _TAP_CRASH.match(line)
        if crashed:
            crash = line.strip()
            continue
        m = _TAP_TEST.match(line)
        if not m or _TAP_SKIP.search(line):
            continue
        crash = ""
        title = title_key([m.group(2)])
        if m.group(1).lower() == "ok":
            out.passed.update((f, title) for f in given)
            continue
        header_failed = True
        block: list[str] = []
        for follow in lines[i + 1:i + 200]:
            if not follow.startswith(" ") or follow.strip() == "...":
                break
            block.append(follow)
        data = parse_yaml_block([b for b in block if b.strip() != "---"])
        at = _TAP_AT.match("at: " + data.get("at", "").strip())
        where = at.group("file").removeprefix(prefix) if at else ""
        site = int(at.group("line")) if at else 0
        own = test_frame(data.get("stack", "")) if at else None
        if own and own[0].removeprefix(prefix) != where:  # made in a helper the test called: the test's file
            where, site = own[0].removeprefix(prefix), own[1]
        # the values, block scalars included: a mutant that changes what the test got changes the signature
        said = [f"{k}: {data[k]}" for k in _TAP_SAID if data.get(k)]
        sig = signature(" ".join([m.group(2), *said]), root)
        if said:  # the signature collapses whitespace and is cut short: the exact values' digest keeps both
            values = [b for b in block[:next((k for k, b in enumerate(block) if b.strip().startswith(("at:", "stack:"))),
                                             len(block))]]
            exact = "\n".join(values).replace(prefix, "")
            sig = f"{sig[:SIG_MAX - 10]} #{hashlib.sha1(exact.encode('utf-8', 'replace')).hexdigest()[:8]}"
        globbed = any(_is_glob(f) for f in given)
        owners = [where] if where and (where in given or globbed) else given
        for owner in owners:
            out.failed[(owner, title)] = out.failed.get((owner, title)) or sig
            if at:
                out.sites.setdefault((owner, title), set()).add(site)
    if crash and header:  # an uncaught exception ended the run: the test that was running failed with it
        for f in given:
            out.failed[(f, title_key([header]))] = signature(crash, root)
    elif header and not header_failed and any(_TAP_PLAN.match(x) for x in lines[-8:]):
        out.passed.update((f, title_key([header])) for f in given)
    out.passed -= set(out.failed)
    return out


def _is_glob(path: str) -> bool:
    return any(c in path for c in "*?[{")


def check_error_point(output: str, path: str) -> tuple[int, int] | None:
    """Where ``node --check path`` put its syntax error: (line, 1-based byte column of the caret), or None.

    node prints ``path:LINE``, the source line, and a caret line under the offending token."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(path + ":") and line[len(path) + 1:].strip().isdigit():
            number = int(line[len(path) + 1:].strip())
            echo = lines[i + 1] if i + 1 < len(lines) else ""
            caret = lines[i + 2] if i + 2 < len(lines) else ""
            at = caret.find("^")
            if at < 0 or caret[:at].strip():
                return number, 0
            return number, len(echo[:at].encode("utf-8")) + 1
    return None


def each_file(files: list[str], run_one: Callable[[str], tuple[RunResult, str]]) -> tuple[RunResult, str]:
    """Each test file run alone (after a process that ended early), the results merged: (result, error).
    A run that timed out ends it with its error (what it said before it was stopped is kept)."""
    total = RunResult(ok=True)
    for file in files:
        one, error = run_one(file)
        total.passed |= one.passed
        total.failed.update(one.failed)
        total.sites.update(one.sites)
        total.file_errors.update(one.file_errors)
        if "timed out" in error:
            return total, error
        total.files.append(file)
        total.ok = total.ok and one.ok
    if any(f in total.file_errors for f in files) and not total.failed and not total.passed:
        return total, f"test file did not load: {next(iter(total.file_errors.values()))}"
    return total, ""
