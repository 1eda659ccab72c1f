"""A file's schema built again in the background (:meth:`.native_screen.Screen.prepare`).

A rebuild for a later plan (:data:`.native_screen.REBUILD_MIN`) takes a big file's compile rounds: seconds
of a 20 s search (voro++'s cell.cc: two rounds of errors and a 2.4 s compile).  Its schema until then
still screens what it holds, so one trial builds the new one while the others go on screening with the
old; the mutants only the new one will hold wait for it (:meth:`Rebuild.will_cover`) rather than each
take a compile of its own.  The search swaps the new schema in between two batches (:meth:`.Screen.settle`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .mutant import Mutant

if TYPE_CHECKING:
    from .native_screen_state import FileState


class Rebuild:
    """Files' schemata built again on one ``trial``, each file's state until then kept: rel -> (old, new).
    ``build``: what builds one file's schema on a trial (:meth:`.native_screen.Screen._prepare`);
    ``notes``: the screen's notes, where a build that raised says so."""

    def __init__(self, build: Callable[[str, FileState, Any], None], notes: list[str],
                 states: dict[str, tuple[FileState, FileState]], trial: Any) -> None:
        self.build = build
        self.notes = notes
        self.states = states
        self.trial = trial
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._build, daemon=True, name="whetstone-schema-rebuild")

    def start(self) -> None:
        self.thread.start()

    def _build(self) -> None:
        try:
            for rel, (_old, new) in self.states.items():
                try:
                    self.build(rel, new, self.trial)
                except Exception as exc:  # noqa: BLE001 - a thread's: the old schema stays, the search goes on
                    new.schema = None
                    self.notes.append(f"schema of {rel}: built again: {type(exc).__name__}: {exc}"[:200])
        finally:
            self.done.set()

    def will_cover(self, mutant: Mutant) -> bool:
        """Whether the schema being built holds (or rejects) ``mutant``: offered to it, not known to fail."""
        pair = self.states.get(mutant.edit.file_path)
        return pair is not None and mutant.key in pair[1].keys

    def finish(self) -> dict[str, FileState]:
        """Wait for the build; each file's state from now on: the new one when its schema was built, else
        the old one, which goes on screening what it held."""
        self.thread.join()
        for old, new in self.states.values():
            old.rebuilds = new.rebuilds  # a build that failed counts: not tried on and on
        return {rel: new if new.schema is not None else old for rel, (old, new) in self.states.items()}
