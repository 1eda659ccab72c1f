"""Mutant schemata: every mutant of a C/C++ file compiled once, each one switched on at run time (JS files
get the same text, their rules in :mod:`.native_schema_js`).

Compiling a real translation unit takes seconds, running its failing tests milliseconds, so a search
that compiles one mutant at a time tries a handful in its budget.  A *schema* rewrites each mutated
expression as a choice between its mutants and the original,

    a < b   ->   ((whetstone_enter_(7, 8), whetstone_now_ == 7) ? (a <= b) : whetstone_now_ == 8 ? (a > b) : (a < b))

so one compile and one link serve every mutant of the file; ``$WHETSTONE_MUTANT`` picks one per test
run (0: none, the original code).  Where C/C++ reads only an expression's truth, each branch is
written ``!!(...)`` so a negated pointer and the pointer have one type.  Mutants whose rewrite does not
compile (a constant expression, a C static initializer, a template argument, branches whose types
disagree) are found by the expressions and lines the compiler names and left to the one-at-a-time
path (:mod:`.native_schema_errors`).  A schema only *screens*: a mutant that makes a failing test pass
there is then compiled alone, exactly as it would be applied, before it becomes a candidate
(:mod:`.native_search`).

Expressions are rewritten in place without adding lines (a prelude ends in ``#line 1``), so every
line the compiler names is a line of the user's file.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ..locate.cfamily import holds_cxx
from . import native_schema_js
from .mutant import Mutant, line_firsts
from .native_mutant_tree import parse as _parse
from .native_schema_types import cast_for

ENV = "WHETSTONE_MUTANT"  # named in PRELUDE too
MAX_SCHEMA_MUTANTS = 4000  # per file (below the prelude's REACH_SLOTS); at -O0 a choice costs the compile little
REACH_SLOTS = 4096  # mutant ids whose reach the schema can record
REACHED_ENV = "WHETSTONE_REACHED"  # named in PRELUDE too
SPINS_ENV = "WHETSTONE_SPINS"  # named in PRELUDE too
LEAST_LIKELY = 0.5  # mutants below this prior go last into a schema that cannot hold them all

# Declares getenv with the exception specification glibc's own declaration has, so no header is
# included ahead of the user's feature macros; ``#line 1`` gives the file its own line numbers back.
# A mutated expression with mutants ``lo``..``hi`` (numbered consecutively) becomes
#     ((whetstone_enter_(lo, hi), whetstone_now_ == lo) ? (m1) : whetstone_now_ == lo + 1 ? (m2) : (orig))
# ``whetstone_enter_`` reads ``$WHETSTONE_MUTANT`` once, on first use (so a static initializer that
# runs first still sees it), and each choice is one relaxed load (a plain move on x86) and a compare:
# at -O0 a function call per choice made numeric loops, with a choice in every operation, run many
# times slower than the real build.  With ``$WHETSTONE_REACHED`` naming a file, ``whetstone_enter_``
# also appends each id whose expression ran (4 bytes, native order), once per process: which mutants
# the failing tests can reach at all (an atomic flag per id: a sanitized threaded test sees no race).
# It writes through raw system calls (x86-64 Linux; no libc declaration that could clash with the
# user's), opened by a constructor that writes id 0, so an empty file means "nothing reached" and a
# missing one "not recorded here"; a destructor appends -1 and how many times any mutated expression
# ran (two words, low first), then -2, a host's first id and how many times that host ran (two words)
# for each host that ran, when the process ends by returning from main or calling exit.
# With ``$WHETSTONE_SPINS`` set to N > 0, the switched-on mutant's expression running more than N times
# kills the process group (SIGKILL, so no core file lands in the user's tree): a mutated loop condition
# or step that never ends is stopped within milliseconds, not at the run's time limit (the caller reads
# that death as a time-out, :mod:`.native_screen`).
PRELUDE = """#ifndef WHETSTONE_SCHEMA_PRELUDE
#define WHETSTONE_SCHEMA_PRELUDE
#ifdef __cplusplus
#if __cplusplus >= 201103L
extern "C" char *getenv(const char *) noexcept;
#else
extern "C" char *getenv(const char *) throw();
#endif
#else
extern char *getenv(const char *);
#endif
static int whetstone_id_ = -1;
static int whetstone_mutant_(void) {
  const char *s = getenv("WHETSTONE_MUTANT");
  int v = 0;
  while (s && *s >= '0' && *s <= '9') { v = v * 10 + (*s - '0'); ++s; }
  __atomic_store_n(&whetstone_id_, v, __ATOMIC_RELAXED);
  return v;
}
#define whetstone_now_ __atomic_load_n(&whetstone_id_, __ATOMIC_RELAXED)
#define whetstone_ready_() (whetstone_now_ < 0 ? whetstone_mutant_() : 0)
#if defined(__x86_64__) && !defined(__ILP32__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
static int whetstone_reach_fd_ = -1;
static unsigned char whetstone_seen_[@REACH_SLOTS@];
static long whetstone_sys_(long n, long a, long b, long c) {
  long r;
  __asm__ volatile ("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
  return r;
}
__attribute__((constructor)) static void whetstone_reach_open_(void) {
  const char *path = getenv("WHETSTONE_REACHED");
  long fd = path ? whetstone_sys_(2, (long)path, 01 | 0100 | 02000 | 02000000, 0600) : -1;
  int zero = 0;
  whetstone_reach_fd_ = fd >= 0 ? (int)fd : -1;
  if (whetstone_reach_fd_ >= 0) whetstone_sys_(1, whetstone_reach_fd_, (long)&zero, (long)sizeof zero);
}
static long whetstone_evals_;
static long whetstone_runs_[@REACH_SLOTS@];  /* per host, by its first id */
static int whetstone_tail_[3 + 4 * @REACH_SLOTS@];
__attribute__((destructor)) static void whetstone_reach_close_(void) {
  int n = 3, lo;
  whetstone_tail_[0] = -1;
  whetstone_tail_[1] = (int)(whetstone_evals_ & 0xffffffffL);
  whetstone_tail_[2] = (int)(whetstone_evals_ >> 32);
  for (lo = 1; lo < @REACH_SLOTS@; ++lo) {
    long runs = __atomic_load_n(&whetstone_runs_[lo], __ATOMIC_RELAXED);
    if (!runs) continue;
    whetstone_tail_[n++] = -2;
    whetstone_tail_[n++] = lo;
    whetstone_tail_[n++] = (int)(runs & 0xffffffffL);
    whetstone_tail_[n++] = (int)(runs >> 32);
  }
  if (whetstone_reach_fd_ >= 0) whetstone_sys_(1, whetstone_reach_fd_, (long)whetstone_tail_, (long)(n * sizeof(int)));
}
static long whetstone_spins_;
static long whetstone_spin_limit_ = -1;
static int whetstone_spin_(void) {
  long limit = __atomic_load_n(&whetstone_spin_limit_, __ATOMIC_RELAXED);
  if (limit < 0) {
    const char *s = getenv("WHETSTONE_SPINS");
    limit = 0;
    while (s && *s >= '0' && *s <= '9') { limit = limit * 10 + (*s - '0'); ++s; }
    __atomic_store_n(&whetstone_spin_limit_, limit, __ATOMIC_RELAXED);
  }
  if (limit > 0 && __atomic_add_fetch(&whetstone_spins_, 1, __ATOMIC_RELAXED) > limit)
    whetstone_sys_(62, 0, 9, 0); /* kill(0, SIGKILL): the whole process group */
  return 0;
}
static int whetstone_reach_(int lo, int hi) {
  int id;
  for (id = lo; id <= hi && id < @REACH_SLOTS@; ++id)
    if (!__atomic_exchange_n(&whetstone_seen_[id], (unsigned char)1, __ATOMIC_RELAXED))
      whetstone_sys_(1, whetstone_reach_fd_, (long)&id, (long)sizeof id);
  return 0;
}
/* counts, not exact under threads: a relaxed load and store (no locked add), inline (no call at -O0) */
#define whetstone_count_(v) __atomic_store_n(&(v), __atomic_load_n(&(v), __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED)
#define whetstone_seen_at_(lo) \
  ((lo) < @REACH_SLOTS@ ? (whetstone_count_(whetstone_runs_[lo]), __atomic_load_n(&whetstone_seen_[lo], __ATOMIC_RELAXED)) : 0)
/* a host's ids are marked together: its first says it ran before */
#define whetstone_mark_(lo, hi) \
  (whetstone_count_(whetstone_evals_), whetstone_seen_at_(lo) ? 0 : whetstone_reach_(lo, hi))
#define whetstone_enter_(lo, hi) ((whetstone_reach_fd_ >= 0 ? whetstone_mark_(lo, hi) : 0), whetstone_ready_(), \
  ((unsigned)(whetstone_now_ - (lo)) <= (unsigned)((hi) - (lo)) ? whetstone_spin_() : 0))
