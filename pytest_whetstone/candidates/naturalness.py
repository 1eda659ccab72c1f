"""How much an edited line reads like the rest of its project: a token trigram model of the sources.

The search often validates several edits the tests cannot tell apart (`count = 0` and `count = 1`,
`i < n` and `i != n`): each makes every failing test pass and breaks none.  The original code is the
likeliest of them, and code people wrote reads like the code around it -- buggy lines are measurably
less "natural" than their fixes (Ray et al., "On the naturalness of buggy code", ICSE 2016).  So the
validated fixes are ranked by how much more natural each makes its line, under an interpolated token
trigram model of the mutated file and its neighbours of the same language (the edited line and the
line either side of it left out of the counts, so the fault does not vouch for itself, nor a copy of
the next line for the copy).

A complete fix that makes its code *less* natural than the code it replaces is doubtful: a check turned
round so that it never fires, a count set to what makes the tests pass.  The search looks on for a while
after finding only such fixes (:data:`.native_search.DOUBT_TRIALS`), and a doubtful fix falls below any
complete fix that is not (:data:`DOUBT`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

from ..edits import TEXT_ERRORS, EditError, apply_edits_text
from ..records import FixCandidate, TextEdit

_TOKEN = re.compile(r"<<=|>>=|->|::|\+\+|--|<=|>=|==|!=|&&|\|\||<<|>>|[-+*/%&|^]=|[A-Za-z_]\w*|\d[\w.]*|\S")
MAX_CORPUS_BYTES = 2_000_000  # the mutated file, then its directory's files of the same kind, up to this
WEIGHT = 0.015  # how far a less natural validated fix falls below the most natural one, at most: a tie-break
DOUBT = 0.15  # how far a complete fix that makes its code less natural falls, beside one that does not
_L3, _L2, _L1 = 0.6, 0.3, 0.1  # interpolation weights: trigram, bigram, unigram (add-one)
# lines either side of an edit left out of the counts with it: a copy of the next line must not read as
# natural because the next line is there (leveldb's `if (k_ > 30) k_ = 1;` over `if (k_ > 30) k_ = 30;`)
NEIGHBOURS = 1
# a line longer than this is not scored when the search orders its mutants: a minified bundle's one line
# of thousands of tokens, read once per mutant, cost minutes (and no one wrote it to read naturally)
MAX_SCORED_LINE = 400


def tokens(line: str) -> list[str]:
    return _TOKEN.findall(line)


class TrigramModel:
    """Token n-gram counts of some source texts, lines as sentences."""

    def __init__(self, texts: list[str]) -> None:
        self.tri: Counter[tuple[str, str, str]] = Counter()
        self.ctx2: Counter[tuple[str, str]] = Counter()  # trigrams by their first two tokens
        self.bi: Counter[tuple[str, str]] = Counter()
        self.ctx1: Counter[str] = Counter()  # bigrams by their first token
        self.uni: Counter[str] = Counter()
        self.total = 0
        for text in texts:
            for line in text.splitlines():
                self._count(line, 1)

    @staticmethod
    def _grams(line: str) -> list[tuple[str, str, str]]:
        toks = ["<s>", "<s>", *tokens(line)]
        return [(toks[i - 2], toks[i - 1], toks[i]) for i in range(2, len(toks))]

    def _count(self, line: str, sign: int) -> None:
        for a, b, c in self._grams(line):
            self.tri[(a, b, c)] += sign
            self.ctx2[(a, b)] += sign
            self.bi[(b, c)] += sign
            self.ctx1[b] += sign
            self.uni[c] += sign
            self.total += sign

    def log_prob(self, text: str, *, without: str = "") -> float:
        """The log-probability of ``text``'s lines; ``without``: lines whose own counts are left out first
        (each line is a sentence, as the model counted it)."""
        return self.log_probs([text], without=without)[0]

    def log_probs(self, texts: list[str], *, without: str = "") -> list[float]:
        """:meth:`log_prob` of each of ``texts``, the lines ``without`` left out once for all of them."""
        left_out = without.splitlines()
        for line in left_out:
            self._count(line, -1)
        try:
            vocab = len(self.uni) + 1
            out: list[float] = []
            for text in texts:
                total = 0.0
                for line in text.splitlines():
                    for a, b, c in self._grams(line):
                        # counts never go below zero: a line left out that the model never read takes nothing
                        p3 = max(self.tri[(a, b, c)], 0) / self.ctx2[(a, b)] if self.ctx2[(a, b)] > 0 else 0.0
                        p2 = max(self.bi[(b, c)], 0) / self.ctx1[b] if self.ctx1[b] > 0 else 0.0
                        p1 = (max(self.uni[c], 0) + 1) / (max(self.total, 0) + vocab)
                        total += math.log(_L3 * p3 + _L2 * p2 + _L1 * p1)
                out.append(total)
            return out
        finally:
            for line in left_out:
                self._count(line, 1)


def model_for(workspace: Path, rel: str) -> TrigramModel:
    """The model of ``rel`` and the files beside it with its suffix, the file itself first."""
    path = workspace / rel
    texts: list[str] = []
    size = 0
    try:
        neighbours = sorted(p for p in path.parent.iterdir() if p.suffix == path.suffix and p != path)
    except OSError:
        neighbours = []
    for candidate in [path, *neighbours]:
        try:
            text = candidate.read_text(encoding="utf-8", errors=TEXT_ERRORS)
        except OSError:
            continue
        if size + len(text) > MAX_CORPUS_BYTES and texts:
            break
        texts.append(text)
        size += len(text)
    return TrigramModel(texts)


def edits_gain(model: TrigramModel, original: str, edits: list[TextEdit],
               lines: list[str] | None = None) -> float | None:
    """How much more natural the edits make the lines they touch (log-probability, after less before);
    None when they cannot be applied to ``original`` (``lines``: ``original`` split, when known)."""
    if not edits:
        return None
    first = min(e.start.line for e in edits)
    last = max(e.end.line for e in edits)
    lines = lines if lines is not None else original.splitlines()
    if first == last and not any("\n" in e.new_text for e in edits):
        # one line edited in place (a mutant): no need to apply the edits to the whole file
        if not 0 < first <= len(lines):
            return None
        old = new = lines[first - 1]
        for e in sorted(edits, key=lambda e: -e.start.col):
            if not 0 < e.start.col <= e.end.col <= len(old) + 1:
                return None
            new = new[:e.start.col - 1] + e.new_text + new[e.end.col - 1:]
    else:
        try:
            edited = apply_edits_text(original, edits, edits[0].file_path)
        except EditError:
            return None
        span = last - first + 1 + edited.count("\n") - original.count("\n")
        old = "\n".join(lines[first - 1:last])
        new = "\n".join(edited.splitlines()[first - 1:first - 1 + max(span, 1)])
    window = "\n".join(lines[max(first - 1 - NEIGHBOURS, 0):last + NEIGHBOURS])
    return model.log_prob(new, without=window) - model.log_prob(old, without=window)

class Naturalness:
    """Gains of candidates in one workspace: each file read and modelled once."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self._models: dict[str, TrigramModel] = {}
        self._originals: dict[str, str | None] = {}
        self._lines: dict[str, list[str]] = {}

    def gain(self, candidate: FixCandidate) -> float | None:
        """:func:`edits_gain` in the file the candidate edits, as the workspace has it; None when unreadable."""
        return self.edits_gain(candidate.edits)

    def edits_gain(self, edits: list[TextEdit]) -> float | None:
        if not edits:
            return None
        rel = edits[0].file_path
        lines = self._read(rel)
        original = self._originals[rel]
        if lines is None or original is None:
            return None
        try:
            return edits_gain(self._model(rel), original, edits, lines)
        except (ArithmeticError, ValueError, IndexError):  # a tie-break is never worth the search's candidates
            return None

    def mutant_gains(self, edits: list[TextEdit]) -> list[float | None]:
        """:func:`edits_gain` of each edit alone (one mutant each), each edited line's window left out of
        the model once for all the edits of that line: the search orders thousands of mutants by it."""
        out: list[float | None] = [None] * len(edits)
        by_line: dict[tuple[str, int], list[int]] = {}
        for i, e in enumerate(edits):
            if e.start.line == e.end.line and "\n" not in e.new_text:
                by_line.setdefault((e.file_path, e.start.line), []).append(i)
            elif e.end.line - e.start.line <= NEIGHBOURS + 1:  # a few lines at most, as a mutant edits them
                out[i] = self.edits_gain([e])
        for (rel, line), indices in by_line.items():
            lines = self._read(rel)
            if lines is None or not 0 < line <= len(lines):
                continue
            old = lines[line - 1]
            if len(old) > MAX_SCORED_LINE:
                continue
            news: list[str] = []
            for i in indices:
                e = edits[i]
                news.append(old[:e.start.col - 1] + e.new_text + old[e.end.col - 1:]
                            if 0 < e.start.col <= e.end.col <= len(old) + 1 else old)
            window = "\n".join(lines[max(line - 1 - NEIGHBOURS, 0):line + NEIGHBOURS])
            try:
                base, *after = self._model(rel).log_probs([old, *news], without=window)
            except (ArithmeticError, ValueError, IndexError):
                continue
            for i, value in zip(indices, after, strict=True):
                out[i] = value - base
        return out

    def _read(self, rel: str) -> list[str] | None:
        """``rel``'s lines as the workspace has it (None: unreadable), read once."""
        if rel not in self._originals:
            try:
                text: str | None = (self.workspace / rel).read_text(encoding="utf-8", errors=TEXT_ERRORS)
            except OSError:
                text = None
            self._originals[rel] = text
            self._lines[rel] = text.splitlines() if text is not None else []
        return self._lines[rel] if self._originals[rel] is not None else None

    def _model(self, rel: str) -> TrigramModel:
        if rel not in self._models:
            self._models[rel] = model_for(self.workspace, rel)
        return self._models[rel]

    def doubtful(self, candidate: FixCandidate) -> bool:
        """A fix that makes its code less natural than the code it replaces: the tests accept it, yet it
        reads like no line of the project (``if (old != nullptr) { ++count; grow(); }``, a check turned
        round so that it never fires).  The search looks on for another fix after it."""
        value = self.gain(candidate)
        return value is not None and value < 0


