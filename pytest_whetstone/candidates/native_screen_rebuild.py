"""Files' schemata built in the background (:meth:`.native_screen.Screen.prepare`).

A rebuild for a later plan (:data:`.native_screen.REBUILD_MIN`) takes a big file's compile rounds: seconds
of a 20 s search (voro++'s cell.cc: two rounds of errors and a 2.4 s compile).  Its schema until then
still screens what it holds, so one trial builds the new one while the others go on screening with the
old; the mutants only the new one will hold wait for it (:meth:`Rebuild.will_cover`) rather than each
take a compile of its own.  The first schemata of the files the plan after the spectrum adds are built
the same way, one file after another, while the other trial screens what is built already
(double-conversion: up to 7 s of such compiles before the first mutant).  The search swaps each file's
new schema in between two batches once its build has ended (:meth:`.Screen.settle`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .mutant import Mutant

if TYPE_CHECKING:
    from .native_schema import Key
    from .native_screen_state import FileState


class Rebuild:
    """Files' schemata built on one ``trial``, each file's state until then kept: rel -> (old, new).
    ``build``: what builds one file's schema on a trial (:meth:`.native_screen.Screen._prepare`);
    ``notes``: the screen's notes, where a build that raised says so; past ``deadline`` no further file
    is started (the search waits for the build under way before it ends)."""

    def __init__(self, build: Callable[[str, FileState, Any], None], notes: list[str],
                 states: dict[str, tuple[FileState, FileState]], trial: Any, deadline: float = float("inf")) -> None:
        self.build = build
        self.notes = notes
        self.states = states
        self.trial = trial
        self.deadline = deadline
        self.todo = list(states)  # files not started yet, in order (the search's idle trial may take one: lend)
        self.ended: list[str] = []  # files whose build ended, in order: each is swapped in as it does
        self.taken: set[str] = set()  # ... those swapped in (see take)
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._build, daemon=True, name="whetstone-schema-rebuild")
        if not states:
            self.done.set()

    def start(self) -> None:
        self.thread.start()

    def _build(self) -> None:
        while self.lend(self.trial):
            pass

    def lend(self, trial: Any, rel: str | None = None) -> bool:
        """Build the next file not started yet on ``trial`` (the background thread's, or the search's when
        it has nothing to screen meanwhile), or ``rel`` when it is one: False when there is none."""
        with self.lock:
            if not self.todo or rel is not None and rel not in self.todo:
                return False
            rel = self.todo.pop(self.todo.index(rel) if rel is not None else 0)
        new = self.states[rel][1]
        try:
            if time.monotonic() < self.deadline:  # past it, not started: the file keeps the state it had
                self.build(rel, new, trial)
        except Exception as exc:  # noqa: BLE001 - a thread's: the old schema stays, the search goes on
            new.schema = None
            self.notes.append(f"schema of {rel}: built in the background: {type(exc).__name__}: {exc}"[:200])
        finally:
            with self.lock:
                self.ended.append(rel)
                if len(self.ended) == len(self.states):
                    self.done.set()
        return True

    def will_cover(self, mutant: Mutant) -> bool:
        """Whether ``mutant`` waits for the schema being built: offered to it, not known to fail, or of a
        file that had none yet (offered after the build started, it may still need no compile of its own
        once the schema is in, and building the file again for it would only race this build)."""
        rel = mutant.edit.file_path
        pair = self.states.get(rel)
        return pair is not None and rel not in self.taken and (mutant.key in pair[1].keys or not pair[0].ready)

    def waiting(self) -> dict[str, set[Key]]:
        """Per file not swapped in yet, the mutants that wait for its build (:meth:`will_cover`)."""
        return {rel: new.keys | (set() if old.ready else old.keys)
                for rel, (old, new) in self.states.items() if rel not in self.taken}

    def take(self) -> dict[str, FileState]:
        """The state from now on of each file whose build ended since the last take: the new one when its
        schema was built or the file had none before (tried, it is not tried again), else the old one,
        which goes on screening what it held."""
        out: dict[str, FileState] = {}
        for rel in [rel for rel in list(self.ended) if rel not in self.taken]:
            self.taken.add(rel)
            old, new = self.states[rel]
            old.rebuilds = new.rebuilds  # a build that failed counts: not tried on and on
            out[rel] = new if new.schema is not None or not old.ready else old
        return out

    def finish(self) -> dict[str, FileState]:
        """Wait for the build; :meth:`take` of the files not taken yet."""
        self.thread.join()
        self.done.wait()  # a file the search's own trial builds (lend) ends on the search's thread
        return self.take()

    def over(self) -> bool:
        """Whether every file's build ended and was taken."""
        return self.done.is_set() and len(self.taken) == len(self.states)
