"""Unity (ThrowTheSwitch's C test framework) as a ctest test prints it: read by :mod:`.ctest`.

Unity ends each test with one line, ``FILE:LINE:TEST:PASS``, ``FILE:LINE:TEST:FAIL`` (``FAIL: message``)
or ``FILE:LINE:TEST:IGNORE`` (``IGNORE: message``), where FILE is the test runner's source as the
compiler was given it and LINE the failing assertion's (on PASS, the line RUN_TEST was given: the call's
own in a hand-written main, the test function's in a generated runner).  A run ends with
``-----------------------``, ``N Tests N Failures N Ignored`` and ``OK`` or ``FAIL``.  The message of an
assertion is Unity's own words, optionally followed by ``. <user message>``: ``Expected 7 Was 5``,
``Expected 'abc' Was 'abd'`` (double quotes are read alike), ``Expected TRUE Was FALSE``, ``Expected
Non-NULL``, ``Element 2 Expected 7 Was 5``, ``Memory Mismatch. Byte 3 Expected 0x07 Was 0x05``,
``Values Not Within Delta 1 Expected 7 Was 5``, ``Expected 3 to be greater than 5``.

Unity writes to stdout through putchar and flushes only where a port asks it to: a binary that crashes
(a SIGSEGV) usually loses everything it printed, so its ctest record has nothing of Unity's to tell.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..lazy_pattern import lazy_pattern

# The file is everything up to the first ":LINE:" (a Windows path's drive colon is followed by no
# digits); the test is what RUN_TEST named, a C function (no colon, so a message's colons stay its own).
# What follows the kind is checked in Python: a greedy tail keeps a line of blanks linear.
_RESULT = lazy_pattern(r"^(?P<file>\S.*?):(?P<line>\d+):(?P<test>[^:\s][^:]*?):(?P<kind>PASS|FAIL|IGNORE)(?P<rest>.*)$")
_SUMMARY = lazy_pattern(r"^(\d+) Tests (\d+) Failures (\d+) Ignored\s*$")
# Unity's own words before "Expected" (arrays, memory, deltas); a user's message comes after ". ".
_EXPECTED = lazy_pattern(
    r"^(?:Memory Mismatch\. )?(?:Element \d+ )?(?:Byte \d+ )?(?:Values Not Within Delta \S+ )?Expected (?=\S)"
)
_COMPARE = lazy_pattern(r"^(?P<actual>\S+) to be (?P<op>greater|less) than (?P<eq>or equal to )?(?P<threshold>\S+?)(?:\. |$)")
_KINDS = (":PASS", ":FAIL", ":IGNORE")
_QUOTES = "'\""
_BOOLS = {"TRUE": "true", "FALSE": "false"}  # gtest's words for a boolean check: one spelling downstream
MAX_FAILURES = 200  # failures kept per binary: a test failing in a loop cannot grow memory
MAX_RAW = 40  # the test's own lines kept before its result line


@dataclass
class UnityResult:
    """One ``FILE:LINE:TEST:KIND`` line, with what the test printed before it."""

    file: str
    line: int
    test: str
    kind: str  # PASS, FAIL or IGNORE
    message: str = ""
    raw: list[str] = field(default_factory=list)


@dataclass
class UnityRun:
    """What a binary's output says in Unity's words."""

    failures: list[UnityResult] = field(default_factory=list)
    files: set[str] = field(default_factory=set)  # the test files its lines name (one, for one runner)
    last: UnityResult | None = None  # the last test Unity reported, of any kind
    summary: tuple[int, int, int] | None = None  # tests, failures, ignored: the run got to UNITY_END

    @property
    def seen(self) -> bool:
        return self.last is not None or self.summary is not None


def match_result(line: str) -> UnityResult | None:
    """A Unity result line, or None."""
    if not any(kind in line for kind in _KINDS):
        return None  # most lines: no regex at all
    m = _RESULT.match(line)
    if m is None:
        return None
    rest = m.group("rest")
    if rest[:1] not in (":", "") and rest.strip():
        return None  # "...:PASSED", "...:FAILURE": not Unity's
    return UnityResult(m.group("file"), int(m.group("line")), m.group("test").strip(), m.group("kind"),
                       rest[1:].strip() if rest[:1] == ":" else "")


def is_structure(line: str) -> bool:
    """A line a long output must keep: a failure or the run's tally (a PASS line tells nothing lost)."""
    if ":FAIL" in line:
        found = match_result(line)
        return found is not None and found.kind == "FAIL"
    return " Tests " in line and _SUMMARY.match(line) is not None


def read_run(lines: list[str]) -> UnityRun:
    """Unity's results in one binary's output (lines without ctest's ``K: `` prefix)."""
    run = UnityRun()
    since: list[str] = []  # what the test printed since the last result line
    for line in lines:
        found = match_result(line)
        if found is None:
            m = _SUMMARY.match(line) if " Tests " in line else None
            if m:
                run.summary = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
            elif line.strip() and len(since) < MAX_RAW:
                since.append(line)
            continue
        run.files.add(found.file)
        run.last = found
        if found.kind == "FAIL" and len(run.failures) < MAX_FAILURES:
            found.raw = [*since, line]
            run.failures.append(found)
        since = []
    return run


def values(message: str) -> tuple[str, str]:
    """(expected, actual) in a Unity failure message, as Unity printed them (quotes kept, as gtest's
    are); ("", "") when it shows none."""
    m = _EXPECTED.match(message)
    if m is None:
        return "", ""
    rest = message[m.end():]
    split = _split_expected(rest)
    if split is not None:
        expected, after = split
        return _bool(expected), _bool(_actual(after))
    c = _COMPARE.match(rest)
    if c:  # "Expected 3 to be greater than 5": the actual comes first
        op = (">" if c.group("op") == "greater" else "<") + ("=" if c.group("eq") else "")
        return f"{op} {c.group('threshold')}", c.group("actual")
    for word, other in (("Non-NULL", "NULL"), ("NULL", "non-NULL")):
        if rest == word or rest.startswith(word + ". "):
            return ("non-NULL" if word == "Non-NULL" else word), other
    return "", ""


def _split_expected(rest: str) -> tuple[str, str] | None:
    """The expected value and what follows " Was ": a quoted value ends at its closing quote."""
    if rest[:1] in _QUOTES:
        end = rest.find(rest[0] + " Was ", 1)
        if end >= 0:
            return rest[: end + 1], rest[end + 6 :]
    end = rest.find(" Was ")
    if end <= 0:
        return None
    return rest[:end], rest[end + 5 :]


def _actual(after: str) -> str:
    """The actual value: up to ". " (the user's message), past a quoted value's closing quote."""
    after = after.rstrip()  # an empty user message leaves ". " at the end: "Was 2."
    if after[:1] in _QUOTES and len(after) > 1:
        end = after.find(after[0] + ". ", 1)
        if end >= 0:
            return after[: end + 1]
        if after.endswith(after[0]):
            return after
    end = after.find(". ")
    if end >= 0:
        return after[:end]
    return after[:-1] if after.endswith(".") else after  # Unity prints no number ending in "."


def _bool(value: str) -> str:
    return _BOOLS.get(value, value)
