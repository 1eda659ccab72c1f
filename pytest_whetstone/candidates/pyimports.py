"""Restore a missing import for a NameError, byte for byte where the evidence allows.

In order of trust:

1. the file already has ``from M import a, b`` and M has the name: add it to that statement, in
   sorted position when the list is sorted (else at the end), copying the list's own separator,
   which restores the original text exactly when a name was deleted from such a list;
2. another module of the project imports the name (``from X import name`` / ``import name``):
   the same statement, placed among the file's imports in sorted position;
3. the name is a module (stdlib, or installed: ``importlib.util.find_spec``): ``import name``.

Whether M has a name is decided without running project code: a project module (or an installed
pure-Python one) is read statically; ``hasattr`` is used only for modules already in
``sys.modules`` and a short list of side-effect-free stdlib modules.  Never an import of a
module that does not exist.  The project scan runs once per candidate generation (see
:func:`reset_project_scan`), not once per failure.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import paths
from ..locate.pysource import SourceFile, char_col, source_file
from ..records import Position, TextEdit
from .pyscan import bound_names

STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"math", "os", "re", "json", "sys", "time"}
# stdlib modules whose import runs no user-visible side effects (safe to import for hasattr)
SAFE_STDLIB = frozenset(
    "abc argparse array ast base64 binascii bisect builtins calendar cmath collections collections.abc "
    "contextlib copy csv dataclasses datetime decimal difflib enum errno fnmatch fractions functools "
    "glob hashlib heapq hmac html inspect io itertools json keyword linecache locale math numbers "
    "operator os os.path pathlib pickle pprint queue random re reprlib secrets shlex shutil statistics "
    "string struct sys tempfile textwrap threading time timeit types typing unicodedata uuid warnings "
    "weakref zlib".split()
)
SKIP_DIRS = paths.SKIP_DIRS | {"build", "dist"}  # copies a build or packaging step left
MAX_FILES = 3000


@dataclass
class ImportFix:
    description: str
    confidence: float
    edits: list[TextEdit]
    module: str
    name: str | None


# --------------------------------------------------------------------------- does M have `name`?


def module_file(module: str, level: int, importer: Path, workspace: Path) -> Path | None:
    """The project file of ``module`` (relative to ``importer`` when ``level`` > 0), if any."""
    if level > 0:
        base = importer.parent
        for _ in range(level - 1):
            base = base.parent
        roots = [base]
    else:
        roots = [workspace, workspace / "src"]
    rel = module.replace(".", "/") if module else ""
    for root in roots:
        for candidate in ((root / rel).with_suffix(".py") if rel else None, root / rel / "__init__.py"):
            if candidate is not None and candidate.is_file():
                return candidate
    return None


def module_defines(path: Path | str, name: str) -> bool:
    src = source_file(path)
    whole = src.whole() if src is not None else None
    return whole is not None and name in bound_names(whole.tree.body)


def module_has(module: str, level: int, name: str, importer: Path, workspace: Path) -> bool:
    """Does ``from <level dots><module> import name`` work?  Decided without running project code."""
    local = module_file(module, level, importer, workspace)
    if local is not None:
        return module_defines(local, name) or (local.name == "__init__.py" and (local.parent / f"{name}.py").is_file())
    if level > 0 or not module:
        return False
    loaded = sys.modules.get(module)
    if loaded is not None:
        return hasattr(loaded, name)
    if module in SAFE_STDLIB:
        try:
            return hasattr(importlib.import_module(module), name)
        except Exception:  # noqa: BLE001 - an odd stdlib build: then we do not know
            return False
    if "." in module and module.split(".")[0] not in sys.modules:
        return False  # find_spec would import the parent package: its code is not ours to run
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return False
    origin = spec.origin if spec is not None else None
    if origin and origin.endswith(".py"):
        return module_defines(origin, name)
    return False


def module_exists(module: str) -> bool:
    if module in STDLIB or module in sys.modules:
        return True
    if "." in module:
        return False
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


# --------------------------------------------------------------------------- what the project imports


@dataclass
class ProjectScan:
    """Every ``from X import n`` / ``import n`` and top-level definition in the project, by name."""

    workspace: Path
    imports: dict[str, list[tuple[Path, str, int, str]]] = field(default_factory=dict)  # n -> (file, X, level, orig)
    modules: dict[str, int] = field(default_factory=dict)  # `import n` counts
    defs: dict[str, list[Path]] = field(default_factory=dict)


_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w., \t]+)", re.M)
_DEF = re.compile(r"^(?:async[ \t]+def|def|class)[ \t]+(\w+)|^(\w+)[ \t]*(?::[^=\n]*)?=(?!=)", re.M)
_SCANS: dict[str, ProjectScan] = {}


def reset_project_scan() -> None:
    """Forget the project scan (called at the start of each candidate generation)."""
    _SCANS.clear()


def project_scan(workspace: Path) -> ProjectScan:
    key = str(workspace)
    scan = _SCANS.get(key)
    if scan is None:
        scan = _SCANS[key] = _scan(workspace)
    return scan


def py_files(workspace: Path, limit: int = MAX_FILES) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(workspace):
        dirnames[:] = sorted(
            d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".") and d not in ("tests", "test")
        )
        out.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".py"))
        if len(out) > limit:
            break
    return out


def _scan(workspace: Path) -> ProjectScan:
    scan = ProjectScan(workspace)
    for path in py_files(workspace):
        if path.name.startswith(("test_", "conftest")):
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in _FROM.finditer(text):
            dots, module, names = match.groups()
            for part in names.strip("()").replace("\\\n", " ").split(","):
                part = part.split("#", 1)[0].strip()
                if not part or part == "*":
                    continue
                orig, _, alias = part.partition(" as ")
                bound = (alias or orig).strip()
                scan.imports.setdefault(bound, []).append((path, module, len(dots), part))
        for match in _IMPORT.finditer(text):
            for part in match.group(1).split(","):
                part = part.strip()
                if part and " as " not in part and "." not in part:
                    scan.modules[part] = scan.modules.get(part, 0) + 1
        for match in _DEF.finditer(text):
            name = match.group(1) or match.group(2)
            scan.defs.setdefault(name, []).append(path)
    return scan


def module_name(path: Path, workspace: Path) -> str:
    parts = list(path.relative_to(workspace).with_suffix("").parts)
    if parts and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _absolute(importer: Path, module: str, level: int, workspace: Path) -> str | None:
    if level == 0:
        return module
    base = importer.parent
    for _ in range(level - 1):
        base = base.parent
    try:
        package = module_name(base / "__init__.py", workspace)
    except ValueError:
        return None
    return ".".join(p for p in (package, module) if p) or None


# --------------------------------------------------------------------------- the edits


def add_to_statement(src: SourceFile, rel: str, node: ast.ImportFrom, name: str) -> TextEdit | None:
    """Insert ``name`` into an existing ``from M import ...`` list."""
    aliases = [a for a in node.names if getattr(a, "end_col_offset", None) is not None]
    if not aliases or len(aliases) != len(node.names) or any(a.name == "*" for a in aliases):
        return None

    def start(a: ast.alias) -> tuple[int, int]:
        return a.lineno, char_col(src.line(a.lineno), a.col_offset)

    def end(a: ast.alias) -> tuple[int, int]:
        line = a.end_lineno or a.lineno
        return line, char_col(src.line(line), a.end_col_offset or 0)

    def between(a: ast.alias, b: ast.alias) -> str:
        (l1, c1), (l2, c2) = end(a), start(b)
        if l1 == l2:
            return src.line(l1)[c1:c2]
        return src.line(l1)[c1:] + "".join(src.line(n) for n in range(l1 + 1, l2)) + src.line(l2)[:c2]

    def lone_sep(a: ast.alias) -> str:
        """The separator a one-name list implies: one name per line when it sits on its own line."""
        if a.lineno == node.lineno:
            return ", "
        text = src.line(a.lineno)
        return ",\n" + text[: len(text) - len(text.lstrip())]

    names = [a.name for a in aliases]
    position = len(names)
    keys: tuple[Callable[[str], Any], ...] = (str, str.lower, _isort_key)
    for key in keys:
        if names == sorted(names, key=key):
            position = sum(1 for n in names if key(n) < key(name))
            break
    if position < len(aliases):
        sep = between(aliases[position - 1], aliases[position]) if position > 0 else (
            between(aliases[0], aliases[1]) if len(aliases) > 1 else lone_sep(aliases[0])
        )
        line, col = start(aliases[position])
        return TextEdit(rel, Position(line, col + 1), Position(line, col + 1), name + sep)
    sep = between(aliases[-2], aliases[-1]) if len(aliases) > 1 else lone_sep(aliases[0])
    line, col = end(aliases[-1])
    return TextEdit(rel, Position(line, col + 1), Position(line, col + 1), sep + name)


def _isort_key(name: str) -> tuple[int, str]:
    """isort's order_by_type: CONSTANTS, then Classes, then functions."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name.lower()


