"""Generic edit operators at a C/C++ error site, generated broadly for the gate to decide.

None of these needs to be right on its own: each proposes a few plausible edits (a missing
``;`` after an aggregate, the token the compiler expected after the previous token, ``&``/``*``
on an argument, an argument added from the function's other call sites or dropped, a rename
to a near identifier in the file); ``candidates.validate`` keeps those the compiler accepts.
Priors only order the checks and rank what could not be checked.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ..locate.cfamily import byte_to_char_col, iter_sources, parse_file
from ..records import BuildErrorRecord, FixCandidate
from .buildctx import _Ctx
from .cfile import IDENT, edit, insert, levenshtein, prev_token_end, quoted, record_char_col, resolve
from .common import edit_for

_AGGREGATE_OPEN = re.compile(r"\b(struct|union|enum|class)\b[^;(){}]*$")
_INCLUDE_LOCAL = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
_KEYWORDS = frozenset(
    "if else for while do switch case default return break continue goto sizeof struct union enum typedef "
    "static extern const volatile inline void char short int long float double signed unsigned auto register "
    "class public private protected template typename namespace using new delete this true false nullptr".split()
)


# --------------------------------------------------------------------------- scanning


def _code_mask(text: str) -> list[bool]:
    """True for characters that are code (not in comments, strings, character literals or
    preprocessor lines)."""
    mask = [True] * len(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        ch = text[i]
        if line_start and ch in " \t":
            i += 1
            continue
        if line_start and ch == "#":  # a directive, continued lines included
            j = i
            while j < n and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i, min(j, n)):
                mask[k] = False
            i = j
            continue
        line_start = ch == "\n"
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                mask[k] = False
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                mask[k] = False
            i = j
        elif ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i, min(j + 1, n)):
                mask[k] = False
            i = j + 1
        else:
            i += 1
    return mask


def _pos(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


# --------------------------------------------------------------------------- ';' after an aggregate


def _unterminated_aggregates(text: str) -> list[int]:
    """Offsets just after a `}` closing a struct/union/enum/class body with no `;` (or declarator)."""
    mask = _code_mask(text)
    stack: list[int] = []
    out: list[int] = []
    for i, ch in enumerate(text):
        if not mask[i]:
            continue
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            opened = stack.pop()
            head = text[max(0, text.rfind("\n", 0, max(opened - 200, 0))) : opened]
            head = head.replace("\n", " ")
            if not _AGGREGATE_OPEN.search(head[-200:]):
                continue
            j = i + 1
            while j < len(text) and (text[j].isspace() or not mask[j]):
                j += 1
            nxt = text[j] if j < len(text) else ""
            if nxt and (nxt.isalpha() or nxt == "_") and _starts_a_declaration(text, j):
                out.append(i + 1)  # `} typedef ...`, `} int f(...)`: the next declaration, not a declarator
                continue
            if nxt and (nxt == ";" or nxt == "," or nxt == ")" or nxt.isalnum() or nxt in "_*&["):
                continue  # terminated, a declarator, or an argument
            out.append(i + 1)
    return out


_WORD = re.compile(r"[A-Za-z_]\w*")


def _starts_a_declaration(text: str, at: int) -> bool:
    """The word at ``at`` begins a new declaration: a keyword that cannot name a declarator
    (``typedef``, ``struct``, ``int``, ``static`` ...), or a word followed by another word
    (``uint32_t area(...)``), where a declarator would be followed by ``;`` ``,`` ``[`` ``=``."""
    word = _WORD.match(text, at)
    if word is None:
        return False
    if word.group() in _KEYWORDS and word.group() not in ("const", "volatile"):
        return True
    k = word.end()
    while k < len(text) and text[k] in " \t\n":
        k += 1
    return k < len(text) and (text[k].isalpha() or text[k] == "_")


def _project_includes(ctx: _Ctx, source: Path, limit: int = 12) -> list[Path]:
    """Headers a file includes with quotes that exist next to it or in the workspace."""
    text = _read(source) or ""
    out: list[Path] = []
    for line in text.splitlines():
        match = _INCLUDE_LOCAL.match(line)
        if not match:
            continue
        name = match.group(1)
        for base in (source.parent, ctx.workspace, *(ctx.workspace / d for d in ("include", "src", "inc"))):
            path = base / name
            if path.is_file():
                out.append(path)
                break
        if len(out) >= limit:
            break
    return out


def aggregate_semicolon(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """`struct s { ... }` missing its `;`: in the error's file or a project header it includes."""
    if not re.search(r"expected|before|after struct|after class|declaration|specifier|data types", record.message):
        return []
    files: list[Path] = []
    for name in (record.file_path, record.translation_unit):
        if name:
            path = resolve(name, ctx.workspace)
            if path.is_file() and path.resolve().is_relative_to(ctx.workspace.resolve()):
                files.append(path)
                files.extend(_project_includes(ctx, path))
    out: list[FixCandidate] = []
    seen: set[Path] = set()
    for path in files:
        if path in seen:
            continue
        seen.add(path)
        text = _read(path)
        if text is None:
            continue
        rel = ctx.rel(str(path))
        for offset in _unterminated_aggregates(text)[-3:]:
            line, col = _pos(text, offset)
            out.append(edit_for(record, f"insert ';' after the struct/class body ending at {rel}:{line}", [insert(rel, line, col, ";")], mutation_type="insertNode",
                             confidence=0.5, source="heuristic", token=";", operator="aggregate-semicolon"))
    return out[:6]


# --------------------------------------------------------------------------- calls at the error site


def _call_at(ctx: _Ctx, record: BuildErrorRecord):  # type: ignore[no-untyped-def]
    """(parsed file, the innermost call expression at the error position or on its line)."""
    path = resolve(record.file_path, ctx.workspace)
    pf = parse_file(path)
    lines = ctx.lines(record.file_path)
    if pf is None or not lines or not (0 < record.line <= len(lines)):
        return None, None
    row, col = record.line - 1, (record_char_col(record, lines) or 1) - 1
    at: list = []  # type: ignore[type-arg]
    on_row: list = []  # type: ignore[type-arg]
    stack = [pf.tree.root_node]
    while stack:
        node = stack.pop()
        if not (node.start_point[0] <= row <= node.end_point[0]):
            continue
        if node.type == "call_expression":
            span = node.end_byte - node.start_byte
            on_row.append((span, node.start_byte, node))
            if node.start_point <= (row, col) <= node.end_point:
                at.append((span, node.start_byte, node))
        stack.extend(node.named_children)
    pool = at or on_row
    return pf, (min(pool, key=lambda t: (t[0], t[1]))[2] if pool else None)


def _node_edit(ctx: _Ctx, pf, rel: str, node, new: str):  # type: ignore[no-untyped-def]
    srow, scol = node.start_point
    erow, ecol = node.end_point
    return edit(rel, srow + 1, byte_to_char_col(pf.lines[srow], scol + 1), erow + 1,
                byte_to_char_col(pf.lines[erow], ecol + 1), new)


_ARG_INDEX = re.compile(r"argument (\d+)|(\d+)(?:st|nd|rd|th) argument")


def _arguments(call) -> list:  # type: ignore[no-untyped-def]
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []


def address_or_deref(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """`x` for `&x` (or the reverse) on the argument the compiler names."""
    text = " ".join([record.message, *(n.message for n in record.notes)])
    if not re.search(r"pointer|incompatible|conver|cannot|no matching|argument", text):
        return []
    pf, call = _call_at(ctx, record)
    if call is None:
        return []
    args = _arguments(call)
    if not args:
        return []
    match = _ARG_INDEX.search(text)
    chosen = []
    if match:
        index = int(match.group(1) or match.group(2)) - 1
        if 0 <= index < len(args):
            chosen = [args[index]]
    if not chosen:
        lines = ctx.lines(record.file_path) or []
        col = record_char_col(record, lines) if lines else 0
        chosen = [a for a in args if a.start_point[0] == record.line - 1 and a.start_point[1] + 1 <= col <= a.end_point[1] + 1] or args[:4]
    rel = ctx.rel(record.file_path)
    more_stars = _more_stars_expected(text)
    out: list[FixCandidate] = []
    for arg in chosen:
        src = arg.text.decode("utf-8", "replace")
        options = []
        if src.startswith("&"):
            options.append((src[1:], 0.5, "drop the '&'"))
        elif src.startswith("*"):
            options.append((src[1:], 0.45, "drop the '*'"))
        simple = arg.type in ("identifier", "field_expression", "subscript_expression", "pointer_expression", "parenthesized_expression")
        wrapped = src if simple else f"({src})"
        options.append(("&" + wrapped, 0.55 if more_stars is not False else 0.35, "take its address"))
        options.append(("*" + wrapped, 0.45 if more_stars is False else 0.3, "dereference it"))
        for new, prior, what in options:
            out.append(edit_for(record, f"{what}: pass {new} instead of {src} ({rel}:{arg.start_point[0] + 1})", [_node_edit(ctx, pf, rel, arg, new)],
                             mutation_type="replaceNode", confidence=prior, source="heuristic", operator="address-deref"))
    return out


def _more_stars_expected(text: str) -> bool | None:
    """Whether the expected type has more '*' than the given one (None when unknown)."""
    pairs = [
        r"from " + quoted(r"([^'\u2019]+)") + r" to " + quoted(r"([^'\u2019]+)"),  # gcc C++ (given, expected)
        r"passing " + quoted(r"([^'\u2019]+)") + r" to parameter of (?:incompatible )?type " + quoted(r"([^'\u2019]+)"),
        r"expected " + quoted(r"([^'\u2019]+)") + r" but argument is of type " + quoted(r"([^'\u2019]+)"),
    ]
    for index, pattern in enumerate(pairs):
        match = re.search(pattern, text)
        if match:
            given, expected = (match.group(2), match.group(1)) if index == 2 else (match.group(1), match.group(2))
            return expected.count("*") > given.count("*")
    if "makes pointer from integer" in text or "integer to pointer" in text:
        return True
    if "makes integer from pointer" in text or "pointer to integer" in text:
        return False
    return None


def argument_count(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """Too few arguments: add one from the function's other call sites; too many: drop one."""
    text = " ".join([record.message, *(n.message for n in record.notes)])
    few = re.search(r"too few arguments|requires (\d+) arguments?, but (\d+) (?:was|were) provided", text)
    many = re.search(r"too many arguments", text)
    if not (few or many):
        return []
    pf, call = _call_at(ctx, record)
    if call is None:
        return []
    fn = call.child_by_field_name("function")
    name = fn.text.decode() if fn is not None else ""
    args = _arguments(call)
    rel = ctx.rel(record.file_path)
    arglist = call.child_by_field_name("arguments")
    out: list[FixCandidate] = []
    if many and args:
        for i, arg in enumerate(args):
            start = args[i - 1].end_point if i else arg.start_point
            end = arg.end_point if i else (args[1].start_point if len(args) > 1 else arg.end_point)
            e = edit(rel, start[0] + 1, byte_to_char_col(pf.lines[start[0]], start[1] + 1), end[0] + 1,
                     byte_to_char_col(pf.lines[end[0]], end[1] + 1), "")
            out.append(edit_for(record, f"drop argument {i + 1} of {name}() ({rel}:{record.line})", [e],
                             mutation_type="deleteNode", confidence=0.4 - 0.02 * i, source="heuristic", operator="argument-count"))
        return out
    if not name or arglist is None:
        return []
    seen_at = Counter[str]()
    for other in _other_calls(ctx, name, len(args) + 1, [a.text.decode("utf-8", "replace") for a in args]):
        seen_at[other] += 1
    for param in _parameter_names(ctx, name, len(args) + 1):
        if param not in seen_at and re.search(r"\b" + re.escape(param) + r"\b", "\n".join(ctx.lines(record.file_path) or [])):
            seen_at[param] = 0  # the declaration's own name for it, when the caller has such a name
    close_row, close_col = arglist.end_point  # just after ')'
    at_line, at_col = close_row + 1, byte_to_char_col(pf.lines[close_row], close_col)  # before ')'
    for rank, (text_arg, _count) in enumerate(seen_at.most_common(4)):
        sep = ", " if args else ""
        out.append(edit_for(record, f"pass {text_arg} as the missing last argument of {name}() ({rel}:{record.line}) (from its other calls or its declaration)",
                         [insert(rel, at_line, at_col, sep + text_arg)], mutation_type="insertNode", confidence=0.45 - 0.05 * rank, source="heuristic",
                         operator="argument-count"))
    return out


def _parameter_names(ctx: _Ctx, name: str, want: int) -> list[str]:
    out: list[str] = []
    for fn in ctx.index.find(name)[:2]:
        pf = parse_file(resolve(fn.file_path, ctx.workspace))
        if pf is None:
            continue
        stack = [pf.tree.root_node]
        while stack:
            node = stack.pop()
            if node.type == "parameter_list" and node.start_point[0] + 1 >= fn.line_start and node.start_point[0] < fn.line_end:
                params = [p for p in node.named_children if p.type == "parameter_declaration"]
                if len(params) >= want:
                    ids = [n for n in _walk_ids(params[want - 1])]
                    if ids:
                        out.append(ids[-1])
                break
            stack.extend(reversed(node.named_children))
    return out


def _walk_ids(node):  # type: ignore[no-untyped-def]
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            yield n.text.decode()
        stack.extend(reversed(n.named_children))


def _other_calls(ctx: _Ctx, name: str, want: int, mine: list[str] | None = None, limit_files: int = 200) -> list[str]:
    """The text of argument number `want` in other calls of `name` in the project; with ``mine``
    (this call's arguments), first with the other call's earlier arguments renamed to this call's
    (``f(dict, &dict->mm)`` elsewhere gives ``&state->mm`` for ``f(state, ?)``)."""
    found: list[str] = []
    needle = name.encode()
    for path in iter_sources(ctx.workspace)[:limit_files]:
        pf = parse_file(path)
        if pf is None or needle not in pf.source:
            continue
        stack = [pf.tree.root_node]
        while stack:
            node = stack.pop()
            if node.type == "call_expression":
                fn = node.child_by_field_name("function")
                if fn is not None and fn.text == needle:
                    args = _arguments(node)
                    if len(args) >= want:
                        text = args[want - 1].text.decode("utf-8", "replace")
                        renamed = _renamed_like(text, args[: want - 1], mine or [])
                        if renamed != text:
                            found.append(renamed)
                        found.append(text)
            stack.extend(node.named_children)
    return found


def _renamed_like(text: str, theirs: list, mine: list[str]) -> str:  # type: ignore[type-arg]
    """``text`` with each identifier argument of the other call renamed to this call's argument there."""
    mapping: dict[str, str] = {}
    for arg, name in zip(theirs, mine, strict=False):
        other = arg.text.decode("utf-8", "replace")
        if arg.type == "identifier" and IDENT.fullmatch(name) and other != name:
            mapping[other] = name
    if not mapping:
        return text
    return re.sub(r"\b(" + "|".join(map(re.escape, mapping)) + r")\b", lambda k: mapping[k.group(1)], text)


# --------------------------------------------------------------------------- near identifiers

_UNDECLARED = re.compile(
    quoted(r"(\w+)") + r" (?:undeclared|was not declared|has not been declared|does not name a type)"
    r"|(?:use of undeclared identifier|unknown type name|implicit declaration of function|call to undeclared function) "
    + quoted(r"(\w+)")
)


def near_identifier(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """An undeclared name one or two edits from a name the file (or the project) uses."""
    match = _UNDECLARED.search(record.message)
    lines = ctx.lines(record.file_path)
    if not match or not lines or not (0 < record.line <= len(lines)):
        return []
    name = match.group(1) or match.group(2)
    line_text = lines[record.line - 1]
    positions = [m.start() + 1 for m in re.finditer(r"\b" + re.escape(name) + r"\b", line_text)]
    if not positions:
        return []
    col = record_char_col(record, lines, name) or positions[0]
    start = min(positions, key=lambda p: abs(p - col))
    pool = Counter(m.group() for ln in lines for m in IDENT.finditer(ln))
    pool.update({n: 1 for n in ctx.index.names()})
    limit = 1 if len(name) < 5 else 2
    near = sorted(
        ((levenshtein(name, other, limit), -count, other) for other, count in pool.items()
         if other != name and other not in _KEYWORDS and abs(len(other) - len(name)) <= limit),
    )
    near = [n for n in near if n[0] <= limit][:4]
    rel = ctx.rel(record.file_path)
    return [
        edit_for(record, f"rename {name!r} to {other!r} at {rel}:{record.line} (a near name the code uses)", [edit(rel, record.line, start, record.line, start + len(name), other)],
              mutation_type="rename", confidence=0.5 - 0.1 * (dist - 1) - 0.02 * i, source="heuristic", old=name, new=other,
              operator="near-identifier")
        for i, (dist, _c, other) in enumerate(near)
    ]


def unknown_callee(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """A call on the error line to a name nothing declares (its implicit `int` is what
    mismatches): rename it to the near function the code knows."""
    lines = ctx.lines(record.file_path)
    if not lines or not (0 < record.line <= len(lines)):
        return []
    line_text = lines[record.line - 1]
    text = "\n".join(lines)
    out: list[FixCandidate] = []
    rel = ctx.rel(record.file_path)
    known: set[str] | None = None  # the workspace's functions: read only when a call is left to check
    for match in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", line_text):
        name = match.group(1)
        if name in _KEYWORDS or len(re.findall(r"\b" + re.escape(name) + r"\b", text)) > 1:
            continue
        if known is None:
            known = ctx.index.names()
        if name in known:
            continue
        limit = 1 if len(name) < 6 else 2
        near = sorted((levenshtein(name, other, limit), other) for other in known if abs(len(other) - len(name)) <= limit)
        for dist, other in near[:2]:
            if dist > limit:
                break
            start = match.start(1) + 1
            out.append(edit_for(record, f"call {other}() instead of {name}(), which nothing declares ({rel}:{record.line})",
                             [edit(rel, record.line, start, record.line, start + len(name), other)], mutation_type="rename", confidence=0.5 - 0.1 * (dist - 1),
                             source="heuristic", old=name, new=other, operator="unknown-callee"))
    return out


_SPECIFIER_END = re.compile(r"\b(?:typedef|struct|union|enum|class|static|extern|inline|register|signed|unsigned)$")
_EXPECTED_CLAUSE = re.compile(r"expected (.+?)\s+(before|after|at end)")
_TOKEN_PRIOR = {";": 0.6, ")": 0.45, "]": 0.4, ",": 0.35, "}": 0.3}


def syntax_token(ctx: _Ctx, record: BuildErrorRecord) -> list[FixCandidate]:
    """Each punctuation token the compiler says it expected, inserted after the previous token."""
    clause = _EXPECTED_CLAUSE.search(record.message)
    lines = ctx.lines(record.file_path)
    if not clause or not lines or not (0 < record.line <= len(lines)):
        return []
    tokens = [t for t in re.findall(quoted(r"([^'\u2019\u2018]+)"), clause.group(1)) if t in _TOKEN_PRIOR]
    if not tokens:
        return []
    col = record_char_col(record, lines) or 1
    if clause.group(2) in ("after", "at end"):
        at: tuple[int, int] | None = (record.line, col)
    else:
        at = prev_token_end(lines, record.line, col)
    if at is None:
        return []
    if _SPECIFIER_END.search(lines[at[0] - 1][: at[1] - 1]):
        return []  # no token ends a declaration after `typedef`/`struct`/`static`: the fault is earlier
    rel = ctx.rel(record.file_path)
    return [
        edit_for(
            record,
            f"insert {token!r} at {rel}:{at[0]}:{at[1]} (where the compiler expected it)",
            [insert(rel, at[0], at[1], token)],
            mutation_type="insertNode",
            confidence=_TOKEN_PRIOR[token] - 0.01 * i,
            source="rule",
            token=token,
        )
        for i, token in enumerate(dict.fromkeys(tokens))
    ]
