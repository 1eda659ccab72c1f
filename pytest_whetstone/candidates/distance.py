"""How far apart two names are: the typo distance every near-name suggestion uses (C, CMake and Python
alike); a module of its own so the Python generators load none of the C helpers."""

from __future__ import annotations


def levenshtein(a: str, b: str, limit: int = 3) -> int:
    """Edit distance counting a swap of two neighbours as one edit (the commonest typo:
    ``idnex``), giving up (returning limit + 1) once it must exceed limit."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, before[j - 2] + 1)
            current.append(cost)
        if min(current) > limit:
            return limit + 1
        before, previous = previous, current
    return previous[-1]
