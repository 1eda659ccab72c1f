"""Fault shapes for the development build bench beyond bench_fix_build.seed's first seven (not a test).

Each seeder walks real C or C++ sources with tree-sitter and returns (kind, file, original, mutated,
what) tuples; the bench keeps those that break the build.  Kinds: a declaration or a struct/class
missing its ``;``, a function missing its closing brace, ``x`` for ``&x``, a dropped argument, a
renamed definition, an include of a header that does not exist (not a one-letter typo), a project
header's include removed.  A source dropped from the link is seeded by the bench itself (it edits
the Makefile it wrote).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

from pytest_whetstone.locate import cfamily

Seed = tuple[str, str, str, str, str]  # kind, file (relative), original text, mutated text, what


def _walk(node) -> Iterator:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.named_children))


def _cut(src: bytes, start: int, end: int, new: bytes = b"") -> str:
    return (src[:start] + new + src[end:]).decode("utf-8", "surrogateescape")


def _line_of(node) -> str:
    return f"line {node.start_point[0] + 1}"


def _declared_name(node) -> str:
    """The identifier a function_definition defines (the last part of a qualified name)."""
    d = node.child_by_field_name("declarator")
    while d is not None and d.type not in ("identifier", "field_identifier", "qualified_identifier", "destructor_name", "operator_name"):
        d = d.child_by_field_name("declarator")
    if d is None:
        return ""
    if d.type == "qualified_identifier":
        inner = d.child_by_field_name("name")
        while inner is not None and inner.type == "qualified_identifier":
            inner = inner.child_by_field_name("name")
        d = inner
    return d.text.decode() if d is not None and d.type in ("identifier", "field_identifier") else ""


def _name_node(node):
    d = node.child_by_field_name("declarator")
    while d is not None and d.type not in ("identifier", "field_identifier", "qualified_identifier"):
        d = d.child_by_field_name("declarator")
    while d is not None and d.type == "qualified_identifier":
        d = d.child_by_field_name("name")
    return d if d is not None and d.type in ("identifier", "field_identifier") else None


def _is_member(fn) -> bool:
    """A method: defined in a class body, or out of it with a qualified name (``Cls::f``); a
    namespace-qualified free function is rare in the seeded code and is skipped with them."""
    if fn.parent is not None and fn.parent.type == "field_declaration_list":
        return True
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type not in ("identifier", "qualified_identifier", "field_identifier"):
        d = d.child_by_field_name("declarator")
    return d is not None and d.type != "identifier"


def seeds_in_file(root: Path, rel: str, *, header: bool, sources_text: str) -> dict[str, list[Seed]]:
    """Every candidate seed of the new kinds in one file."""
    pf = cfamily.parse_file(root / rel)
    out: dict[str, list[Seed]] = {}
    if pf is None:
        return out
    src = pf.source
    text = src.decode("utf-8", "surrogateescape")

    def add(kind: str, mutated: str, what: str) -> None:
        out.setdefault(kind, []).append((kind, rel, text, mutated, what))

    for n in _walk(pf.tree.root_node):
        parent = n.parent
        if n.type == "call_expression":
            args = n.child_by_field_name("arguments")
            named = [a for a in args.named_children if a.type != "comment"] if args is not None else []
            for a in named:
                if a.type == "pointer_expression" and a.child_by_field_name("operator") is not None \
                        and a.child_by_field_name("operator").type == "&":
                    inner = a.child_by_field_name("argument")
                    if inner is not None and inner.type in ("identifier", "field_expression"):
                        add("address argument", _cut(src, a.start_byte, a.end_byte, inner.text), f"{a.text.decode()} -> {inner.text.decode()} ({_line_of(a)})")
            if len(named) >= 2 and n.start_point[0] == n.end_point[0]:
                last, before = named[-1], named[-2]
                add("dropped argument", _cut(src, before.end_byte, last.end_byte), f"{n.text.decode()[:60]} ({_line_of(n)})")
        elif n.type == "declaration" and parent is not None and n.text.endswith(b";") and n.start_point[0] == n.end_point[0]:
            local = parent.type == "compound_statement"
            prototype = header and parent.type in ("translation_unit", "declaration_list") and any(
                c.type == "function_declarator" for c in _walk(n))
            if local or prototype:
                add("declaration semicolon", _cut(src, n.end_byte - 1, n.end_byte), f"{'local' if local else 'prototype'} {_line_of(n)}")
        elif n.type in ("struct_specifier", "class_specifier", "union_specifier") and header and n.child_by_field_name("body") is not None:
            nxt = n.next_sibling
            if nxt is not None and nxt.type == ";":
                add("struct semicolon", _cut(src, nxt.start_byte, nxt.end_byte), f"{n.type.split('_')[0]} {_line_of(n)}")
        elif n.type == "function_definition" and not header:
            body = n.child_by_field_name("body")
            if body is not None and body.end_point[0] > body.start_point[0]:
                close = body.children[-1]
                line_start = src.rfind(b"\n", 0, close.start_byte) + 1
                if close.type == "}" and src[line_start:close.start_byte].strip() == b"":
                    add("closing brace", _cut(src, close.start_byte, close.end_byte), f"end of the function at {_line_of(n)}")
            name = _declared_name(n)
            node = _name_node(n)
            if _is_member(n):
                node = None  # a method renamed is a compile error ("no declaration matches"), not the link error this kind is
            storage = n.text[: max(0, (node.start_byte - n.start_byte) if node is not None else 0)]
            if node is not None and len(name) >= 5 and name != "main" and b"static" not in storage and sources_text.count(name) > 1:
                bad = name[:-2] + name[-1:]
                if bad not in sources_text:
                    add("renamed definition", _cut(src, node.start_byte, node.end_byte, bad.encode()), f"{name} -> {bad}")
    for n in pf.tree.root_node.named_children:
        if n.type != "preproc_include":
            continue
        p = n.child_by_field_name("path")
        if p is None or p.type == "system_lib_string":
            continue
        name = p.text.decode().strip('"')
        stem, dot, ext = Path(name).name.partition(".")
        bogus = name[: len(name) - len(Path(name).name)] + f"{stem}_internal{dot}{ext}"
        if not (root / bogus).exists() and not ((root / rel).parent / bogus).exists():
            add("nonexistent header", _cut(src, p.start_byte, p.end_byte, f'"{bogus}"'.encode()), f"{name} -> {bogus}")
        end = n.end_byte
        add("removed project header", _cut(src, n.start_byte, end), f'#include "{name}" removed')
    return out


def seed_new(root: Path, sources: list[str], headers: list[str], rng: random.Random, per_kind: int) -> list[Seed]:
    """Up to ``per_kind * 4`` shuffled seeds of each new kind (extra: some do not break the build)."""
    corpus = "\n".join((root / f).read_text(errors="replace") for f in [*sources, *headers])
    pools: dict[str, list[Seed]] = {}
    for rel in [*sources, *headers]:
        for kind, seeds in seeds_in_file(root, rel, header=rel in headers, sources_text=corpus).items():
            pools.setdefault(kind, []).extend(seeds)
    chosen: list[Seed] = []
    for kind in sorted(pools):
        pool = pools[kind]
        rng.shuffle(pool)
        chosen.extend(pool[: per_kind * 4])
    return chosen
