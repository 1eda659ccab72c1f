"""Recall/precision of the test-runner parsers against hand-labelled real logs.

Every fixture under tests/fixtures/tests/<format>/ has a ``<log>.labels.json`` written by hand
from reading the log (see tests/fixtures/tests/labels_src.py).  A parsed record matches a label
when runner, test_suite and test_name agree; for matched records we score failure_type, and
expected/actual and file/line wherever the label has them (the log shows them).

    python bench/parse_tests_quality.py [--write]   # --write: bench/results/parse_tests_quality.md
    python bench/parse_tests_quality.py --corpus bench/heldout/tests [--out FILE]   # held-out, no per-case lines

Counts compare fail/pass/skip, and also ``error_count`` (tests that errored, pytest's ``N errors``),
``xfail_count`` and ``xpass_count`` where a label declares them.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from pytest_whetstone.parse import parse_text

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "tests"
FORMATS = ("gtest", "ctest", "pytest", "jest", "tap", "junit", "spec", "unittest")


@dataclass
class Score:
    labelled: int = 0
    parsed: int = 0
    matched: int = 0
    type_ok: int = 0
    values_labelled: int = 0
    values_ok: int = 0
    loc_labelled: int = 0
    loc_ok: int = 0
    counts_ok: int = 0
    logs: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        for name in ("labelled", "parsed", "matched", "type_ok", "values_labelled", "values_ok",
                     "loc_labelled", "loc_ok", "counts_ok", "logs"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.misses.extend(other.misses)

    @staticmethod
    def pct(a: int, b: int) -> str:
        return f"{100.0 * a / b:.1f}%" if b else "n/a"


def labelled_logs(fmt: str, corpus: Path = FIXTURES) -> list[tuple[Path, dict]]:
    out = []
    for label in sorted((corpus / fmt).glob("*.labels.json")):
        log = label.with_name(label.name[: -len(".labels.json")])
        out.append((log, json.loads(label.read_text())))
    return out


def score_log(log: Path, label: dict, tool: str = "auto") -> Score:
    result = parse_text(log.read_bytes(), tool)
    s = Score(labelled=len(label["failures"]), parsed=len(result.test_failures), logs=1)
    want: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for f in label["failures"]:
        want[(f["runner"], f["test_suite"], f["test_name"])].append(f)
    got: dict[tuple[str, str, str], list] = defaultdict(list)
    for r in result.test_failures:
        got[(r.runner, r.test_suite, r.test_name)].append(r)
    for key, labels in want.items():
        records = got.get(key, [])
        for lab, rec in zip(labels, records, strict=False):
            s.matched += 1
            s.type_ok += rec.failure_type == lab["failure_type"]
            if rec.failure_type != lab["failure_type"]:
                s.misses.append(f"{log.name}: {key[2]} type {rec.failure_type} != {lab['failure_type']}")
            for fld in ("expected_value", "actual_value"):
                if lab[fld]:
                    s.values_labelled += 1
                    ok = getattr(rec, fld) == lab[fld]
                    s.values_ok += ok
                    if not ok:
                        s.misses.append(f"{log.name}: {key[2]} {fld} {getattr(rec, fld)!r} != {lab[fld]!r}")
            if lab["file_path"]:
                s.loc_labelled += 1
                ok = (rec.file_path, rec.line) == (lab["file_path"], lab["line"])
                s.loc_ok += ok
                if not ok:
                    s.misses.append(f"{log.name}: {key[2]} at {rec.file_path}:{rec.line} != "
                                    f"{lab['file_path']}:{lab['line']}")
        if len(records) < len(labels):
            s.misses.append(f"{log.name}: missed {key} x{len(labels) - len(records)}")
    for key, records in got.items():
        extra = len(records) - len(want.get(key, []))
        if extra > 0:
            s.misses.append(f"{log.name}: extra {key} x{extra}")
    names = ["fail_count", "pass_count", "skip_count"]
    names += [n for n in ("error_count", "xfail_count", "xpass_count") if n in label]
    got_counts = [getattr(result, "test_" + n if n == "error_count" else n, 0) for n in names]
    want_counts = [label[n] for n in names]
    ok = got_counts == want_counts
    s.counts_ok += ok
    if not ok:
        s.misses.append(f"{log.name}: counts {'/'.join(names)} {got_counts} != {want_counts}")
    return s


def score_all(corpus: Path = FIXTURES) -> dict[str, Score]:
    scores = {}
    formats = FORMATS if corpus == FIXTURES else tuple(sorted(p.name for p in corpus.iterdir()
                                                              if p.is_dir() and any(p.glob("*.labels.json"))))
    for fmt in formats:
        total = Score()
        for log, label in labelled_logs(fmt, corpus):
            total.add(score_log(log, label))
        scores[fmt] = total
    return scores


def table(scores: dict[str, Score]) -> str:
    total = Score()
    rows = ["| format | logs | labelled | parsed | recall | precision | failure_type | expected/actual | file:line | counts exact |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for fmt, s in [*scores.items(), ("**all**", None)]:
        if s is None:
            s = total
        else:
            total.add(s)
        rows.append(f"| {fmt} | {s.logs} | {s.labelled} | {s.parsed} | {Score.pct(s.matched, s.labelled)} | "
                    f"{Score.pct(s.matched, s.parsed)} | {Score.pct(s.type_ok, s.matched)} | "
                    f"{Score.pct(s.values_ok, s.values_labelled)} | {Score.pct(s.loc_ok, s.loc_labelled)} | "
                    f"{s.counts_ok}/{s.logs} |")
    return "\n".join(rows)


def main() -> int:
    if "--corpus" in sys.argv:
        corpus = Path(sys.argv[sys.argv.index("--corpus") + 1]).resolve()
        text = ("# Test-runner parser quality, held-out corpus\n\n"
                f"`python bench/parse_tests_quality.py --corpus {corpus.relative_to(ROOT)}`: real runs of code bases\n"
                f"the parsers were not developed against (see {corpus.relative_to(ROOT)}'s README and truth scripts).\n\n"
                + table(score_all(corpus)) + "\n")
        print(text)
        if "--out" in sys.argv:
            Path(sys.argv[sys.argv.index("--out") + 1]).write_text(text)
        return 0
    scores = score_all()
    text = table(scores)
    print(text)
    misses = [m for s in scores.values() for m in s.misses]
    for m in misses:
        print("  -", m)
    if "--write" in sys.argv:
        out = ROOT / "bench" / "results" / "parse_tests_quality.md"
        out.write_text(
            "# Test-runner parser quality\n\n"
            "`python bench/parse_tests_quality.py --write` - every fixture in tests/fixtures/tests/ (exact bytes of\n"
            "real gtest 1.12.1, ctest 3.25, pytest 9.0, jest 29.7 / jest-junit 17, prove 3.44 (Test::More),\n"
            "node 20 `--test` (TAP and spec reporters), npm tap 21, mocha 10.7, vitest 2.1, python 3.11 unittest\n"
            "runs) against labels written by hand from reading each log.\n"
            "A record matches when runner, test_suite and test_name agree; the other columns score the\n"
            "matched records (expected/actual and file:line only where the log shows them).\n\n"
            + text + "\n\nDisagreements:\n\n" + ("\n".join(f"- {m}" for m in misses) or "- none") + "\n\n"
            "Caveat: this is the corpus the parsers were developed against, so these figures are an upper\n"
            "bound; the held-out corpus (bench/heldout/tests, other code bases) is scored in\n"
            "parse_tests_quality_heldout.md.\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