def _section(module: str, level: int, workspace: Path) -> int:
    if level > 0:
        return 3
    top = module.split(".")[0]
    if top == "__future__":
        return 0
    if top in STDLIB:
        return 1
    if module_file(top, 0, workspace, workspace) is not None:
        return 3
    return 2


def new_statement(src: SourceFile, rel: str, statement: str, module: str, level: int, is_from: bool, workspace: Path) -> TextEdit | None:
    """Insert a whole import line among the file's top-level imports, in sorted position."""
    whole = src.whole()
    if whole is None:
        return None
    imports = [n for n in whole.tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) and n.col_offset == 0]
    key = (int(is_from), module.lower())
    section = _section(module, level, workspace)

    def info(n: ast.Import | ast.ImportFrom) -> tuple[int, tuple[int, str]]:
        if isinstance(n, ast.Import):
            mod, lvl = n.names[0].name, 0
        else:
            mod, lvl = n.module or "", n.level
        return _section(mod, lvl, workspace), (int(isinstance(n, ast.ImportFrom)), ("." * lvl + mod).lower())

    same = [n for n in imports if info(n)[0] == section]
    line: int | None = None
    if same:
        after = [n for n in same if info(n)[1] > key]
        line = after[0].lineno if after else (same[-1].end_lineno or same[-1].lineno) + 1
    elif imports:
        later = [n for n in imports if info(n)[0] > section]
        line = later[0].lineno if later else (imports[-1].end_lineno or imports[-1].lineno) + 1
    else:
        body = whole.tree.body
        first = body[0] if body else None
        is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
        line = (first.end_lineno or first.lineno) + 1 if is_doc and first is not None else 1
        while line <= len(src.lines) and src.line(line).startswith("#"):
            line += 1  # shebang / coding / licence comments stay on top
    text = statement + "\n"
    if line > len(src.lines):
        line = len(src.lines) + 1
        if src.lines and not src.lines[-1].endswith("\n"):
            text = "\n" + statement
    return TextEdit(rel, Position(line, 1), Position(line, 1), text)