#else
#define whetstone_enter_(lo, hi) whetstone_ready_()
#endif
#endif
#line 1
""".replace("@REACH_SLOTS@", str(REACH_SLOTS))

# Nodes a mutant's edit may be lifted to: each is an expression whose value the choice can stand for.
_HOSTS = {
    "binary_expression", "unary_expression", "update_expression", "assignment_expression", "call_expression",
    "parenthesized_expression", "conditional_expression", "number_literal", "true", "false", "string_literal",
    "char_literal", "field_expression", "subscript_expression", "cast_expression", "pointer_expression",
    "condition_clause", "sizeof_expression",
}
_NAMES = {"identifier", "qualified_identifier"}  # expressions only where their parent reads a value


Key = tuple[str, int, int, int, int, str]  # Mutant.key


@dataclass
class Schema:
    """A file's text with its mutants behind run-time choices."""

    rel: str
    text: str
    ids: dict[Key, int]  # mutant key -> its $WHETSTONE_MUTANT value
    lines: dict[int, list[Key]] = field(default_factory=dict)  # line -> the keys of its choices
    # line -> (first byte column, past the last, mutant key) of each choice's own text, so an error the
    # compiler names by line and column is one mutant's
    spans: dict[int, list[tuple[int, int, Key]]] = field(default_factory=dict)
    risky: int = 0  # choices in initializers C++ may need as constants (:func:`_constant_context`)
    host_of: dict[int, int] = field(default_factory=dict)  # mutant id -> its host's first id (a guard's ``lo``)

    # line -> (first byte column, past the last, its mutant keys) of each host's guards and choices as written
    # (not the original it ends with), so an error there (its branches' types disagree) is that host's, not
    # its whole line's; one in the original's text (`p == <a choice of 0>`) is not known to be any host's
    hosts: dict[int, list[tuple[int, int, list[Key]]]] = field(default_factory=dict)

    def at(self, line: int, col: int) -> Key | None:
        """The mutant whose text holds 1-based byte column ``col`` of ``line``."""
        return next((key for lo, hi, key in self.spans.get(line, ()) if lo <= col < hi), None)

    def host_at(self, line: int, col: int) -> list[Key]:
        """The mutants of the host whose guards and choices hold byte column ``col`` of ``line``."""
        # guards never nest: an inner host's are written inside its outer host's original text
        return next((keys for lo, hi, keys in self.hosts.get(line, ()) if lo <= col < hi), [])


