#!/usr/bin/env python3
"""Record recall/precision and error_type accuracy of the build parsers.

Corpus: every ``tests/fixtures/build/<group>/<case>.log`` (exact bytes a real
tool printed) with its hand-checked label file ``<case>.json``::

    {"cwd": "/tmp/whetstone-fixtures/...", "records": [{"tool", "severity",
     "file_path", "line", "col", "error_code", "message", "error_type", ...}]}

A predicted record matches a labelled one when severity, file, line, column and
message agree.  Baselines, for comparison:

- naive regex: one record per line matching ``file:line:col: severity: msg``;
- keyword classifier: error_type from a handful of words in the message.

With ``--corpus DIR`` the logs are ``DIR/<group>/<case>.log`` instead (the held-out corpus in
``bench/heldout/build``, whose labels also declare the tool's own ``error_count`` /
``warning_count`` and each record's notes as ``{file_path, line, col, message}``); then fields
(tool, error_code, is_lint), counts and notes-as-records are scored too.

Usage: python bench/parse_quality.py [--draft] [--corpus DIR] [--out bench/results/parse_quality.md]
``--draft`` writes a label file (from the current parser) for logs that have none;
drafts must be read against the log and corrected by hand before they count.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_whetstone.parse import parse_text  # noqa: E402
from pytest_whetstone.parse.base import strip_ansi  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "build"
LABEL_FIELDS = ("tool", "severity", "file_path", "line", "col", "error_code", "message", "error_type",
                "is_lint", "symbol", "function", "translation_unit", "notes")
NAIVE = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|note): (?P<msg>.*)$")
KEYWORDS = [
    ("missing_include", ("include", "No such file")),
    ("undefined_symbol", ("undefined", "undeclared")),
    ("type_mismatch", ("type",)),
    ("syntax_error", ("expected", "syntax")),
    ("missing_dependency", ("not found", "find")),
    ("resource_limit", ("memory",)),
]


def cases(corpus: Path = FIXTURES) -> list[tuple[Path, Path]]:
    return [(log, log.with_suffix(".json")) for log in sorted(corpus.glob("*/*.log"))]


SCORED_FIELDS = ("tool", "error_code", "is_lint")


def note_dicts(record: Any) -> list[dict[str, Any]]:
    """A record's notes as dicts; a note kept as a bare string has no location to compare."""
    out = []
    for note in record.notes:
        if isinstance(note, str):
            continue
        out.append(note if isinstance(note, dict) else note.to_dict())
    return out


def note_hit(want: dict[str, Any], got: list[dict[str, Any]]) -> bool:
    for g in got:
        if (g.get("file_path"), g.get("line"), g.get("col")) != (want["file_path"], want["line"], want["col"]):
            continue
        if not want["message"] or g.get("message") == want["message"]:
            return True
    return False


def score_extras(labels: dict[str, Any], result: Any, c: dict[str, float], misses: list[str], name: str) -> None:
    """Fields, counts and notes of one log against a held-out label file."""
    by_key: dict[tuple[Any, ...], list[Any]] = {}
    for r in result.build_errors:
        by_key.setdefault(key(record_label(r)), []).append(r)
    for want in labels["records"]:
        cands = by_key.get(key(want))
        if not cands:
            continue
        got = cands.pop(0)
        for fld in SCORED_FIELDS:
            if fld in want:
                c["fields"] += 1
                ok = getattr(got, fld) == want[fld]
                c["fields_ok"] += ok
                if not ok:
                    misses.append(f"{name}: {fld} {getattr(got, fld)!r} != {want[fld]!r} at {key(want)}")
        notes = note_dicts(got)
        for n in want.get("notes", []):
            if isinstance(n, str):
                continue  # the development labels keep notes as printed lines
            c["notes"] += 1
            hit = note_hit(n, notes)
            c["notes_ok"] += hit
            if not hit:
                misses.append(f"{name}: note missed {n['file_path']}:{n['line']}:{n['col']} {n['message'][:50]!r}")
    if "error_count" in labels:
        errors = getattr(result, "reported_error_count", result.error_count)
        ok = (errors, result.warning_count) == (labels["error_count"], labels["warning_count"])
        c["counted"] += 1
        c["counts_ok"] += ok
        if not ok:
            misses.append(f"{name}: counts e/w {errors}/{result.warning_count} != "
                          f"{labels['error_count']}/{labels['warning_count']}")


def cwd_for(log: Path) -> str:
    return f"/tmp/whetstone-fixtures/{log.parent.name}_{log.stem}"


def record_label(rec: Any) -> dict[str, Any]:
    data = rec.to_dict()
    out = {k: data[k] for k in LABEL_FIELDS}
    out["fixits"] = data["fixits"]
    return out


