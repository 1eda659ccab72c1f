"""whetstone.json5: comments allowed; unknown keys and bad values name the key and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_whetstone.classify import classify_build
from pytest_whetstone.config import ConfigError, load_config, parse_config
from pytest_whetstone.records import BuildErrorRecord

GOOD = """
// C projects can configure Whetstone without a pyproject
{
  store: ".ws",
  phases: [{name: "build", command: "make", kind: "build"}],
  rules: [{pattern: "relocation truncated", error_type: "resource_limit"}],
  headers: {"my_log": "\\"log.h\\""},
  libraries: {"deflate": "z"},
  budgets: {max_attempts: 5, timeout_s: 30},
}
"""


def test_full_config() -> None:
    cfg = parse_config(GOOD)
    assert cfg.store == ".ws"
    assert cfg.phases[0].command == "make"
    assert cfg.headers == {"my_log": '"log.h"'}
    assert cfg.libraries == {"deflate": "z"}
    assert cfg.budgets.max_attempts == 5 and cfg.budgets.timeout_s == 30.0


def test_unknown_key_names_key_and_line() -> None:
    text = '{\n  store: ".ws",\n  stoer: 1,\n}\n'
    with pytest.raises(ConfigError, match=r":3: unknown key 'stoer'"):
        parse_config(text)


def test_bad_value_names_key_and_line() -> None:
    text = "{\n  budgets: {\n    max_attempts: -1,\n  },\n}\n"
    with pytest.raises(ConfigError, match=r":3: 'budgets.max_attempts' must be a positive"):
        parse_config(text)


def test_bad_regex_and_bad_error_type() -> None:
    with pytest.raises(ConfigError, match="not a valid regex"):
        parse_config('{rules: [{pattern: "(", error_type: "unknown"}]}')
    with pytest.raises(ConfigError, match="error_type 'nope'"):
        parse_config('{rules: [{pattern: "x", error_type: "nope"}]}')


def test_not_json5() -> None:
    with pytest.raises(ConfigError, match="not valid JSON5"):
        parse_config("{store: ")


def test_found_upwards_and_defaults(tmp_path: Path) -> None:
    assert load_config(start=tmp_path).path is None
    (tmp_path / "whetstone.json5").write_text(GOOD)
    sub = tmp_path / "src"
    sub.mkdir()
    assert load_config(start=sub).store == ".ws"


def test_user_rule_wins_in_classification() -> None:
    cfg = parse_config(GOOD)
    record = BuildErrorRecord(message="relocation truncated to fit: R_X86_64_PC32", tool="linker")
    assert classify_build(record, cfg).error_type == "resource_limit"
