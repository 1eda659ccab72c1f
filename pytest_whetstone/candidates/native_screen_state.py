"""One file's state in the screen (:class:`.native_screen.Screen`): the mutants offered it, its schema
once built, and what the schema's unmutated run and screened runs taught."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from .mutant import Mutant
from .native_schema import Key, Schema


@dataclass
class FileState:
    mutants: list[Mutant] = field(default_factory=list)
    keys: set[Key] = field(default_factory=set)  # of those mutants: each once, whichever failure planned it
    schema: Schema | None = None
    ready: bool = False  # built and checked on one trial (or given up: schema None)
    dropped: int = 0  # mutants left out because their line did not compile
    rejected: set[Key] = field(default_factory=set)  # mutants whose own text did not compile
    apart: set[Key] = field(default_factory=set)  # mutants of hosts whose choice did not compile: compiled alone
    # the schema's unmutated failing tests: failure id -> its signature there.  Built fast (-O0), a crash
    # or an uninitialized read may fail with other words than the real build; same tests, same verdict
    plain: dict[str, str] = field(default_factory=dict)
    # the schema's mutant ids whose expressions the failing tests ran, unmutated (None: not recorded)
    reached: set[int] | None = None
    # the whole test binaries on the unmutated schema: the tests failing there (None: not run yet, or
    # they could not be run: no mutant is judged by them then)
    wider_failed: set[str] | None = None
    wider_tried: bool = False
    wider_s: float = 0.0  # how long that run took
    timeout_s: float = 0.0  # a screened run's limit on this schema (see SCHEMA_RUN_FACTOR)
    longest_ended_s: float = 0.0  # the longest screened run of this schema that was not stopped
    probe: set[str] | None = None  # the failing tests a screened run covers (None: all; see PROBE_FLOOR_S)
    own_text: bool = False  # mutants run as their own texts, not as the schema's choices (see _own_text)
    compile_s: list[float] = field(default_factory=list)  # this file's schema compiles
    spins: int = 0  # a screened run's bound on its mutant's expression (see SPIN_FACTOR; 0: none)
    runs: dict[int, int] = field(default_factory=dict)  # a host's first id -> its count (see HOST_SPIN_FLOOR)
    skipped: frozenset[int] = frozenset()  # lines whose choices did not compile (left out of the schema)
    asked: list[Mutant] = field(default_factory=list)  # the latest plan's mutants of this file, once built
    rebuilds: int = 0  # built again for a later plan (see REBUILD_MIN)
    past_offered: bool = False  # offered the queue's mutants it does not hold (see Screen.build_past)
    # held while the schema is built on demand (a header's): another trial asking for this file waits for
    # it, one asking for another file's builds that one meanwhile (two cores, two headers' units at once)
    building: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
