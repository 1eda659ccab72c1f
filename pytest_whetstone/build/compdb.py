"""The compile database: the commands ccwrap recorded, read back.

ccwrap writes one small file per command into ``<store>/commands/`` (the newest
command that builds a given output from given sources in a given directory
wins), for every compile and link it runs while a store exists.  No LD_PRELOAD
is involved, so this works behind ccache and distcc.  This module reads those
files, answers "how is this source compiled / how is this object linked", and
writes ``compile_commands.json`` in the clang format.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

COMMANDS_DIR = "commands"
_DEP_FLAGS_WITH_VALUE = ("-MF", "-MT", "-MQ")


@dataclass
class Command:
    """One recorded compiler or link command, exactly as the build ran it."""

    directory: str
    arguments: list[str]
    compiler: str = ""
    family: str = ""
    sources: list[str] = field(default_factory=list)
    output: str | None = None
    is_link: bool = False
    exit_code: int = 0
    time: str = ""

    @property
    def is_compile(self) -> bool:
        """It compiles sources (a one-step `cc -o prog a.c b.c` compiles as well as links)."""
        return bool(self.sources)

    def dep_file(self) -> Path | None:
        """The make-format dependency file this command wrote (-MD/-MMD [-MF f]), if any."""
        args = self.arguments
        wants = any(a in ("-MD", "-MMD") for a in args) or any(a.startswith("-Wp,-MD,") or a.startswith("-Wp,-MMD,") for a in args)
        if not wants:
            return None
        for i, arg in enumerate(args):
            if arg == "-MF" and i + 1 < len(args):
                return Path(self.directory, args[i + 1])
            if arg.startswith("-MF") and len(arg) > 3:
                return Path(self.directory, arg[3:])
            if arg.startswith(("-Wp,-MD,", "-Wp,-MMD,")):
                return Path(self.directory, arg.split(",", 2)[2])
        if self.output:
            return Path(self.output).with_suffix(".d")
        if self.sources:
            return Path(self.directory, Path(self.sources[0]).with_suffix(".d").name)
        return None


def _load(path: Path) -> Command | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("kind") != "command" or not isinstance(data.get("arguments"), list):
            return None
        return Command(
            directory=str(data["directory"]),
            arguments=[str(a) for a in data["arguments"]],
            compiler=str(data.get("compiler") or ""),
            family=str(data.get("family") or ""),
            sources=[str(s) for s in data.get("sources") or []],
            output=data.get("output") or None,
            is_link=bool(data.get("is_link")),
            exit_code=int(data.get("exit_code") or 0),
            time=str(data.get("time") or ""),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def load_commands(store: Path | str) -> list[Command]:
    """Every recorded command, oldest first; unreadable files are skipped with one warning line."""
    directory = Path(store) / COMMANDS_DIR
    try:
        paths = sorted(p for p in directory.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    except OSError:
        return []
    out: list[Command] = []
    bad = 0
    for path in paths:
        command = _load(path)
        if command is None:
            bad += 1
        else:
            out.append(command)
    if bad:
        sys.stderr.write(f"whetstone: warning: skipped {bad} unreadable command record(s) in {directory}\n")
    return sorted(out, key=lambda c: c.time)


class CompileDatabase:
    """The recorded commands, indexed by source, output and object."""

    def __init__(self, commands: list[Command]) -> None:
        self.commands = commands
        self._by_source: dict[str, list[Command]] = {}
        self._links: list[Command] = []
        self._by_object: dict[str, Command] | None = None  # real object -> its newest compile (compile_making)
        for command in commands:  # oldest first: the newest ends last in each list
            if command.is_compile:
                for source in command.sources:
                    self._by_source.setdefault(os.path.realpath(source), []).append(command)
            if command.is_link:
                self._links.append(command)

    @classmethod
    def from_store(cls, store: Path | str) -> CompileDatabase:
        return cls(load_commands(store))

    def __bool__(self) -> bool:
        return bool(self.commands)

    def for_source(self, path: Path | str) -> list[Command]:
        """The commands that compile this source, newest first."""
        return list(reversed(self._by_source.get(os.path.realpath(path), [])))

    def sources(self) -> list[str]:
        return sorted(self._by_source)

    def links(self) -> list[Command]:
        return list(reversed(self._links))

    def link_of(self, obj: Path | str) -> Command | None:
        """The newest link command that takes this object (or archive) as an input."""
        real = os.path.realpath(obj)
        for command in self.links():
            for arg in command.arguments[1:]:
                if not arg.startswith("-") and os.path.realpath(os.path.join(command.directory, arg)) == real:
                    return command
        return None

    def compile_making(self, obj: Path | str) -> Command | None:
        """The newest compile-only command whose output is this object (a real path)."""
        if self._by_object is None:
            self._by_object = {os.path.realpath(os.path.join(c.directory, c.output)): c
                               for c in self.commands if c.output and c.is_compile and not c.is_link}
        return self._by_object.get(os.path.realpath(obj))

    def link_making(self, binary: Path | str) -> Command | None:
        """The newest recorded link whose output is this binary."""
        real = os.path.realpath(binary)
        return next((c for c in self.links()
                     if c.output and os.path.realpath(os.path.join(c.directory, c.output)) == real), None)

    def including(self, header: Path | str, limit: int = 64) -> list[Command]:
        """Compile commands whose translation unit includes this header (dependency files, else
        a scan of #include lines), at most ``limit`` of them: a header included everywhere is
        checked through a sample, not through every unit."""
        real = os.path.realpath(header)
        hits: list[Command] = []
        unknown: list[Command] = []
        for source in self.sources():
            command = self.for_source(source)[0]
            deps = _dep_headers(command)
            if deps is None:
                unknown.append(command)
            elif real in deps:
                hits.append(command)
        if unknown:
            hits.extend(_by_include_lines(unknown, real))
        return hits[:limit]

    def compile_commands(self) -> list[dict[str, object]]:
        """The clang JSON compilation database: one entry per (compile command, source)."""
        out: list[dict[str, object]] = []
        for source in self.sources():
            command = self.for_source(source)[0]
            entry: dict[str, object] = {"directory": command.directory, "arguments": command.arguments, "file": source}
            if command.output:
                entry["output"] = command.output
            out.append(entry)
        return out


def _dep_headers(command: Command) -> set[str] | None:
    """Real paths named by the command's dependency file; None when there is none to read."""
    path = command.dep_file()
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    words = text.replace("\\\n", " ").split()
    out: set[str] = set()
    for word in words:
        if word.endswith(":"):
            continue
        out.add(os.path.realpath(os.path.join(command.directory, word.replace("\\ ", " "))))
    return out


def _by_include_lines(commands: list[Command], header: str) -> list[Command]:
    """Units that #include the header by its name, directly or through other project headers."""
    name = os.path.basename(header)
    names = {name}
    hdir = os.path.dirname(header)
    # headers next to it that include it, up the whole chain (`kiwi.h` -> `solver.h` -> `solverimpl.h`:
    # Ninja folds the depfiles into its own log, so a test that includes the top one is found only so)
    siblings: dict[str, str] = {}
    try:
        for sibling in os.listdir(hdir):
            if sibling.endswith((".h", ".hh", ".hpp", ".hxx", ".inc")) and sibling != name:
                try:
                    siblings[sibling] = Path(hdir, sibling).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
    except OSError:
        pass
    grown = True
    while grown:
        grown = False
        for sibling, text in siblings.items():
            if sibling not in names and _includes(text, names):
                names.add(sibling)
                grown = True
    seen: dict[str, bool] = {}

    def reaches(path: str, depth: int) -> bool:
        """Whether ``path`` includes one of ``names``, itself or through the quoted includes found next to it
        (a test's `common.h` that includes `../cJSON.c`), a few levels deep."""
        if path in seen:
            return seen[path]
        seen[path] = False  # a cycle of includes ends here
        try:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
        targets = _include_targets(text)
        found = any(os.path.basename(t) in names for t in targets) or depth < INCLUDE_DEPTH and any(
            os.path.isfile(near := os.path.join(os.path.dirname(path), t)) and reaches(os.path.realpath(near), depth + 1)
            for t in targets)
        seen[path] = found
        return found

    return [command for command in commands if reaches(os.path.realpath(command.sources[0]), 0)]


INCLUDE_DEPTH = 3  # quoted includes followed below a unit's source when no dependency file tells


def _includes(text: str, names: set[str]) -> bool:
    return any(os.path.basename(target) in names for target in _include_targets(text))


def _include_targets(text: str) -> list[str]:
    """What the ``#include`` lines of ``text`` name, as written."""
    out = []
    for line in text.splitlines():
        stripped = line.lstrip()
        if stripped.startswith("#") and "include" in stripped:
            out.append(stripped.split("include", 1)[1].strip().strip('<>"'))
    return out


def write_compile_commands(store: Path | str, out_path: Path | str) -> int:
    """Write compile_commands.json atomically; returns how many entries it holds."""
    entries = CompileDatabase.from_store(store).compile_commands()
    out = Path(out_path)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(entries, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, out)
    return len(entries)