@dataclass
class _Host:
    start: int  # byte offsets in the file
    end: int
    line: int  # 1-based
    bare: bool = False  # a whole JS expression statement: written without the outer parenthesis
    truth: bool = False  # C/C++ reads only its truth: every branch written as `!!(...)` (see _tests_truth)
    kind: str = ""  # C/C++: the tree node's type, which says whether a branch is cast to it (:mod:`.native_schema_types`)
    choices: list[tuple[int, bytes]] = field(default_factory=list)  # (mutant id, the host's mutated bytes)


def _likeliest(rel: str, mutants: list[Mutant], skip: frozenset[Key], skip_lines: frozenset[int]) -> list[Mutant]:
    """The mutants a schema of ``rel`` takes: all of them, or, past what one schema holds, the first in
    the plan's order (the top suspects' likeliest first) with the least likely kinds (another integer
    of the file, a name ± 1) after every other: a plan made before the spectrum holds every
    function's mutants, and a big function's long tail must not push a small one's out.  Each line's
    first mutant goes before all of those: the schema's record of what each test ran scores only the
    lines it holds a mutant of (:mod:`.native_search_spectrum`), and a line it does not score cannot
    rise in the plan made from that record."""
    eligible = list({m.key: m for m in mutants if m.edit.file_path == rel and m.key not in skip
                     and m.edit.start.line not in skip_lines}.values())
    if len(eligible) <= MAX_SCHEMA_MUTANTS:
        return eligible
    firsts = {id(m) for m in line_firsts(eligible)}
    return sorted(eligible, key=lambda m: (id(m) not in firsts, m.prior < LEAST_LIKELY))[:MAX_SCHEMA_MUTANTS]


