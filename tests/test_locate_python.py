"""Python localization: function spans, what a test calls, and the combined ranking."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import coverage  # noqa: F401  (kept in pytester's module snapshot, see test_plugin.py)
import hypothesis  # noqa: F401
import pytest

from pytest_whetstone.locate.python import (
    Evidence,
    called_functions,
    enclosing_function,
    function_index,
    is_impl_file,
    ochiai,
    rank_suspects,
)
from pytest_whetstone.locate.sbfl import build_spectrum
from pytest_whetstone.store.sessions import find_store, load_session

SHAPES = """
import math


class Shape:
    def area(self):
        return 0

    class Inner:
        def deep(self):
            return 1


def outer():
    def inner():
        return 2

    return inner()


async def fetch():
    return 3
"""


def test_function_index_qualnames_and_spans(tmp_path: Path) -> None:
    f = tmp_path / "shapes.py"
    f.write_text(SHAPES)
    index = function_index(f)
    assert index is not None
    quals = {fn.qualname: (fn.line_start, fn.line_end) for fn in index.functions if not fn.is_class}
    assert quals == {
        "Shape.area": (6, 7),
        "Shape.Inner.deep": (10, 11),
        "outer": (14, 18),
        "outer.<locals>.inner": (15, 16),
        "fetch": (21, 22),
    }
    assert enclosing_function(str(f), 16).qualname == "outer.<locals>.inner"  # type: ignore[union-attr]
    assert enclosing_function(str(f), 18).qualname == "outer"  # type: ignore[union-attr]
    assert enclosing_function(str(f), 2) is None
    assert function_index(tmp_path / "missing.py") is None
    (tmp_path / "bad.py").write_text("def broken(:\n")
    assert function_index(tmp_path / "bad.py") is None


def test_impl_file_excludes_tests_and_stdlib(tmp_path: Path) -> None:
    ws = str(tmp_path)
    assert is_impl_file(str(tmp_path / "pkg" / "mod.py"), ws)
    assert not is_impl_file(str(tmp_path / "tests" / "helpers.py"), ws)
    assert not is_impl_file(str(tmp_path / "test_mod.py"), ws)
    assert not is_impl_file(str(tmp_path / "conftest.py"), ws)
    assert not is_impl_file(textwrap.__file__, ws)
    assert not is_impl_file(pytest.__file__, None)


def test_called_functions_resolve_imports_statically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "geo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "shapes.py").write_text(SHAPES)
    test = tmp_path / "test_shapes.py"
    test.write_text(
        "from geo.shapes import outer\nfrom geo import shapes as s\n\n\ndef test_x():\n"
        "    assert outer() == s.fetch()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    got = called_functions(str(test), 5, None, str(tmp_path))
    assert [(Path(f).name, q) for f, q in got] == [("shapes.py", "outer"), ("shapes.py", "fetch")]


def test_ochiai() -> None:
    assert ochiai(2, 0, 2) == 1.0
    assert ochiai(1, 3, 1) == pytest.approx(0.5)
    assert ochiai(0, 5, 1) == 0.0


def test_rank_prefers_deepest_impl_frame(tmp_path: Path) -> None:
    mod = tmp_path / "pkg" / "m.py"
    mod.parent.mkdir()
    mod.write_text("def a(x):\n    return b(x)\n\n\ndef b(x):\n    return 1 / x\n")
    test = tmp_path / "tests" / "test_m.py"
    test.parent.mkdir()
    test.write_text("def test_a():\n    a(0)\n")
    ev = Evidence(str(test), 1, "test_a", frames=[(str(test), 2), (str(mod), 2), (str(mod), 6)])
    t0 = time.perf_counter()
    suspects = rank_suspects(ev, str(tmp_path))
    assert (time.perf_counter() - t0) < 0.05
    assert [s.qualname for s in suspects] == ["b", "a"]
    assert suspects[0].file_path == "pkg/m.py" and (suspects[0].line_start, suspects[0].line_end) == (5, 6)


def test_spectrum_separates_a_helper_from_its_siblings(tmp_path: Path) -> None:
    mod = tmp_path / "m.py"
    mod.write_text("def good(x):\n    return x\n\n\ndef bad(x):\n    return -x\n\n\ndef entry(x):\n    return good(x) + bad(x)\n")
    per_test = {
        "t_fail": {str(mod): {2, 6, 10}},
        "t_pass1": {str(mod): {2, 10}},
        "t_pass2": {str(mod): {2}},
    }
    spectrum = build_spectrum(per_test, {"t_fail"}, str(tmp_path))
    assert spectrum[(str(mod), "bad")] == (1, 0)
    assert spectrum[(str(mod), "good")] == (1, 2)
    ev = Evidence(str(tmp_path / "test_m.py"), 1, "test_x", spectrum=spectrum, total_failed=1)
    assert rank_suspects(ev, str(tmp_path))[0].qualname == "bad"


# --------------------------------------------------------------------------- real sessions

PROJECT = {
    "shop/__init__.py": "",
    "shop/pricing.py": '''
from shop.tax import rate


def subtotal(items):
    return sum(price * qty for price, qty in items)


def discount(amount):
    if amount > 100:
        return amount * 0.1
    return 0


def total(items):
    amount = subtotal(items)
    return round(amount - discount(amount) + amount * rate(), 2)
''',
    "shop/tax.py": '''
def rate():
    return 0.2


def parse_rate(text):
    value = float(text.strip("%"))
    return check(value) / 100


def check(value):
    if value < 0:
        raise ValueError("negative rate")
    return value
''',
    "shop/report.py": '''
def banner(title):
    return "== " + title.upper() + " =="
''',
}

TESTS = '''
from shop.pricing import total, subtotal
from shop.tax import parse_rate
from shop.report import banner


def test_subtotal():
    assert subtotal([(2, 3)]) == 6


def test_total_small():
    assert total([(10, 1)]) == 12.0


def test_parse_rate():
    assert parse_rate("-5%") == -0.05


def test_banner():
    assert banner("x") == "== X =="
'''


def _project(pytester: pytest.Pytester, subtotal_bug: bool) -> None:
    for name, text in PROJECT.items():
        path = pytester.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if subtotal_bug and name == "shop/pricing.py":
            text = text.replace("price * qty", "price + qty")
        path.write_text(text)
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_shop.py").write_text(TESTS)
    pytester.syspathinsert()


def _records(pytester: pytest.Pytester) -> dict[str, object]:
    state = load_session(find_store(pytester.path, create=False)).state()
    return {r.test_name: r for r in state.test_failures}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("WHETSTONE_DIR", "WHETSTONE_SESSION", "WHETSTONE_NESTED", "WHETSTONE_PYTEST"):
        monkeypatch.delenv(name, raising=False)


def test_wrong_return_value_without_impl_frame(pytester: pytest.Pytester) -> None:
    _project(pytester, subtotal_bug=True)
    pytester.runpytest("-p", "whetstone", "-p", "no:cacheprovider")
    recs = _records(pytester)
    r = recs["test_subtotal"]
    assert r.impl_file == ""  # the traceback never enters the implementation
    assert r.ast_node_id == "shop/pricing.py::subtotal"  # type: ignore[attr-defined]
    # test_total_small fails through subtotal too: it is among the top suspects
    quals = [s.qualname for s in recs["test_total_small"].suspects[:3]]  # type: ignore[attr-defined]
    assert "subtotal" in quals and "banner" not in quals


def test_exception_deep_in_impl(pytester: pytest.Pytester) -> None:
    _project(pytester, subtotal_bug=False)
    pytester.runpytest("-p", "whetstone", "-p", "no:cacheprovider")
    r = _records(pytester)["test_parse_rate"]
    assert r.exception_type == "ValueError"  # type: ignore[attr-defined]
    assert (r.impl_file, r.impl_line) == ("shop/tax.py", 13)  # type: ignore[attr-defined]
    assert [s.qualname for s in r.suspects[:2]] == ["check", "parse_rate"]  # type: ignore[attr-defined]


def test_sbfl_mode_ranks_the_helper(pytester: pytest.Pytester) -> None:
    # total() calls subtotal(), discount() and rate(); only the failing tests run subtotal
    _project(pytester, subtotal_bug=True)
    pytester.runpytest("-p", "whetstone", "-p", "no:cacheprovider", "--whetstone-locate=sbfl", "-k", "total")
    r = _records(pytester)["test_total_small"]
    assert r.suspects[0].qualname in ("subtotal", "total")  # type: ignore[attr-defined]


def test_locate_off_gives_no_suspects(pytester: pytest.Pytester) -> None:
    _project(pytester, subtotal_bug=True)
    pytester.runpytest("-p", "whetstone", "-p", "no:cacheprovider", "--whetstone-locate=off")
    assert all(not r.suspects for r in _records(pytester).values())  # type: ignore[attr-defined]


def test_rerun_coverage_finds_a_function_the_test_never_names(pytester: pytest.Pytester) -> None:
    # No traceback frame and no direct call reach `_scale`: only the re-run's coverage does
    # (coverage is loaded lazily on the first failure, never by a passing session).
    pkg = pytester.mkpydir("calc")
    (pkg / "core.py").write_text(
        "def _scale(x):\n    return x * 3\n\n\ndef api(x):\n    return _scale(x) + 1\n\n\n"
        "def unrelated(x):\n    return x\n"
    )
    pytester.makepyfile(test_calc="from calc.core import api\n\n\ndef test_api():\n    assert api(2) == 5\n")
    pytester.syspathinsert()
    pytester.runpytest("-p", "whetstone", "-p", "no:cacheprovider")
    record = _records(pytester)["test_api"]
    quals = [s.qualname for s in record.suspects]  # type: ignore[attr-defined]
    assert "_scale" in quals and "unrelated" not in quals