def rank_by_naturalness(found: list[FixCandidate], workspace: Path,
                        naturalness: Naturalness | None = None) -> list[FixCandidate]:
    """Complete validated fixes (every failing test passes) lose up to :data:`WEIGHT` confidence the
    less natural they make their code than the most natural of them, and :data:`DOUBT` more when they
    make it less natural than it was while another complete fix of as many failing tests does not; the
    others are left as they are.  Beyond that, a tie-break among fixes of close priors only: a copy of the line next to it
    reads naturally too."""
    complete = [c for c in found if c.validated and c.mutation.get("complete") and c.edits]
    if len(complete) < 2:
        return found
    naturalness = naturalness or Naturalness(workspace)
    gains: dict[str, float] = {}
    for cand in complete:
        value = naturalness.gain(cand)
        if value is not None:
            gains[cand.candidate_id] = value
    if len(gains) < 2:
        return found
    best = max(gains.values())

    def fixed(c: FixCandidate) -> int:
        return len(c.mutation.get("fixes") or [])

    for cand in complete:
        if cand.candidate_id in gains:
            value = gains[cand.candidate_id]
            # doubted only beside a natural fix of as many failing tests: one that fixes 1 of 4 and leaves the
            # others failing as before (complete too: another fault's, perhaps) does not outrank one that
            # fixes all 4 but reads a little worse (kiwi's `(! addWithArtificialVariable(...))`)
            sound = any(gains[o.candidate_id] >= 0 and fixed(o) >= fixed(cand)
                        for o in complete if o.candidate_id in gains)
            penalty = WEIGHT * (1 - math.exp(value - best)) + (DOUBT if value < 0 and sound else 0.0)
            cand.confidence = round(cand.confidence - penalty, 3)
            cand.mutation["naturalness"] = round(value, 3)
    return found
