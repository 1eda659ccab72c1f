"""Fix candidates for build errors and test failures.

``generate(build_errors, test_failures, workspace, config)`` is the one entry
point: C/C++/CMake/linker candidates from :mod:`.build` (and :mod:`.lint` for
lint that ``-Werror`` turned into a build failure), Python and generic
test candidates from :mod:`.test`; the validated search (:mod:`.search`) runs
only when a budget is given, since it executes the project's tests; so does the search for
C/C++/JS test failures (:mod:`.native_search`, through the recorded build or a scratch copy).  Build candidates are
checked with the per-file gate when ccwrap recorded the compile commands (``.validate``).
Candidates come back ranked (validated first, then confidence, then id).  ``deadline``
(``time.monotonic()``) bounds the unvalidated Python generators: past it, the failures not reached yet
get their manual fallback alone (a default pytest run's ``locate.budget.candidates_budget``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..records import BuildErrorRecord, FixCandidate, TestFailureRecord, is_python_failure, rank_candidates
from ..verdict import is_summary

if TYPE_CHECKING:
    from ..config import Config
    from .native_search_stats import NativeSearchStats
    from .search import SearchStats
    from .validate import ValidationStats

__all__ = ["generate"]


def generate(
    build_errors: list[BuildErrorRecord],
    test_failures: list[TestFailureRecord],
    workspace: Path,
    config: Config | None = None,
    *,
    search_budget_s: float = 0.0,
    search_stats: SearchStats | None = None,
    build_stats: ValidationStats | None = None,
    native_stats: NativeSearchStats | None = None,
    store: Path | None = None,
    command: str | None = None,
    deadline: float | None = None,
) -> list[FixCandidate]:
    workspace = Path(workspace)
    out: list[FixCandidate] = []
    # make's "recipe for target failed" only repeats what failed inside it (a test binary's failures): no
    # candidate of its own, and no reason to load the build generators for it
    build_errors = [r for r in build_errors if not is_summary(r)]
    if build_errors:  # imported only when needed: a failing pytest run pays for none of the C tooling
        from .build import generate_build_candidates
        from .lint import generate_lint_candidates

        out.extend(generate_build_candidates(build_errors, workspace, config, stats=build_stats))
        out.extend(generate_lint_candidates(build_errors, workspace))  # lint that -Werror made fail
    if test_failures:
        if not all(map(is_python_failure, test_failures)):  # C/C++/JS locators load only for their failures
            from .native_tests import generate_native_candidates, split_native

            native, test_failures = split_native(test_failures)  # gtest/ctest/jest/tap/junit go native
            out.extend(generate_native_candidates(native, workspace, config))
            if native and search_budget_s > 0:
                from .native_search import native_search_candidates

                out.extend(native_search_candidates(native, workspace, search_budget_s, store=store, command=command,
                                                    stats=native_stats))
        if test_failures:  # the Python generators load only for failures left to them
            from ..verdict import is_source_load_error
            from .pysource_errors import source_error_candidates
            from .python_tests import generate_test_candidates

            for failure in [t for t in test_failures if is_source_load_error(t)]:
                out.extend(source_error_candidates(failure, workspace))  # the code under test does not load
            test_failures = [t for t in test_failures if not is_source_load_error(t)]
            out.extend(generate_test_candidates(test_failures, workspace, config, deadline=deadline))
        if search_budget_s > 0 and (test_failures or search_stats is not None):
            # the Python search (libcst, the Python mutants) loads only for failures left to it, or for a
            # caller that reads what it did
            from .search import search_candidates

            out.extend(search_candidates(test_failures, workspace, search_budget_s, stats=search_stats))
    unique: dict[str, FixCandidate] = {}
    for cand in out:
        unique.setdefault(cand.candidate_id, cand)
    return rank_candidates(list(unique.values()))
