"""The plugin's options read once, typed: flags, --no- switches, ini twins, the config file's budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_whetstone.plugin.options import DEFAULT_SEARCH_BUDGET_S, PluginOptions


def _options(pytester: pytest.Pytester, *args: str) -> PluginOptions:
    """Configure pytest in-process with the plugin and return what it read."""
    config = pytester.parseconfigure("-p", "whetstone", *args)
    collector = config.pluginmanager.get_plugin("whetstone-collector")
    assert collector is not None
    options: PluginOptions = collector.options
    return options


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("WHETSTONE_SEARCH", "WHETSTONE_SEARCH_BUDGET", "WHETSTONE_DIR", "AGENT", "AI_AGENT"):
        monkeypatch.delenv(name, raising=False)


def test_defaults(pytester: pytest.Pytester) -> None:
    options = _options(pytester)
    assert options == PluginOptions(search_budget_s=DEFAULT_SEARCH_BUDGET_S)


def test_switches_both_ways(pytester: pytest.Pytester) -> None:
    assert _options(pytester, "--no-whetstone-search").search_budget_s == 0
    assert _options(pytester, "--whetstone-search", "0").search_budget_s == 0
    assert _options(pytester, "--no-whetstone-candidates").candidates is False
    on = _options(pytester, "--whetstone-search=1", "--whetstone-search-budget", "7")
    assert (on.search_budget_s, on.search_explicit) == (7.0, True)


def test_ini_twins_are_typed(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nwhetstone_search = false\nwhetstone_candidates = no\nwhetstone_rerun = 0\n"
                     "whetstone_locate = static\nwhetstone_max_candidates = 3\n")
    options = _options(pytester)
    assert (options.search_budget_s, options.candidates, options.rerun, options.locate, options.max_candidates) == (
        0.0, False, 0, "static", 3)


def test_the_config_files_search_budget_is_honoured(pytester: pytest.Pytester) -> None:
    (Path(pytester.path) / "whetstone.json5").write_text("{budgets: {search_budget_s: 4}}")
    assert _options(pytester).search_budget_s == 4.0
    assert _options(pytester, "--whetstone-search-budget", "9").search_budget_s == 9.0  # the flag wins


def test_environment_and_agent(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WHETSTONE_SEARCH", "off")
    monkeypatch.setenv("AI_AGENT", "an-agent")
    options = _options(pytester)
    assert options.search_budget_s == 0 and options.agent is True
