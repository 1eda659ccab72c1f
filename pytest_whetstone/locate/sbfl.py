"""Spectrum-based fault localization at function granularity: the formulas and the spectrum.

A spectrum maps each implementation function to (tests that failed and executed it, tests that
passed and executed it), built from per-test executed lines (whole-suite ``sbfl`` mode) or from the
value-fault pass over a failing module's tests (:mod:`.pyspectra`).  Two formulas: Ochiai, and
DStar (``ef² / (ep + nf)``, Wong et al. 2014), which rewards a function every failing test ran
more than one a passing test also ran.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

Spectrum = dict[tuple[str, str], tuple[int, int]]

FORMULAS = ("ochiai", "dstar")


def ochiai(failed: int, passed: int, total_failed: int) -> float:
    denom = math.sqrt(max(total_failed, 1) * (failed + passed))
    return failed / denom if denom else 0.0


def dstar(failed: int, passed: int, total_failed: int, star: int = 2) -> float:
    """DStar, mapped into [0, 1] as ``d / (d + 1)`` so it blends with the other signals (its order is
    DStar's; a function every failing and no passing test ran scores 1)."""
    if failed <= 0:
        return 0.0
    denom = passed + max(0, total_failed - failed)
    if denom == 0:
        return 1.0
    d = failed**star / denom
    return d / (d + 1.0)


def suspiciousness(formula: str, failed: int, passed: int, total_failed: int) -> float:
    return dstar(failed, passed, total_failed) if formula == "dstar" else ochiai(failed, passed, total_failed)


def functions_of(lines_by_file: Mapping[str, Iterable[int]], workspace: str | None) -> set[tuple[str, str]]:
    """(file, qualname) of the implementation functions holding any of the lines (innermost only)."""
    from .python import function_index, is_impl_file

    out: set[tuple[str, str]] = set()
    for file, lines in lines_by_file.items():
        if not is_impl_file(file, workspace):
            continue
        index = function_index(file)
        if index is None:
            continue
        out.update((file, qual) for qual in index.functions_in_lines(lines))
    return out


def build_spectrum(
    per_test: Mapping[str, Mapping[str, Iterable[int]]],
    failed: set[str],
    workspace: str | None,
) -> Spectrum:
    """(file, qualname) -> (failed count, passed count) over the traced tests."""
    return count_spectrum({test_id: functions_of(lines, workspace) for test_id, lines in per_test.items()}, failed)


def count_spectrum(per_test: Mapping[str, Iterable[tuple[str, str]]], failed: set[str]) -> Spectrum:
    """The spectrum of per-test function sets."""
    counts: dict[tuple[str, str], list[int]] = {}
    for test_id, functions in per_test.items():
        slot = 0 if test_id in failed else 1
        for key in functions:
            counts.setdefault(key, [0, 0])[slot] += 1
    return {key: (c[0], c[1]) for key, c in counts.items()}