def held_by(mutants: list[Mutant], schema: Schema | None) -> list[Mutant]:
    """The ``mutants`` ``schema`` held (all of them when None): a compile again after errors holds no
    newcomer.  Past what one schema holds, each mutant the errors left out would let the next of the
    plan in, with errors of its own, and a big file took a compile for each (voro++'s cell.cc: six
    rounds, each a `%` of two doubles or a `*` of a pointer let in where the last one was left out)."""
    return mutants if schema is None else [m for m in mutants if m.key in schema.ids]


def schema_text(rel: str, data: bytes, mutants: list[Mutant], *, skip_lines: frozenset[int] = frozenset(),
                skip: frozenset[Key] = frozenset(), risky: bool = True, first_id: int = 1) -> Schema | None:
    """The schema of ``mutants`` (all edits of file ``rel``, whose bytes are ``data``), or None when
    none of them can be lifted to an expression; ``skip_lines`` and ``skip``: lines and mutants whose
    choices did not compile; ``risky``: whether choices in initializers that C++ may need as constants
    elsewhere are in (see :func:`_constant_context`); ``first_id``: its mutants' ids start there (the
    schemata of headers compiled together, :mod:`.native_screen_group`, number theirs apart)."""
    js = native_schema_js.holds_js(rel)
    root = _parse(rel, data)
    if root is None:
        return None
    starts = _line_starts(data)
    hosts: dict[tuple[int, int], _Host] = {}
    schema = Schema(rel, "", {})
    cxx = not js and holds_cxx(rel, data)
    for mutant in _likeliest(rel, mutants, skip, skip_lines):
        edit = mutant.edit
        if mutant.key in schema.ids:
            continue
        lo, hi = _offset(data, starts, edit.start.line, edit.start.col), _offset(data, starts, edit.end.line, edit.end.col)
        if lo is None or hi is None or hi < lo:
            continue
        bare, context = False, ""
        if js:
            lifted = native_schema_js.host(root, lo, hi)
            if lifted is None:
                continue
            node, bare = lifted
        else:
            node = _host(root, lo, hi)
            if node is None or _retypes_deduced(node, data[lo:hi].decode("utf-8", "replace"), edit.new_text):
                continue
            context = _constant_context(node, data, cxx)
            if context == CONSTANT or (context == RISKY and not risky):
                continue
        start, end = node.start_byte, node.end_byte
        line = node.start_point[0] + 1
        if line in skip_lines or (not js and (_directive(data, starts, line) or not _flattens(data[start:end]))):
            continue  # the rewrite must stay outside the preprocessor
        schema.risky += context == RISKY
        host = hosts.setdefault((start, end), _Host(start, end, line, bare, truth=not js and _tests_truth(node, data),
                                                          kind="" if js else node.type))
        mid = len(schema.ids) + 1
        # a host over several lines keeps them in its original text; each mutated copy is one line (the
        # host's first), so every line the compiler names is still the user's
        host.choices.append((mid, _one_line(data[start:lo] + edit.new_text.encode("utf-8") + data[hi:end])))
        schema.ids[mutant.key] = mid
        schema.lines.setdefault(line, []).append(mutant.key)
    if not hosts:
        return None
    ordered = sorted(hosts.values(), key=lambda h: (h.start, -h.end))
    _number_by_host(ordered, schema, first_id)
    out = _Out()
    _render(data, ordered, 0, 0, len(data), out, native_schema_js.guard if js else _guard)
    body = b"".join(out.parts)
    key_of = {mid: key for key, mid in schema.ids.items()}
    starts_out = _line_starts(body)
    for lo, hi, mid in out.spans:
        line = _line_of(starts_out, lo)
        col = lo - starts_out[line - 1] + 1
        schema.spans.setdefault(line, []).append((col, col + hi - lo, key_of[mid]))
    for lo, hi, mids in out.hosts:
        line = _line_of(starts_out, lo)
        col = lo - starts_out[line - 1] + 1
        schema.hosts.setdefault(line, []).append((col, col + hi - lo, [key_of[mid] for mid in mids]))
    schema.text = ("" if js else PRELUDE) + body.decode("utf-8", "surrogateescape")
    return schema


def read_reached(path: Path) -> set[int] | None:
    """The mutant ids whose expressions ran while ``$WHETSTONE_REACHED`` named ``path`` (None when the
    schema could not record them: no file, or no constructor's mark)."""
    return read_reach(path).ids


