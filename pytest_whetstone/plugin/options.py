"""The plugin's options: command-line flags with typed ini twins, read once in ``pytest_configure``.

Precedence, first that is set: the command line, the environment (``WHETSTONE_SEARCH``,
``WHETSTONE_SEARCH_BUDGET``, ``WHETSTONE_DIR``), the ini twin, ``whetstone.json5`` (``budgets.
search_budget_s``), the default.  (The shape is pytest's junitxml: ``parser.getgroup`` plus
``addini`` twins, one object holding what was read.)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pytest

LOCATE_MODES = ("auto", "static", "coverage", "sbfl", "off")
DEFAULT_SEARCH_BUDGET_S = 20.0
_OFF = ("0", "false", "no", "off")


@dataclass(frozen=True)
class PluginOptions:
    store_dir: str | None = None
    rerun: int = 1  # re-runs of a failing test (flakiness, coverage); 0 = off
    locate: str = "auto"
    max_candidates: int = 5
    candidates: bool = True
    search_budget_s: float = DEFAULT_SEARCH_BUDGET_S  # 0: the validated search is off
    search_explicit: bool = False  # asked for (flag, env, ini, whetstone fix), not the default
    agent: bool = False


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("whetstone", "Whetstone: structured failure records, localization, verdict")
    group.addoption(
        "--whetstone", action="store_true", default=None, dest="whetstone",
        help="enable Whetstone (same as -p whetstone, ini 'whetstone = true' or WHETSTONE_PYTEST=1)",
    )
    group.addoption(
        "--whetstone-dir", default=None, dest="whetstone_dir", metavar="DIR",
        help="store directory for sessions (default: $WHETSTONE_DIR or the nearest .whetstone/)",
    )
    group.addoption(
        "--whetstone-rerun", default=None, dest="whetstone_rerun", type=int, metavar="N",
        help="re-run each failing test once to detect flakiness and measure coverage (0 = off; default 1)",
    )
    group.addoption(
        "--whetstone-locate", default=None, dest="whetstone_locate", choices=LOCATE_MODES,
        help="localization: auto (default), static, coverage, sbfl (trace the whole suite), off",
    )
    group.addoption(
        "--whetstone-max-candidates", default=None, dest="whetstone_max_candidates", type=int, metavar="N",
        help="suspects per failure and fix candidates kept (default 5)",
    )
    _switch(group, "candidates", "propose fix candidates for the failures (default on)")
    _switch(group, "search", "search small edits at the top suspects and validate them by re-running the "
            "failing tests in a scratch copy (default: within a share of the run's own time)")
    group.addoption(
        "--whetstone-search-budget", default=None, dest="whetstone_search_budget", type=float, metavar="S",
        help=f"seconds the validated search may spend per run (default {DEFAULT_SEARCH_BUDGET_S:g})",
    )
    group.addoption(
        "--whetstone-agent", action="store_true", default=None, dest="whetstone_agent",
        help="an agent drives: one line per failure (class, place, expected/actual, suspect), the top "
        "candidates and the verdict; pytest's own tracebacks shortened to a line (default: on when "
        "$AGENT or $AI_AGENT is set)",
    )
    parser.addini("whetstone", type="bool", default=False, help="enable the Whetstone plugin")
    parser.addini("whetstone_candidates", type="bool", default=True, help="propose fix candidates")
    parser.addini("whetstone_search", type="bool", default=True, help="the validated fix search")
    parser.addini("whetstone_search_budget", type="string", default="", help="seconds for the validated fix search")
    parser.addini("whetstone_dir", type="string", default="", help="Whetstone store directory")
    parser.addini("whetstone_rerun", type="string", default="1", help="re-runs of a failing test (0 = off)")
    parser.addini("whetstone_locate", type="string", default="auto", help="auto|static|coverage|sbfl|off")
    parser.addini("whetstone_max_candidates", type="string", default="5", help="suspects / candidates kept")


def _switch(group: Any, name: str, help_text: str) -> None:
    """``--whetstone-NAME 0|1`` as it always was, and ``--no-whetstone-NAME``."""
    dest = f"whetstone_{name}"
    group.addoption(f"--whetstone-{name}", default=None, dest=dest, type=int, choices=(0, 1), metavar="0|1",
                    help=f"{help_text}; 0 = off")
    group.addoption(f"--no-whetstone-{name}", action="store_const", const=0, dest=dest,
                    help=f"the same as --whetstone-{name} 0")


def read_options(config: pytest.Config) -> PluginOptions:
    """Everything the plugin is told, read once."""
    locate = str(_cli_or_ini(config, "whetstone_locate") or "auto")
    return PluginOptions(
        store_dir=str(_cli_or_ini(config, "whetstone_dir") or "") or None,
        rerun=_int(_cli_or_ini(config, "whetstone_rerun"), 1),
        locate=locate if locate in LOCATE_MODES else "auto",
        max_candidates=max(1, _int(_cli_or_ini(config, "whetstone_max_candidates"), 5)),
        candidates=bool(_cli_or_ini(config, "whetstone_candidates")),
        search_budget_s=_search_budget(config),
        search_explicit=_search_explicit(config),
        agent=_agent(config),
    )


def _cli_or_ini(config: pytest.Config, name: str) -> Any:
    value = getattr(config.option, name, None)
    if value is not None:
        return value
    try:
        return config.getini(name)
    except (ValueError, KeyError):
        return None


def _int(value: Any, default: int) -> int:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return default


def _search_budget(config: pytest.Config) -> float:
    """Seconds for the validated search (0 = off)."""
    enabled = getattr(config.option, "whetstone_search", None)
    env = os.environ.get("WHETSTONE_SEARCH", "").strip().lower()
    if enabled is None and env:
        enabled = env not in _OFF
    if enabled is None:
        enabled = _cli_or_ini(config, "whetstone_search")
    if not enabled:
        return 0.0
    budget: Any = getattr(config.option, "whetstone_search_budget", None)
    if budget is None:
        budget = os.environ.get("WHETSTONE_SEARCH_BUDGET") or _cli_or_ini(config, "whetstone_search_budget")
    if budget in (None, ""):
        budget = _configured_budget(config)
    try:
        return max(0.0, float(budget))
    except (TypeError, ValueError):
        return DEFAULT_SEARCH_BUDGET_S


def _configured_budget(config: pytest.Config) -> float:
    """``budgets.search_budget_s`` of the project's whetstone.json5, else the default."""
    from ..config import ConfigError, load_config

    try:
        return float(load_config(start=config.rootpath).budgets.search_budget_s)
    except (ConfigError, OSError, TypeError, ValueError):
        return DEFAULT_SEARCH_BUDGET_S


def _search_explicit(config: pytest.Config) -> bool:
    """Did the user (or ``whetstone fix``) ask for the search, rather than get it by default?"""
    if getattr(config.option, "whetstone_search", None) is not None:
        return True
    if getattr(config.option, "whetstone_search_budget", None) is not None:
        return True
    if any(os.environ.get(k, "").strip() for k in ("WHETSTONE_SEARCH", "WHETSTONE_SEARCH_BUDGET")):
        return True
    inicfg = getattr(config, "inicfg", {}) or {}
    return any(k in inicfg for k in ("whetstone_search", "whetstone_search_budget"))


def _agent(config: pytest.Config) -> bool:
    if getattr(config.option, "whetstone_agent", None):
        return True
    from ..audience import is_agent_environment

    return is_agent_environment()
