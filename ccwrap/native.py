"""Build the native ccwrap shim from shim.c with the system C compiler.

Used by ``setup.py`` at install time, by the tests and by the benchmark.
Also runnable by hand after installing without a C compiler::

    python -m ccwrap.native DEST_DIR      # writes DEST_DIR/ccwrap and DEST_DIR/ccwrap++
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = ("shim.c", "shim_args.c", "shim_store.c")
CFLAGS = ("-O2", "-std=gnu11", "-Wall", "-Wextra")
NAMES = ("ccwrap", "ccwrap++")


def find_cc() -> str | None:
    """The system C compiler: $CC if it is a plain program, else cc/gcc/clang on PATH."""
    env = os.environ.get("CC", "").split()
    candidates = ([env[0]] if len(env) == 1 and "ccwrap" not in env[0] else []) + ["cc", "gcc", "clang"]
    for name in candidates:
        path = shutil.which(name)
        if path and "ccwrap" not in os.path.basename(os.path.realpath(path)):
            return path
    return None


def build(dest_dir: Path, *, cc: str | None = None, quiet: bool = True) -> Path | None:
    """Compile the shim into dest_dir/ccwrap (+ ccwrap++); None when no compiler works."""
    cc = cc or find_cc()
    if cc is None:
        return None
    dest_dir = Path(dest_dir)
    dest_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest_dir) as tmp:
        out = Path(tmp) / "ccwrap"
        cmd = [cc, *CFLAGS, "-o", str(out), *(str(HERE / s) for s in SOURCES)]
        env = {k: v for k, v in os.environ.items() if k != "WHETSTONE_CCWRAP_DEPTH"}
        try:
            proc = subprocess.run(cmd, capture_output=quiet, env=env, timeout=300, check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        if proc.returncode != 0 or not _works(out):
            return None
        for name in NAMES:
            target = dest_dir / name
            shutil.copy2(out, target.with_name(f".{name}.tmp"))
            os.replace(target.with_name(f".{name}.tmp"), target)
            target.chmod(0o755)
    return dest_dir / "ccwrap"


def _works(binary: Path) -> bool:
    """Smoke test: a ccwrap with no compiler to find must say so and exit 127."""
    env = {"PATH": "/nonexistent", "WHETSTONE_CC": "no-such-compiler-ccwrap-probe"}
    try:
        proc = subprocess.run([str(binary), "-c", "x.c"], capture_output=True, env=env, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 127 and b"ccwrap: error:" in proc.stderr


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m ccwrap.native DEST_DIR\n")
        return 2
    built = build(Path(args[0]), quiet=False)
    if built is None:
        sys.stderr.write("ccwrap: error: could not build the native shim (no working C compiler?)\n")
        return 1
    print(built)
    return 0


if __name__ == "__main__":
    sys.exit(main())