def _from_statements(src: SourceFile) -> list[ast.ImportFrom]:
    whole = src.whole()
    if whole is None:
        return []
    out = []
    stack: list[ast.stmt] = list(whole.tree.body)
    while stack:
        node = stack.pop(0)
        if isinstance(node, ast.ImportFrom):
            out.append(node)
        elif isinstance(node, (ast.Try, ast.If)):  # `try: from x import a` / version checks
            stack.extend([*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])])
            for handler in getattr(node, "handlers", []):
                stack.extend(handler.body)
    return out


def import_fixes(name: str, path: Path, rel: str, workspace: Path) -> list[ImportFix]:
    """Import candidates for an undefined ``name`` in ``path``, most trusted first."""
    src = source_file(path)
    if src is None or src.whole() is None:
        return []
    out: list[ImportFix] = []
    existing = _from_statements(src)
    # 1. an existing `from M import ...` whose M has the name
    for node in existing:
        if node.module == "__future__" or any(a.name == name or a.asname == name for a in node.names):
            continue
        if module_has(node.module or "", node.level, name, path, workspace):
            edit = add_to_statement(src, rel, node, name)
            if edit is not None:
                mod = "." * node.level + (node.module or "")
                out.append(ImportFix(f"add {name!r} to `from {mod} import ...` in {rel}:{node.lineno}", 0.8, [edit], mod, name))
                return out
    # 2. the way other modules of the project import it
    scan = project_scan(workspace)
    forms: dict[tuple[str, int, str], int] = {}
    for other, module, level, part in scan.imports.get(name, []):
        if other.resolve() == path.resolve():
            continue
        if level and other.parent.resolve() != path.parent.resolve():
            absolute = _absolute(other, module, level, workspace)
            if absolute is None:
                continue
            module, level = absolute, 0
        if module_file(module, level, path, workspace) == path:
            continue  # importing the file from itself
        forms[(module, level, part)] = forms.get((module, level, part), 0) + 1
    # `import name` elsewhere in the project at least as often: the module itself (`operator`, not
    # `from toolz.curried import operator`)
    as_module = scan.modules.get(name, 0)
    if forms and as_module < max(forms.values()):
        (module, level, part), _count = max(forms.items(), key=lambda kv: (kv[1], kv[0]))
        mod = "." * level + module
        for node in existing:
            if node.level == level and (node.module or "") == module and " as " not in part:
                edit = add_to_statement(src, rel, node, name)
                if edit is not None:
                    out.append(ImportFix(f"add {name!r} to `from {mod} import ...` in {rel}:{node.lineno} (as other modules import it)", 0.75, [edit], mod, name))
                    return out
        statement = f"from {mod} import {part}"
        edit = new_statement(src, rel, statement, module, level, True, workspace)
        if edit is not None:
            out.append(ImportFix(f"add `{statement}` to {rel} (as other modules of the project import {name!r})", 0.7, [edit], mod, name))
            return out
    # 3. a module-level `import name`
    if name in scan.modules or module_exists(name):
        statement = f"import {name}"
        edit = new_statement(src, rel, statement, name, 0, False, workspace)
        if edit is not None:
            out.append(ImportFix(f"add `{statement}` to {rel} ({name!r} is a module)", 0.75 if name in STDLIB else 0.6, [edit], name, None))
    return out


def project_definer(workspace: Path, name: str, exclude: Path) -> str | None:
    """The module defining a top-level ``name`` in the workspace, when exactly one does."""
    paths = [p for p in project_scan(workspace).defs.get(name, []) if p.resolve() != exclude.resolve()]
    unique = sorted(set(paths))
    return module_name(unique[0], workspace) if len(unique) == 1 else None


def statement_edit(path: Path, rel: str, module: str, name: str | None, workspace: Path) -> TextEdit | None:
    """``import module`` / ``from module import name`` placed among the imports (or added to a list)."""
    src = source_file(path)
    if src is None:
        return None
    if name is not None:
        for node in _from_statements(src):
            if node.level == 0 and node.module == module:
                if any(a.name == name for a in node.names):
                    return None
                return add_to_statement(src, rel, node, name)
        return new_statement(src, rel, f"from {module} import {name}", module, 0, True, workspace)
    return new_statement(src, rel, f"import {module}", module, 0, False, workspace)