class Reach(NamedTuple):
    """What a run with ``$WHETSTONE_REACHED`` recorded (:data:`PRELUDE`)."""

    ids: set[int] | None  # the mutant ids whose expressions ran (None: not recorded)
    evaluations: int | None  # how many times mutated expressions ran in all (None: no process ended by exit)
    runs: dict[int, int]  # a host's first id -> how many times its expression ran (hosts that ran)


def read_reach(path: Path) -> Reach:
    """What the run recorded in ``path``.  A test that starts processes of the same binary leaves a
    tail for each: the largest counts."""
    try:
        data = path.read_bytes()
    except OSError:
        return Reach(None, None, {})
    words = array("i")
    words.frombytes(data[: len(data) - len(data) % words.itemsize])
    found: set[int] = set()
    evaluations: int | None = None
    runs: dict[int, int] = {}
    at = 0
    while at < len(words):
        if words[at] == -1 and at + 2 < len(words):
            count = (words[at + 1] & 0xFFFFFFFF) | (words[at + 2] << 32)
            evaluations = max(evaluations or 0, count)
            at += 3
            continue
        if words[at] == -2 and at + 3 < len(words):
            lo, count = words[at + 1], (words[at + 2] & 0xFFFFFFFF) | (words[at + 3] << 32)
            runs[lo] = max(runs.get(lo, 0), count)
            at += 4
            continue
        found.add(words[at])
        at += 1
    return Reach(found - {0} if 0 in found else None, evaluations, runs)


