#!/usr/bin/env python3
"""Draft truth for the held-out build logs, from the log text alone (never from the parsers).

Each rule below is a plain reading of one tool's documented line shapes; the drafts it writes
(``<case>.json``) were then read against each log and corrected by hand where the rule is too
simple.  Run it only to re-draft after a re-capture: ``python bench/heldout/draft_truth.py``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
CWD = "/tmp/ho/src"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
DIAG = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<sev>fatal error|error|warning|note): "
                  r"(?P<msg>.*?)(?: \[(?P<flag>[^\]\s]+)\])?$")
DRIVER = re.compile(r"^(?:gcc|g\+\+|cc1|cc1plus|clang|clang\+\+): (?P<sev>error|fatal error|warning): (?P<msg>.*)$")
# Flags and checks that are style/hygiene rather than a defect (the project's lint classes).
LINT = re.compile(r"unused|deprecated|shadow|sign-compare|parentheses|readability-|modernize-|misc-unused|"
                  r"padded|declaration-after-statement|pedantic|comment|strict-prototypes|missing-prototypes|"
                  r"cast-qual|reserved-identifier|reserved-macro|documentation|extra-semi|missing-variable|"
                  r"implicit-fallthrough|sign-conversion|conversion|newline-eof|c99|c\+\+98|long-long|"
                  r"vla|switch-enum|cast-align|undef|unsafe-buffer")


def rel(path: str, cwd: str = CWD) -> str:
    if path.startswith(cwd + "/"):
        return path[len(cwd) + 1 :]
    return path


def lint(flag: str) -> bool:
    return bool(flag) and bool(LINT.search(flag.replace("-Werror=", "")))


def compiler(lines: list[str], tool: str, cwd: str = CWD, base: str = "") -> list[dict]:
    records: list[dict] = []
    for line in lines:
        m = DIAG.match(line)
        if m:
            path = m["file"]
            if base and not path.startswith("/"):
                path = f"{base}/{path}"
            path = rel(path, cwd)
            if m["sev"] == "note":
                if records:
                    records[-1]["notes"].append({"file_path": path, "line": int(m["line"]), "col": int(m["col"]),
                                                 "message": m["msg"] + (f" [{m['flag']}]" if m["flag"] else "")})
                continue
            flag = m["flag"] or ""
            records.append({"tool": tool, "severity": "warning" if m["sev"] == "warning" else "error",
                            "file_path": path, "line": int(m["line"]), "col": int(m["col"]),
                            "message": m["msg"], "error_code": flag, "is_lint": lint(flag), "notes": []})
            continue
        d = DRIVER.match(line)
        if d:
            records.append({"tool": tool, "severity": "warning" if d["sev"] == "warning" else "error",
                            "file_path": "", "line": 0, "col": 0, "message": d["msg"], "error_code": "",
                            "is_lint": False, "notes": []})
    return records


def rec(tool: str, path: str, message: str, line: int = 0, col: int = 0, code: str = "", notes=None) -> dict:
    return {"tool": tool, "severity": "error", "file_path": rel(path), "line": line, "col": col, "message": message,
            "error_code": code, "is_lint": False, "notes": notes or []}


def linker(lines: list[str], group: str) -> list[dict]:
    out: list[dict] = []
    text = "\n".join(lines)
    if group == "bfd":
        for m in re.finditer(r"^(?:/usr/bin/ld\.bfd: )?(?P<src>[^\s:]+):\([^)]*\): (?P<msg>undefined reference to `[^']*'|"
                             r"multiple definition of `[^']*')(?:; (?P<obj>[^:]+):[^:]+:\([^)]*\): first defined here)?$",
                             text, re.M):
            notes = [{"file_path": m["obj"], "line": 0, "col": 0, "message": "first defined here"}] if m["obj"] else []
            out.append(rec("linker", m["src"], m["msg"], notes=notes))
    elif group == "gold":
        for m in re.finditer(r"^[^\s:]+:(?P<src>[^\s:]+):function [^:]+: error: (?P<msg>undefined reference to '[^']*')$",
                             text, re.M):
            out.append(rec("linker", m["src"], m["msg"]))
        for m in re.finditer(r"^/usr/bin/ld\.gold: error: (?P<obj>[^:]+): (?P<msg>multiple definition of '[^']*')\n"
                             r"/usr/bin/ld\.gold: (?P<prev>[^:]+): previous definition here$", text, re.M):
            out.append(rec("linker", m["obj"], m["msg"],
                           notes=[{"file_path": m["prev"], "line": 0, "col": 0, "message": "previous definition here"}]))
    elif group in ("lld", "mold"):
        prefix = "ld.lld" if group == "lld" else "mold"
        for m in re.finditer(rf"^{prefix}: error: undefined symbol: (?P<sym>\S+)\n>>> referenced by (?P<src>\S+)", text, re.M):
            out.append(rec("linker", m["src"], f"undefined symbol: {m['sym']}"))
        for m in re.finditer(r"^ld\.lld: error: duplicate symbol: (?P<sym>\S+)\n>>> defined at (?P<a>\S+)\n.*\n"
                             r">>> defined at (?P<b>\S+)", text, re.M):
            out.append(rec("linker", m["a"], f"duplicate symbol: {m['sym']}",
                           notes=[{"file_path": m["b"], "line": 0, "col": 0, "message": ""}]))
        for m in re.finditer(r"^mold: error: duplicate symbol: (?P<a>[^:]+): (?P<b>[^:]+): (?P<sym>\S+)$", text, re.M):
            out.append(rec("linker", m["a"], f"duplicate symbol: {m['sym']}",
                           notes=[{"file_path": m["b"], "line": 0, "col": 0, "message": ""}]))
    return out


def tsc(lines: list[str]) -> list[dict]:
    out: list[dict] = []
    plain = re.compile(r"^(?P<f>[^\s(][^(]*)\((?P<l>\d+),(?P<c>\d+)\): error (?P<code>TS\d+): (?P<msg>.*)$")
    pretty = re.compile(r"^(?P<f>[^\s:][^:]*):(?P<l>\d+):(?P<c>\d+) - error (?P<code>TS\d+): (?P<msg>.*)$")
    for line in lines:
        m = plain.match(line) or pretty.match(line)
        if m:
            out.append({**rec("tsc", m["f"], m["msg"], int(m["l"]), int(m["c"]), m["code"]), "cwd": "/tmp/ho/js"})
    for r in out:
        r.pop("cwd")
    return out


def gcc_json(text: str) -> list[dict]:
    out: list[dict] = []
    for d in json.loads(text):
        loc = d["locations"][0]["caret"]
        notes = [{"file_path": c["locations"][0]["caret"]["file"], "line": c["locations"][0]["caret"]["line"],
                  "col": c["locations"][0]["caret"]["column"], "message": c["message"]} for c in d.get("children", [])]
        flag = d.get("option", "")
        out.append({"tool": "gcc", "severity": "warning" if d["kind"] == "warning" else "error",
                    "file_path": loc["file"], "line": loc["line"], "col": loc["column"], "message": d["message"],
                    "error_code": flag, "is_lint": lint(flag), "notes": notes})
    return out


def counts(text: str, records: list[dict]) -> dict[str, int]:
    """The tool's own tally where it prints one, else the records of each severity."""
    errors = sum(r["severity"] == "error" for r in records)
    warnings = sum(r["severity"] == "warning" for r in records)
    m = re.search(r"^(?:(\d+) warnings? and )?(\d+) errors? generated\.$", text, re.M)
    w = re.search(r"^(\d+) warnings? generated\.$", text, re.M)
    if m:
        errors, warnings = int(m[2]), int(m[1] or 0)
    elif w:
        warnings = int(w[1])
    sup = re.search(r"^Suppressed (\d+) warnings", text, re.M)
    if sup:  # clang-tidy: generated minus those it did not show
        warnings -= int(sup[1])
    t = re.search(r"^Found (\d+) errors?", text, re.M)
    if t:
        errors = int(t[1])
    return {"error_count": errors, "warning_count": warnings}


def main() -> int:
    for log in sorted((HERE / "build").glob("*/*.log")):
        label = log.with_suffix(".json")
        if label.exists() and "--force" not in sys.argv:
            continue
        text = ANSI.sub("", log.read_text(errors="replace"))
        lines = text.splitlines()
        group = log.parent.name
        tool = {"clang": "clang", "clang_tidy": "clang_tidy", "make": "gcc"}.get(group, "gcc")
        cwd = CWD
        if group in ("bfd", "gold", "lld", "mold"):
            records = linker(lines, group)
        elif group == "tsc":
            records, cwd = tsc(lines), "/tmp/ho/js"
        elif log.stem.startswith("json_"):
            records = gcc_json(text)
        else:
            records = compiler(lines, tool, base="lz4-4.3.3/lz4libs" if group == "make" else "")
        body = {"cwd": cwd, "tool": "auto", "records": records, **counts(text, records)}
        label.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n")
        print(f"drafted {label.relative_to(HERE)}: {len(records)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
