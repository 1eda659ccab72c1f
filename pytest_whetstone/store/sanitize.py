"""Coerce records read from untrusted session files into their declared field types.

Shards merged from other machines may carry wrong-typed or oversized fields; each
field is coerced to its dataclass type (or its default), strings are capped.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Union

from ..records import Record

_MAX_STRING = 1 << 20  # a single field longer than 1 MiB is cut (hostile shards)

# Per class: (field name, kind, item/record class, default) with the kind worked out once.
_Kind = tuple[str, str, Any, Any]
_TABLES: dict[type, list[_Kind]] = {}


def _field_table(cls: type) -> list[_Kind]:
    table = _TABLES.get(cls)
    if table is None:
        hints = typing.get_type_hints(cls)
        table = []
        for f in dataclasses.fields(cls):
            if f.default is not dataclasses.MISSING:
                default: Any = f.default
            elif f.default_factory is not dataclasses.MISSING:
                default = f.default_factory
            else:
                default = None
            table.append((f.name, *_kind(hints[f.name]), default))
        _TABLES[cls] = table
    return table


def _kind(hint: Any) -> tuple[str, Any]:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        inner = [a for a in typing.get_args(hint) if a is not type(None)][0]
        kind, item = _kind(inner)
        return "opt_" + kind, item
    if origin is list:
        (item,) = typing.get_args(hint)
        if isinstance(item, type) and issubclass(item, Record):
            return "records", item
        return "list", _kind(item)[0]
    if origin is dict:
        return "dict", None
    if isinstance(hint, type) and issubclass(hint, Record):
        return "record", hint
    return {str: "str", int: "int", float: "float", bool: "bool"}.get(hint, "any"), None


def sanitize(record: Record) -> Any:
    """Coerce every field of a record (recursively) to its declared type, in place.

    Session files come from other machines; a ``line`` of ``"12"`` or a
    ``message`` that is a list must not crash a report.  Unusable values fall
    back to the field's default.
    """
    for name, kind, item, default in _field_table(type(record)):
        value = getattr(record, name)
        fixed = _coerce(value, kind, item, default)
        if fixed is not value:
            object.__setattr__(record, name, fixed)
    return record


def _default(default: Any) -> Any:
    return default() if callable(default) else default


def _coerce(value: Any, kind: str, item: Any, default: Any) -> Any:
    if kind.startswith("opt_"):
        return None if value is None else _coerce(value, kind[4:], item, None)
    if kind == "str":
        if type(value) is str:
            return value if len(value) <= _MAX_STRING else value[:_MAX_STRING]
        if value is None or isinstance(value, (dict, list)):
            return _default(default) if default is not None else ""
        return str(value)
    if kind == "int":
        if type(value) is int:
            return value
        try:
            return int(float(value)) if isinstance(value, (str, float)) else (_default(default) or 0)
        except (ValueError, OverflowError):
            return _default(default) or 0
    if kind == "bool":
        return value if type(value) is bool else bool(value) if isinstance(value, (int, float)) else False
    if kind == "float":
        try:
            number = float(value) if isinstance(value, (int, float, str)) and type(value) is not bool else 0.0
        except (ValueError, OverflowError):
            return 0.0
        if number == value and type(value) is float and abs(number) != float("inf"):
            return value
        return number if number == number and abs(number) != float("inf") else 0.0
    if kind == "list":
        if type(value) is not list:
            return []
        if all(type(v) is str for v in value):
            return value
        return [_coerce(v, item, None, None) for v in value]
    if kind == "records":
        if type(value) is not list:
            return []
        return [sanitize(v) for v in value if isinstance(v, item)]
    if kind == "record":
        return sanitize(value) if isinstance(value, item) else _default(default)
    if kind == "dict":
        return value if isinstance(value, dict) else {}
    return value