class _Out:
    """The schema's bytes as they are written, and where each choice's own text landed."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.at = 0
        self.spans: list[tuple[int, int, int]] = []  # (start, end, mutant id) in the body's bytes
        self.hosts: list[tuple[int, int, list[int]]] = []  # (start, end, mutant ids): each host's guards and choices

    def put(self, data: bytes) -> None:
        self.parts.append(data)
        self.at += len(data)


def _number_by_host(hosts: list[_Host], schema: Schema, first_id: int = 1) -> None:
    """Number the mutants again from ``first_id``, each host's consecutively (its guard names its first
    and last), in the order the hosts are written."""
    renumbered: dict[int, int] = {}
    for host in hosts:
        host.choices = [(renumbered.setdefault(mid, len(renumbered) + first_id), new) for mid, new in host.choices]
    schema.ids = {key: renumbered[mid] for key, mid in schema.ids.items()}
    schema.host_of = {mid: host.choices[0][0] for host in hosts for mid, _ in host.choices}


def _guard(first: int, mid: int, last: int) -> str:
    """The test before one choice: the first of a host also reads the mutant id and marks the reach."""
    return f"(whetstone_enter_({first}, {last}), whetstone_now_ == {mid})" if mid == first else f"whetstone_now_ == {mid}"


def _render(data: bytes, hosts: list[_Host], i: int, start: int, end: int, out: _Out,
            guard: Callable[[int, int, int], str]) -> int:
    """Write ``data[start:end]`` with every host inside it (``hosts[i:]``, sorted by start, outer first)
    replaced by its choice; the index of the first host past ``end``."""
    pos = start
    while i < len(hosts) and hosts[i].start < end:
        host = hosts[i]
        if host.end > end:  # cannot happen for tree nodes; never produce a broken text
            break
        out.put(data[pos:host.start])
        begin = out.at
        out.put(b"" if host.bare else b"(")
        first, last = host.choices[0][0], host.choices[-1][0]
        truth = b"!!(" if host.truth else b"("
        original = _one_line(data[host.start:host.end]) if host.kind and not host.truth else b""
        ranged = bool(host.kind)  # C/C++: one test of the id's range first, the choices only within it
        if ranged:
            inside = f"whetstone_now_ == {first}" if first == last else \
                f"(unsigned)(whetstone_now_ - {first}) <= {last - first}u"
            out.put(f"(whetstone_enter_({first}, {last}), {inside}) ? (".encode())
        for mid, new in host.choices:
            if not ranged:
                out.put(f"{guard(first, mid, last)} ? ".encode())
            elif mid != last:
                out.put(f"whetstone_now_ == {mid} ? ".encode())
            out.put((cast_for(host.kind, original, new) if original else b"") + truth)
            out.spans.append((out.at, out.at + len(new), mid))
            out.put(new + (b")) : " if ranged and mid == last else b") : "))
        out.put(truth)
        out.hosts.append((begin, out.at, [mid for mid, _ in host.choices]))  # its guards and choices, one line
        i = _render(data, hosts, i + 1, host.start, host.end, out, guard)
        out.put(b")" if host.bare else b"))")
        pos = host.end
    out.put(data[pos:end])
    return i


def _line_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset)


def _host(root: Any, lo: int, hi: int) -> Any:
    node = root.descendant_for_byte_range(lo, hi)
    while node is not None:
        if node.start_byte <= lo and node.end_byte >= hi and _is_host(node):
            return node
        if node.type.endswith(("_statement", "declaration", "definition")) or node.type in ("compound_statement",):
            return None  # past the expression: nothing to choose between
        node = node.parent
    return None


# Where the language wants a constant: a run-time choice there does not compile (or, for a const
# local used as an array bound, fails on another line), so those mutants are compiled alone.
_CONSTANT_PARENTS = {
    "template_argument_list", "static_assert_declaration", "enumerator", "bitfield_clause", "array_declarator",
    "decltype", "preproc_if", "preproc_elif", "field_declaration", "template_parameter_list", "noexcept",
    "alignas_qualifier", "requires_clause", "attribute_specifier",
}
_CONSTANT_WORDS = re.compile(rb"\b(?:constexpr|consteval|constinit|const|static)\b")
CONSTANT = "constant"  # the language wants a constant here: a choice never compiles
RISKY = "risky"  # a choice compiles here, but C++ may use the variable where a constant is wanted
_SCOPES = ("translation_unit", "declaration_list", "field_declaration_list")


def _constant_context(node: Any, data: bytes, cxx: bool = True) -> str:
    """CONSTANT, RISKY or "" (a run-time value, the choice is safe) for the expression ``node``.

    A local ``const`` or ``static`` is run-time code: C's ``static`` local alone needs a constant
    initializer.  In C++ a ``const`` or ``static`` local of an integer type initialized by a constant
    may be used as an array bound or a template argument, and the compiler then fails on that line, which
    holds no choice to blame: such a choice is RISKY, in the first compile and left out of the next
    one when an error falls on a line without choices (:mod:`.native_screen`).  A pointer to const
    (``const char *p = data + n``) is no constant at all, nor a double, a string or a class."""
    child, cur = node, node.parent
    while cur is not None:
        kind = cur.type
        if kind in _CONSTANT_PARENTS:
            return CONSTANT
        if kind == "case_statement" and cur.child_by_field_name("value") == child:
            return CONSTANT
        if kind in ("declaration", "function_definition"):
            declarator = cur.child_by_field_name("declarator")
            head = data[cur.start_byte:declarator.start_byte if declarator is not None else cur.start_byte]
            words = set(_CONSTANT_WORDS.findall(head))
            if kind == "function_definition":
                return CONSTANT if words & {b"constexpr", b"consteval"} else ""
            if words & {b"constexpr", b"consteval", b"constinit"} or cur.parent is None or cur.parent.type in _SCOPES:
                return CONSTANT  # a constant, or a file-scope initializer
            if b"static" in words and not cxx:
                return CONSTANT
            if words and cxx and not _points(child) and _integral(cur.child_by_field_name("type"), data):
                return RISKY
            return ""
        child, cur = cur, cur.parent
    return ""


_INTEGRAL = re.compile(rb"(?:(?:std::)?(?:unsigned|signed|short|long|int|char|bool|auto|size_t|ssize_t|ptrdiff_t|"
                       rb"u?int(?:8|16|32|64|max|ptr)_t|wchar_t|char(?:8|16|32)_t)\b\s*)+")


def _integral(kind: Any, data: bytes) -> bool:
    """Whether a declaration's type may make its variable usable where a constant is wanted: an integer,
    a bool, ``auto`` (a double, a string or a class never is)."""
    return kind is not None and bool(_INTEGRAL.fullmatch(data[kind.start_byte:kind.end_byte].strip()))


def _points(declarator: Any) -> bool:
    """Whether the declarator declares a pointer or a reference (its ``const`` is the pointee's)."""
    cur = declarator.child_by_field_name("declarator") if declarator.type == "init_declarator" else declarator
    return cur is not None and cur.type in ("pointer_declarator", "reference_declarator")


_COMMENT_OR_DIRECTIVE = re.compile(rb"//|/\*|\\\r?\n|\n[ \t]*#|R\"")


def _flattens(text: bytes) -> bool:
    """Whether the host's text may be written on one line: one line already, or several with no comment,
    directive, line continuation or raw string among them (joining would change what they mean)."""
    return b"\n" not in text or not _COMMENT_OR_DIRECTIVE.search(text)


def _one_line(text: bytes) -> bytes:
    """The text with each line break (and the indentation around it) as one space."""
    return re.sub(rb"[ \t]*\r?\n[ \t]*", b" ", text) if b"\n" in text else text


_INT_LITERAL = re.compile(r"-?(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*")
_FLOAT_LITERAL = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+(?=[eE]))(?:[eE][-+]?\d+)?[fFlL]?")


