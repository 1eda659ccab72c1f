"""One mutant: a small edit that may undo a one-token slip, and the priors that rank them.

Shared by the Python search (:mod:`.mutants`, libcst) and the C/C++/JS search
(:mod:`.native_mutants`, tree-sitter), so both rank by the same likelihoods.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..records import TextEdit

# Prior likelihood that each edit undoes a one-token slip.  Flipping an operator
# back outranks wrapping the condition in `not` (both may pass, only the flip
# restores the code); removing an existing `not` outranks adding one.
PRIOR = {
    "cmp-boundary": 0.9,  # < <-> <=, > <-> >=
    "cmp-flip": 0.88,  # == <-> !=, is <-> is not, in <-> not in
    "remove-not": 0.87,
    "off-by-one": 0.85,  # an integer literal +-1, a range()/slice bound +-1
    "drop-one": 0.82,  # `e + 1` / `e - 1` -> `e`
    "return-expected": 0.8,
    "bool-const": 0.75,
    "arith": 0.7,
    "cmp-reverse": 0.68,  # < <-> >, <= <-> >= (kind "cmp-flip", lower prior)
    "cmp-negate": 0.52,  # < <-> >=, > <-> <= (C/C++/JS: the condition inverted)
    "boolop": 0.65,
    "bound": 0.6,  # a non-literal returned value +-1
    "swap-args": 0.6,  # two arguments of a call swapped
    "int-const": 0.55,  # 0, 1, -1, another integer of the function
    "str-const": 0.55,
    "negate": 0.5,  # add `not` to a condition
    "cmp-other": 0.46,  # == <-> <, <= ... (C/C++/JS: the rest of the relational operators)
    "arith-other": 0.45,  # + -> /, % ... (C/C++/JS: the rest of an operator's family)
    "name": 0.4,
}


@dataclass
class Mutant:
    kind: str
    description: str
    edit: TextEdit
    line: int
    prior: float
    # the lines of the whole expression it edits (a condition over two lines): the other edits there are
    # its siblings when it fixes the tests (None: its own line)
    lines: tuple[int, int] | None = None

    @functools.cached_property
    def key(self) -> tuple[str, int, int, int, int, str]:
        """Read for every plan each time the search re-orders its queue: computed once."""
        e = self.edit
        return (e.file_path, e.start.line, e.start.col, e.end.line, e.end.col, e.new_text)


def line_firsts(mutants: Iterable[Mutant], lines: Callable[[int], bool] | None = None) -> list[Mutant]:
    """Each line's first mutant in ``mutants``' order (of the ``lines`` that pass, when given): what a plan
    or a schema keeps of every line before more of any, so the schema's record of each test's lines can
    score every line (:mod:`.native_search_spectrum`)."""
    firsts: dict[int, Mutant] = {}
    for mutant in mutants:
        if lines is None or lines(mutant.line):
            firsts.setdefault(mutant.line, mutant)
    return list(firsts.values())
