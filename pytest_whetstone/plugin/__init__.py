"""pytest plugin: native failure capture, classification and localization (``pytest -p whetstone``).

Registered through the ``pytest11`` entry point, so pytest imports this module on every run
on a machine where Whetstone is installed.  It is therefore inert unless enabled: only
``pytest_addoption`` and ``pytest_configure`` live at module level; everything else is on
one collector object (``collector.WhetstoneCollector``) registered only when
enabled by ``-p whetstone``, ``--whetstone``, ini ``whetstone = true`` or ``WHETSTONE_PYTEST=1``.
``-p no:whetstone`` blocks the module altogether.  (The model is pytest's junitxml.py.)
"""

from __future__ import annotations

import os
import shlex
from typing import Any

import pytest

from .options import add_options

ENV_ENABLE = "WHETSTONE_PYTEST"
_TRUE = ("1", "true", "yes", "on")


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def is_enabled(config: pytest.Config) -> bool:
    if getattr(config.option, "whetstone", None):
        return True
    if os.environ.get(ENV_ENABLE, "").strip().lower() in _TRUE:
        return True
    if _named_by_p(config):
        return True
    try:
        return bool(config.getini("whetstone"))
    except (ValueError, KeyError):
        return False


def _named_by_p(config: pytest.Config) -> bool:
    """Was the plugin asked for with ``-p whetstone`` (command line or PYTEST_ADDOPTS)?"""
    names = ("whetstone", "pytest_whetstone.plugin")
    known = getattr(getattr(config, "known_args_namespace", None), "plugins", None) or []
    if any(p in names for p in known):
        return True
    args = list(getattr(config.invocation_params, "args", ()) or ())
    try:
        args += shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))
    except ValueError:
        pass
    for i, arg in enumerate(args):
        if arg == "-p" and i + 1 < len(args) and args[i + 1] in names:
            return True
        if arg.startswith("-p") and arg[2:] in names:
            return True
    return False


def pytest_configure(config: pytest.Config) -> None:
    if not is_enabled(config):
        return
    from .collector import WhetstoneCollector  # imported only when enabled: an idle plugin stays light

    collector = WhetstoneCollector(config)
    config.stash[_KEY] = collector
    config.pluginmanager.register(collector, "whetstone-collector")
    if not collector.is_worker:
        from .rerun import interrupt_on_termination

        collector.restore_signals = interrupt_on_termination()
        if collector.agent:
            config.option.tbstyle = "line"  # the record lines carry the rest


def pytest_unconfigure(config: pytest.Config) -> None:
    collector = config.stash.get(_KEY, None)
    if collector is not None:
        del config.stash[_KEY]
        collector.close()
        config.pluginmanager.unregister(collector)
        collector.restore_signals()


_KEY: pytest.StashKey[Any] = pytest.StashKey()