def key(rec: dict[str, Any]) -> tuple[Any, ...]:
    return (rec["severity"], rec["file_path"], rec["line"], rec["col"], rec["message"])


def naive_records(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        m = NAIVE.match(strip_ansi(line))
        if m:
            out.append({"severity": m.group("sev"), "file_path": m.group("file"), "line": int(m.group("line")),
                        "col": int(m.group("col")), "message": m.group("msg")})
    return out


def naive_key(rec: dict[str, Any]) -> tuple[Any, ...]:
    # The naive regex cannot resolve paths or strip flags: compare on what it can see.
    return (rec["severity"], rec["file_path"].rsplit("/", 1)[-1], rec["line"], rec["col"])


def keyword_type(message: str) -> str:
    for error_type, words in KEYWORDS:
        if any(w in message for w in words):
            return error_type
    return "unknown"


def match(expected: list[Any], predicted: list[Any]) -> int:
    pool = Counter(predicted)
    hits = 0
    for k in expected:
        if pool[k] > 0:
            pool[k] -= 1
            hits += 1
    return hits


def evaluate(corpus: Path = FIXTURES) -> dict[str, Any]:
    totals: dict[str, float] = Counter()  # type: ignore[assignment]
    per_group: dict[str, dict[str, float]] = {}
    misses: list[str] = []
    for log, label in cases(corpus):
        if not label.exists():
            continue
        labels = json.loads(label.read_text())
        data = log.read_bytes()
        result = parse_text(data, cwd=labels.get("cwd", ""), tool=labels.get("tool", "auto"))
        got = [record_label(r) for r in result.build_errors]
        want = labels["records"]
        g = per_group.setdefault(log.parent.name, Counter())  # type: ignore[arg-type]
        hits = match([key(r) for r in want], [key(r) for r in got])
        for c in (totals, g):
            c["files"] += 1
            c["labelled"] += len(want)
            c["predicted"] += len(got)
            c["matched"] += hits
        for c, said in ((totals, misses), (g, [])):  # each mismatch listed once
            score_extras(labels, result, c, said, f"{log.parent.name}/{log.name}")
        by_key = {key(r): r for r in got}
        for r in want:
            p = by_key.get(key(r))
            if p is None:
                misses.append(f"{log.parent.name}/{log.name}: missed {key(r)}")
                continue
            if "error_type" not in r:
                continue
            for c in (totals, g):
                c["typed"] += 1
                c["type_ok"] += p["error_type"] == r["error_type"]
                c["kw_ok"] += keyword_type(r["message"]) == r["error_type"]
            if p["error_type"] != r["error_type"]:
                misses.append(f"{log.parent.name}/{log.name}: error_type {p['error_type']} != {r['error_type']}")
        for r in got:
            if key(r) not in {key(w) for w in want}:
                misses.append(f"{log.parent.name}/{log.name}: extra {key(r)}")
        text = data.decode("utf-8", "replace")
        naive = naive_records(text)
        nhits = match([naive_key(r) for r in want], [naive_key(r) for r in naive])
        for c in (totals, g):
            c["naive_predicted"] += len(naive)
            c["naive_matched"] += nhits
        if want:
            # Per-file means, so one big log cannot dominate the figures.
            typed = [r for r in want if key(r) in by_key and "error_type" in r]
            totals["m_files"] += 1
            totals["m_recall"] += hits / len(want)
            totals["m_precision"] += hits / len(got) if got else 0.0
            totals["m_naive_recall"] += nhits / len(want)
            totals["m_naive_precision"] += nhits / len(naive) if naive else 0.0
            totals["m_type"] += (sum(by_key[key(r)]["error_type"] == r["error_type"] for r in typed) / len(typed)
                                 if typed else 0.0)
            totals["m_kw"] += sum(keyword_type(r["message"]) == r.get("error_type") for r in want) / len(want)
    return {"totals": totals, "groups": per_group, "misses": misses}


def pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.1f}%" if b else "n/a"


def fpct(total: float, n: int) -> str:
    return f"{100.0 * total / n:.1f}%" if n else "n/a"


