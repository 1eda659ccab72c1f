"""Root conftest: the suite drives pytest itself (pytester) and real tools.

The pytest plugin's validated fix search re-runs failing tests in a scratch copy for up to
20 s per run; the many deliberately failing pytester sessions of this suite would pay that
each time. It is off by default here (``WHETSTONE_SEARCH=0``, inherited by subprocesses);
tests that exercise it are marked ``whetstone_search``.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "whetstone_search: leave the plugin's validated fix search on")


@pytest.fixture(autouse=True)
def _whetstone_search_off(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("whetstone_search") is None:
        monkeypatch.setenv("WHETSTONE_SEARCH", "0")
    else:
        monkeypatch.delenv("WHETSTONE_SEARCH", raising=False)
