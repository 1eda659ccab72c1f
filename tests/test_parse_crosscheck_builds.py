"""gcc and the linker check our counts on whole builds (a small slice of bench/crosscheck_builds.py).

Each case is a real build, run twice from a clean build directory: as printed, and with
``-fdiagnostics-format=json`` on every gcc command (links too: lto1 speaks JSON); the linker's truth
is its own lines.  ``parse_text(log, "auto")`` must count what they said.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import crosscheck_builds as cb  # noqa: E402
import crosscheck_truth  # noqa: E402

pytestmark = pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("make")), reason="needs gcc and make")

DEMO = Path(__file__).resolve().parent.parent / "pytest_whetstone" / "demo" / "cproject"


def demo_job(key: str, shape: str, variant: str = "", flags: str = "-Wall -Wextra", link_flags: str = "",
             extra: dict[str, str] | None = None, fixed: bool = True) -> cb.BuildJob:
    code = cb.Code(cb.Project("demo", DEMO, "c", ["main.c", "stats.c"], ["."]), "-lm", "main.c")
    stats = (DEMO / "stats.c").read_text()
    # the demo carries a compile fault of its own; these cases link, so it is mended first
    fault = ("mended", "stats.c", stats.replace("totl +=", "total +="), "") if fixed else None
    return cb.BuildJob(key, shape, code, flags, ["main.c", "stats.c"], fault, extra=extra or {},
                       link_flags=link_flags, variant=variant)


TWIN = {"xtwin.c": '#include "stats.c"\n'}  # every function of stats.c defined twice
COMMON = {"xcommon1.c": "int xcross_shared;\nint xcross_one(void) { return xcross_shared; }\n",
          "xcommon2.c": "int xcross_shared;\nint xcross_two(void) { return xcross_shared + 1; }\n"}

DEMO_CASES = [
    ("bfd-twice", lambda: demo_job("bfd-twice", "link-bfd", "bfd", link_flags="-fuse-ld=bfd", extra=TWIN)),
    ("lld-twice", lambda: demo_job("lld-twice", "link-lld", "lld", link_flags="-fuse-ld=lld", extra=TWIN)),
    ("gold-twice", lambda: demo_job("gold-twice", "link-gold", "gold", link_flags="-fuse-ld=gold", extra=TWIN)),
    # bfd's --warn-common prints one line naming both objects: a warning
    ("bfd-common", lambda: demo_job("bfd-common", "link-bfd", "bfd", flags="-Wall -fcommon",
                                    link_flags="-fuse-ld=bfd -Wl,--warn-common", extra=COMMON)),
    ("lto-common-werror", lambda: demo_job("lto-common-werror", "lto", flags="-O2 -flto -Wall -Werror -fcommon",
                                           link_flags="-Wl,--warn-common", extra=COMMON)),
    ("lto-type", lambda: demo_job("lto-type", "lto", flags="-O2 -flto=2 -Wall", extra={
        "xlto.c": "extern double stats_sum(double, char *);\ndouble xcross_lto(double x) { return stats_sum(x, 0); }\n"})),
    # CMake's Makefiles: its own lines, gmake[2]'s summaries; the demo's compile fault as it is
    ("cmake-make", lambda: demo_job("cmake-make", "cmake-make", fixed=False)),
    ("cmake-ninja", lambda: demo_job("cmake-ninja", "cmake-ninja", fixed=False)),
]


def _needs(job: cb.BuildJob) -> None:
    tools = {"bfd": "ld.bfd", "gold": "ld.gold", "lld": "ld.lld", "mold": "mold"}
    if job.variant in tools and not shutil.which(tools[job.variant]):
        pytest.skip(f"needs {tools[job.variant]}")
    if job.shape.startswith("cmake") and not (shutil.which("cmake") and (job.shape != "cmake-ninja" or shutil.which("ninja"))):
        pytest.skip("needs cmake and ninja")


@pytest.mark.parametrize("key, make", DEMO_CASES, ids=[c[0] for c in DEMO_CASES])
def test_build_counts_equal_the_tools(tmp_path: Path, key: str, make) -> None:  # type: ignore[no-untyped-def]
    job = make()
    _needs(job)
    out = cb.run_job(job, tmp_path)
    assert out is not None
    assert out.truth or out.linker, out.text  # the tools did say something
    assert out.problems == [], out.text


@pytest.mark.parametrize("flags_name", ["message-length-80", "urls-color", "pedantic-c89", "analyzer-separate", "fortify"])
def test_text_shape_flags_on_our_small_project(tmp_path: Path, flags_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cb, "SCRATCH", tmp_path / "src")
    job = next(j for j in cb.shape_jobs() if j.key == f"shapes-{flags_name}")
    out = cb.run_job(job, tmp_path / "build")
    assert out is not None
    assert out.truth, out.text
    assert out.problems == [], out.text


def test_linker_truth_reads_bfd_gold_lld_and_mold_lines() -> None:
    # lines as the linkers print them (bfd 2.40, gold 1.16, lld 14, mold 1.10)
    text = "\n".join([
        "/usr/bin/ld: xbuild/main.o: in function `main':",
        "main.c:(.text+0x1d): undefined reference to `stats_sum'",
        "/usr/bin/ld: xbuild/mdb.o:mdb.c:(.text+0x120c2): more undefined references to `mdb_midl_need' follow",
        "/usr/bin/ld: xbuild/b.o and xbuild/a.o: warning: multiple common of `x'",
        "(.text+0x0): multiple definition of `f'; xbuild/a.o (symbol from plugin):(.text+0x0): first defined here",
        "/usr/bin/ld: error: lto-wrapper failed",
        "xbuild/main.o:main.c:function main: error: undefined reference to 'stats_sum'",
        "/usr/bin/ld.gold: xbuild/a.o: previous definition here",
        "ld.lld: error: undefined symbol: stats_sum",
        ">>> referenced by main.c",
        "ld.lld: error: too many errors emitted, stopping now (use --error-limit=0 to see all errors)",
        "mold: error: duplicate symbol: xbuild/b.o: xbuild/a.o: f",
        "collect2: error: ld returned 1 exit status",
        "main.c:3:5: warning: unused variable 'x' [-Wunused-variable]",
    ])
    said = [d.severity for d in crosscheck_truth.linker_truth(text)]
    assert said == ["error", "error", "warning", "error", "error", "error", "error"]
