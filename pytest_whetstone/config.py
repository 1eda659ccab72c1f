"""``whetstone.json5``: the project's settings, readable by C projects without a pyproject.

Example::

    {
      store: ".whetstone",                 // where sessions live (relative to this file)
      phases: [{name: "build", command: "make", kind: "build"},
               {name: "tests", command: "make test", kind: "test"}],
      rules: [{pattern: "relocation truncated", error_type: "resource_limit"},
              {pattern: "golden mismatch", failure_type: "wrong_output"}],
      headers: {"my_log": "\\"log.h\\""},   // symbol -> header for missing-include fixes
      libraries: {"deflate": "z"},          // symbol -> library for undefined references
      budgets: {max_attempts: 8, max_wall_s: 600, search_budget_s: 20, timeout_s: 120},
    }

Unknown keys and bad values raise :class:`ConfigError` naming the key and its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .paths import CONFIG_NAME, find_config  # where the file is: in a light module (the store needs it first)
from .records import ERROR_TYPES, FAILURE_TYPES


class ConfigError(ValueError):
    """A clear, one-line description of what is wrong in the config file."""


@dataclass
class Rule:
    pattern: re.Pattern[str]
    error_type: str = ""
    failure_type: str = ""
    is_lint: bool | None = None


@dataclass
class Phase:
    name: str
    command: str
    kind: str = "build"  # build | test | other


@dataclass
class Budgets:
    max_attempts: int = 8
    max_wall_s: float = 600.0
    search_budget_s: float = 20.0
    timeout_s: float = 120.0


@dataclass
class Config:
    path: Path | None = None
    store: str = ""
    phases: list[Phase] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    libraries: dict[str, str] = field(default_factory=dict)
    budgets: Budgets = field(default_factory=Budgets)

    @property
    def root(self) -> Path | None:
        return self.path.parent if self.path else None


_TOP_KEYS = {"store", "phases", "rules", "headers", "libraries", "budgets"}
_BUDGET_KEYS = {"max_attempts": int, "max_wall_s": float, "search_budget_s": float, "timeout_s": float}


def load_config(path: Path | None = None, *, start: Path | None = None) -> Config:
    """Load the config file (found upwards from start when path is None); defaults if none."""
    path = path or find_config(start)
    if path is None:
        return Config()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from exc
    return parse_config(text, path)


def parse_config(text: str, path: Path | None = None) -> Config:
    import pyjson5

    where = str(path or CONFIG_NAME)
    try:
        data = pyjson5.decode(text)
    except Exception as exc:  # pyjson5 raises its own Json5Exception family
        raise ConfigError(f"{where}: not valid JSON5: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{where}:1: the top level must be an object")
    checker = _Checker(text, where)
    cfg = Config(path=path)
    for key in data:
        if key not in _TOP_KEYS:
            checker.fail(key, f"unknown key {key!r} (known: {', '.join(sorted(_TOP_KEYS))})")
    if "store" in data:
        cfg.store = checker.string("store", data["store"])
    for index, phase in enumerate(checker.array("phases", data.get("phases", []))):
        cfg.phases.append(checker.phase(index, phase))
    for index, rule in enumerate(checker.array("rules", data.get("rules", []))):
        cfg.rules.append(checker.rule(index, rule))
    cfg.headers = checker.string_map("headers", data.get("headers", {}))
    cfg.libraries = checker.string_map("libraries", data.get("libraries", {}))
    budgets = data.get("budgets", {})
    if not isinstance(budgets, dict):
        checker.fail("budgets", "'budgets' must be an object")
    for key, value in budgets.items():
        kind = _BUDGET_KEYS.get(key)
        if kind is None:
            checker.fail(key, f"unknown key 'budgets.{key}' (known: {', '.join(_BUDGET_KEYS)})")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            checker.fail(key, f"'budgets.{key}' must be a positive number, got {value!r}")
        elif kind is int and int(value) != value:
            checker.fail(key, f"'budgets.{key}' must be a whole number, got {value!r}")
        else:
            setattr(cfg.budgets, key, kind(value))
    return cfg


class _Checker:
    """Validation helpers that name the offending key and the line it is on."""

    def __init__(self, text: str, where: str) -> None:
        self.text = text
        self.where = where

    def line_of(self, key: str) -> int:
        match = re.search(r"""(?:^|[\s{,])["']?""" + re.escape(key) + r"""["']?\s*:""", self.text)
        return self.text.count("\n", 0, match.start()) + 1 if match else 1

    def fail(self, key: str, message: str) -> None:
        raise ConfigError(f"{self.where}:{self.line_of(key)}: {message}")

    def string(self, key: str, value: Any) -> str:
        if not isinstance(value, str):
            self.fail(key, f"'{key}' must be a string, got {type(value).__name__}")
        return str(value)

    def array(self, key: str, value: Any) -> list[Any]:
        if not isinstance(value, list):
            self.fail(key, f"'{key}' must be an array, got {type(value).__name__}")
        return list(value)

    def string_map(self, key: str, value: Any) -> dict[str, str]:
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            self.fail(key, f"'{key}' must map names to strings")
        return dict(value)

    def phase(self, index: int, value: Any) -> Phase:
        if not isinstance(value, dict):
            self.fail("phases", f"phases[{index}] must be an object")
        for key in value:
            if key not in ("name", "command", "kind"):
                self.fail(key, f"unknown key 'phases[{index}].{key}'")
        name = self.string("name", value.get("name"))
        command = self.string("command", value.get("command"))
        kind = value.get("kind", "build")
        if kind not in ("build", "test", "other"):
            self.fail("kind", f"phases[{index}].kind must be build, test or other, got {kind!r}")
        return Phase(name=name, command=command, kind=kind)

    def rule(self, index: int, value: Any) -> Rule:
        if not isinstance(value, dict):
            self.fail("rules", f"rules[{index}] must be an object")
        for key in value:
            if key not in ("pattern", "error_type", "failure_type", "is_lint"):
                self.fail(key, f"unknown key 'rules[{index}].{key}'")
        pattern_text = self.string("pattern", value.get("pattern"))
        try:
            pattern = re.compile(pattern_text)
        except re.error as exc:
            self.fail("pattern", f"rules[{index}].pattern is not a valid regex: {exc}")
            raise  # unreachable; keeps type checkers satisfied
        error_type = value.get("error_type", "")
        failure_type = value.get("failure_type", "")
        if error_type and error_type not in ERROR_TYPES:
            self.fail("error_type", f"rules[{index}].error_type {error_type!r} is not one of {', '.join(ERROR_TYPES)}")
        if failure_type and failure_type not in FAILURE_TYPES:
            self.fail("failure_type", f"rules[{index}].failure_type {failure_type!r} is not one of {', '.join(FAILURE_TYPES)}")
        is_lint = value.get("is_lint")
        if is_lint is not None and not isinstance(is_lint, bool):
            self.fail("is_lint", f"rules[{index}].is_lint must be true or false")
        if not (error_type or failure_type or is_lint is not None):
            self.fail("pattern", f"rules[{index}] needs error_type, failure_type or is_lint")
        return Rule(pattern=pattern, error_type=error_type, failure_type=failure_type, is_lint=is_lint)