def _retypes_deduced(node: Any, old: str, new: str) -> bool:
    """Whether the mutant turns an integer literal into a floating one (or back) in the initializer of an
    ``auto`` variable: the choice's type is then the wider of the two, the variable's type changes
    with it, and the compiler's errors fall where the variable is used (``x[i]``), on lines with no
    choice to blame, which would cost the whole file its schema.  The mutant is compiled alone."""
    kinds = [bool(_INT_LITERAL.fullmatch(t.strip())) - bool(_FLOAT_LITERAL.fullmatch(t.strip())) for t in (old, new)]
    if 0 in kinds or kinds[0] == kinds[1]:
        return False
    cur = node.parent
    while cur is not None and not cur.type.endswith(("_statement", "definition")):
        if cur.type == "declaration":
            kind = cur.child_by_field_name("type")
            return kind is not None and kind.type == "placeholder_type_specifier"
        cur = cur.parent
    return False


_TRUTH_OPERATORS = {"!", "&&", "||", "not", "and", "or"}


def _tests_truth(node: Any, data: bytes) -> bool:
    """Whether C/C++ reads only the truth of expression ``node``: a condition (if, while, do, for, ``?:``),
    an operand of ``!``, ``&&`` or ``||``, or a ``bool`` function's returned value.  There every branch
    of its choice is written ``!!(...)``: a negated pointer (`!node` against `node`) or a returned `1`
    against a `bool` then have one type, where a bare choice would not compile and would leave its line
    out of the schema (the negation a dropped `!` wants most of all)."""
    parent = node.parent
    if parent is None:
        return False
    kind = parent.type
    if kind in ("parenthesized_expression", "condition_clause") and parent.named_child_count == 1:
        return kind == "condition_clause" or _tests_truth(parent, data)
    if kind in ("if_statement", "while_statement", "do_statement", "for_statement", "conditional_expression"):
        return parent.child_by_field_name("condition") == node
    if kind in ("unary_expression", "binary_expression"):
        op = parent.child_by_field_name("operator")
        return op is not None and op.type in _TRUTH_OPERATORS
    if kind == "return_statement":
        fn = parent.parent
        while fn is not None and fn.type not in ("function_definition", "lambda_expression"):
            fn = fn.parent
        kind_node = fn.child_by_field_name("type") if fn is not None and fn.type == "function_definition" else None
        return kind_node is not None and data[kind_node.start_byte:kind_node.end_byte] in (b"bool", b"_Bool")
    return False


def _is_host(node: Any) -> bool:
    if node.type in _HOSTS:
        return True
    if node.type in _NAMES and node.parent is not None:
        parent = node.parent.type
        return parent.endswith("_expression") or parent in ("argument_list", "return_statement", "condition_clause")
    return False


def _directive(data: bytes, starts: list[int], line: int) -> bool:
    return data[starts[line - 1]:starts[line - 1] + 200].lstrip(b" \t").startswith(b"#")


def _line_starts(data: bytes) -> list[int]:
    starts = [0]
    at = data.find(b"\n")
    while at >= 0:
        starts.append(at + 1)
        at = data.find(b"\n", at + 1)
    return starts


def _offset(data: bytes, starts: list[int], line: int, col: int) -> int | None:
    """The byte offset of 1-based ``line`` and character column ``col`` (as the mutants count them)."""
    if not 1 <= line <= len(starts):
        return None
    begin = starts[line - 1]
    end = starts[line] - 1 if line < len(starts) else len(data)
    text = data[begin:end].decode("utf-8", errors="replace")
    if col - 1 > len(text):
        return None
    return begin + len(text[: col - 1].encode("utf-8"))
