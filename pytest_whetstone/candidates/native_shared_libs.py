"""The project's own shared libraries relinked around a mutant's scratch objects.

A test binary that loads the mutated code from a shared library the build made (``libfoo.so``) is run
unchanged, with that library relinked under ``objdir/lib`` under its own file names and found there
through LD_LIBRARY_PATH (:mod:`.native_trial_cxx`).  The links are the ones ccwrap recorded; where a
compiler launcher recorded none, the build system's own commands (ninja, CMake's ``link.txt``).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..build.compdb import Command, CompileDatabase
from ..build.gate import _relink_args
from ..build.linkinfo import is_shared, shared_links_for_object
from .native_link_objects import quiet


def link_inputs(link: Command) -> list[str]:
    """The real paths of a link's inputs (its objects, archives and libraries named by path)."""
    return [os.path.realpath(os.path.join(link.directory, a)) for a in link.arguments[1:] if not a.startswith("-")]


class SharedLibraries:
    def __init__(self, db: CompileDatabase, workspace: Path, timeout_s: float) -> None:
        self.db = db
        self.workspace = workspace
        self.timeout_s = timeout_s
        self.obj_dirs: dict[str, str] = {}  # real object -> the directory its compile ran in
        self._links_of: dict[str, list[Command]] = {}  # real object -> the build's own .so links of it

    def relink(self, replaced: dict[str, str], objdir: Path) -> set[str] | str:
        """Project shared libraries built from a replaced object, relinked into ``objdir/lib``: their real
        paths (and the names the links gave them), or why one did not link."""
        done: set[str] = set()
        links = list(self.db.links())
        if not any(is_shared(link) for link in links):
            # a compiler launcher recorded no link: the build system's own commands (ninja, link.txt)
            for real_obj in replaced:
                if real_obj not in self._links_of:
                    self._links_of[real_obj] = shared_links_for_object(
                        real_obj, self.obj_dirs.get(real_obj, str(self.workspace)))
                links += self._links_of[real_obj]
        for link in links:
            if not link.output or not is_shared(link):
                continue
            real = os.path.realpath(os.path.join(link.directory, link.output))
            if real in done or not any(r in replaced for r in link_inputs(link)):
                continue
            libdir = objdir / "lib"
            libdir.mkdir(exist_ok=True)
            args = _relink_args(link, replaced, [], libdir / Path(real).name)
            code, output = quiet(args, link.directory, max(60.0, self.timeout_s))
            if code != 0:
                return f"does not link: {output.strip().splitlines()[-1][:200] if output.strip() else f'exit {code}'}"
            for alias in {Path(link.output).name, Path(real).name} - {Path(real).name}:
                (libdir / alias).symlink_to(Path(real).name)
            done.add(real)
            done.add(os.path.join(os.path.dirname(real), Path(link.output).name))
        return done