def heldout_report(res: dict[str, Any], corpus: Path) -> str:
    t = res["totals"]
    heldout = any(part.startswith("heldout") for part in corpus.parts)
    lines = [
        f"# Build parser quality, {'held-out' if heldout else 'development'} corpus",
        "",
        f"Corpus: `{corpus.relative_to(ROOT)}` (real tools on code bases "
        + ("the parsers were not developed against; see its capture script and truth script). Regenerate with"
           if heldout else "no other corpus uses; see its capture.py and draft_labels.py). Regenerate with"),
        f"`python bench/parse_quality.py --corpus {corpus.relative_to(ROOT)} --out ...`.",
        "",
        f"Files: {t['files']}, labelled records: {t['labelled']}, labelled notes: {t['notes']}.",
        "",
        "| | recall | precision | fields (tool, error_code, is_lint) | counts = tool's tally | notes as records |",
        "|---|---|---|---|---|---|",
        f"| whetstone | {pct(t['matched'], t['labelled'])} | {pct(t['matched'], t['predicted'])} "
        f"| {pct(t['fields_ok'], t['fields'])} | {pct(t['counts_ok'], t['counted'])} | {pct(t['notes_ok'], t['notes'])} |",
        f"| naive regex | {pct(t['naive_matched'], t['labelled'])} | {pct(t['naive_matched'], t['naive_predicted'])}"
        " | - | - | - |",
        "",
        "| group | files | records | recall | precision | fields | counts | notes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, g in sorted(res["groups"].items()):
        lines.append(
            f"| {name} | {g['files']} | {g['labelled']} | {pct(g['matched'], g['labelled'])} "
            f"| {pct(g['matched'], g['predicted'])} | {pct(g['fields_ok'], g['fields'])} "
            f"| {pct(g['counts_ok'], g['counted'])} | {pct(g['notes_ok'], g['notes'])} |")
    return "\n".join(lines) + "\n"


def report(res: dict[str, Any]) -> str:
    t = res["totals"]
    lines = [
        "# Build parser quality",
        "",
        "Corpus: the real captured logs in `tests/fixtures/build/` (gcc 12, clang 14, clang-tidy 14, tsc 5.6, GNU ld 2.40, gold 1.16,",
        "lld 14, mold 1.10, cmake 3.25, make 4.3), each with a hand-checked label file.",
        "Regenerate with `python bench/parse_quality.py`.",
        "",
        f"Files: {t['files']}, labelled records: {t['labelled']}.",
        "",
        "| | recall | precision | error_type correct |",
        "|---|---|---|---|",
        f"| whetstone | {pct(t['matched'], t['labelled'])} | {pct(t['matched'], t['predicted'])} "
        f"| {pct(t['type_ok'], t['typed'])} |",
        f"| naive `file:line:col: severity: msg` regex | {pct(t['naive_matched'], t['labelled'])} "
        f"| {pct(t['naive_matched'], t['naive_predicted'])} | - |",
        f"| keyword classifier (on the labelled records) | - | - | {pct(t['kw_ok'], t['typed'])} |",
        "",
        f"Mean per file (files with at least one labelled record: {t['m_files']}), so the one large",
        "interleaved `make -j2` log does not dominate:",
        "",
        "| | recall | precision | error_type correct |",
        "|---|---|---|---|",
        f"| whetstone | {fpct(t['m_recall'], t['m_files'])} | {fpct(t['m_precision'], t['m_files'])} "
        f"| {fpct(t['m_type'], t['m_files'])} |",
        f"| naive regex | {fpct(t['m_naive_recall'], t['m_files'])} | {fpct(t['m_naive_precision'], t['m_files'])}"
        " | - |",
        f"| keyword classifier | - | - | {fpct(t['m_kw'], t['m_files'])} |",
        "",
        "Per format:",
        "",
        "| group | files | records | recall | precision | error_type | naive recall | naive precision |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, g in sorted(res["groups"].items()):
        lines.append(
            f"| {name} | {g['files']} | {g['labelled']} | {pct(g['matched'], g['labelled'])} "
            f"| {pct(g['matched'], g['predicted'])} | {pct(g['type_ok'], g['typed'])} "
            f"| {pct(g['naive_matched'], g['labelled'])} | {pct(g['naive_matched'], g['naive_predicted'])} |"
        )
    lines += ["", "Mismatches:", ""]
    lines += [f"- {m}" for m in res["misses"][:50]] or ["- none"]
    return "\n".join(lines) + "\n"


def draft() -> None:
    for log, label in cases():
        if label.exists():
            continue
        result = parse_text(log.read_bytes(), cwd=cwd_for(log))
        body = {"cwd": cwd_for(log), "tool": "auto", "records": [record_label(r) for r in result.build_errors]}
        label.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n")
        print(f"drafted {label.relative_to(ROOT)} ({len(body['records'])} records)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draft", action="store_true", help="write draft labels for unlabelled logs")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "parse_quality.md"))
    ap.add_argument("--corpus", default="", help="score another corpus (held-out), e.g. bench/heldout/build")
    ap.add_argument("--misses", action="store_true", help="print per-case mismatches (not for the held-out set)")
    args = ap.parse_args()
    if args.corpus:
        corpus = Path(args.corpus).resolve()
        res = evaluate(corpus)
        text = heldout_report(res, corpus)
        if args.misses:
            text += "\nMismatches:\n\n" + "\n".join(f"- {m}" for m in res["misses"]) + "\n"
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)
        print(text)
        return 0
    if args.draft:
        draft()
        return 0
    text = report(evaluate())
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
