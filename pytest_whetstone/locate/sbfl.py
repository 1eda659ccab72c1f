"""Spectrum-based fault localization at function granularity (Ochiai).

A spectrum maps each implementation function to (tests that failed and executed it,
tests that passed and executed it).  Built from per-test executed lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .python import function_index, is_impl_file

Spectrum = dict[tuple[str, str], tuple[int, int]]


def functions_of(lines_by_file: Mapping[str, Iterable[int]], workspace: str | None) -> set[tuple[str, str]]:
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
    counts: dict[tuple[str, str], list[int]] = {}
    for test_id, lines_by_file in per_test.items():
        slot = 0 if test_id in failed else 1
        for key in functions_of(lines_by_file, workspace):
            counts.setdefault(key, [0, 0])[slot] += 1
    return {key: (c[0], c[1]) for key, c in counts.items()}
