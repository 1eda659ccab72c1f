"""Command-line classification for ccwrap (the Python twin of ``shim_args.c``).

Decides whether a command is a query or preprocess-only run (passed straight
through), whether the user asked for fix-its themselves, and which inputs are
translation units.  ``@response`` files are read with libiberty's quoting rules.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

RSP_MAX_BYTES = 4 * 1024 * 1024
RSP_MAX_DEPTH = 8

TAKES_ARG = frozenset(
    "-o -x -MF -MT -MQ -MJ -I -include -imacros -isystem -iquote -idirafter -iprefix -iwithprefix "
    "-iwithprefixbefore -isysroot -imultilib -iframework -ivfsoverlay -L -l -D -U -A -Xlinker "
    "-Xassembler -Xpreprocessor -Xclang -Xarch_host -aux-info -T -u -z --param -e -arch -target "
    "-dumpbase -dumpbase-ext -dumpdir -auxbase -auxbase-strip -wrapper -F -framework -install_name "
    "-B -G --sysroot -main-file-name".split()
)
SOURCE_EXT = frozenset(
    ".c .i .ii .cc .cp .cxx .cpp .CPP .c++ .C .m .mm .M .mi .mii .s .S .sx .cppm .ixx .cu".split()
)
OTHER_INPUT_EXT = frozenset(".o .obj .a .so .lo .la .dylib .h .hh .hpp .hxx .H .gch .pch".split())
PASSTHROUGH = frozenset(
    "-E -M -MM -v -### --version -version -dumpversion -dumpfullversion -dumpmachine -dumpspecs "
    "--help --target-help -qversion --verbose".split()
)
RECORDS_SWITCHES = frozenset(["-frecord-gcc-switches", "-grecord-command-line", "-gcodeview-command-line"])


def _ext(arg: str) -> str:
    base = arg.rsplit("/", 1)[-1]
    dot = base.rfind(".")
    return base[dot:] if dot > 0 else ""


def has_source_ext(arg: str) -> bool:
    return _ext(arg) in SOURCE_EXT


def has_input_ext(arg: str) -> bool:
    ext = _ext(arg)
    return ext in SOURCE_EXT or ext in OTHER_INPUT_EXT or ".so." in arg


@dataclass
class CmdInfo:
    passthrough: bool = False
    user_fixits: bool = False
    records_switches: bool = False
    diag_format: bool = False
    is_link: bool = True
    output: str | None = None
    sources: list[str] = field(default_factory=list)


def split_rsp(text: str) -> list[str]:
    """Split response-file text like libiberty's buildargv."""
    words: list[str] = []
    i, n = 0, len(text)
    space = " \t\n\r\f\v"
    while True:
        while i < n and text[i] in space:
            i += 1
        if i >= n:
            return words
        word: list[str] = []
        quote = ""
        while i < n:
            ch = text[i]
            if quote:
                if ch == "\\" and i + 1 < n:
                    word.append(text[i + 1])
                    i += 2
                elif ch == quote:
                    quote = ""
                    i += 1
                else:
                    word.append(ch)
                    i += 1
            elif ch in space:
                break
            elif ch in "'\"":
                quote = ch
                i += 1
            elif ch == "\\" and i + 1 < n:
                word.append(text[i + 1])
                i += 2
            else:
                word.append(ch)
                i += 1
        words.append("".join(word))


def _scan_rsp(path: str, info: CmdInfo, depth: int) -> None:
    if depth > RSP_MAX_DEPTH:
        return
    try:
        with open(path, "rb") as handle:
            data = handle.read(RSP_MAX_BYTES + 1)
    except OSError:
        return  # gcc then takes "@path" literally; so do we
    if not data or len(data) > RSP_MAX_BYTES:
        return
    _scan(split_rsp(data.decode("utf-8", "surrogateescape")), info, depth)


def _scan(args: list[str], info: CmdInfo, depth: int) -> None:
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        nxt = args[i + 1] if i + 1 < len(args) else None
        if arg.startswith("@") and len(arg) > 1:
            _scan_rsp(arg[1:], info, depth + 1)
            continue
        if not arg.startswith("-") or arg == "-":
            if has_source_ext(arg):
                info.sources.append(arg)
            continue
        if arg in PASSTHROUGH or arg.startswith(("-print-", "--print-", "--help=")):
            info.passthrough = True
        if arg in ("-c", "-S", "-fsyntax-only"):
            info.is_link = False
        if arg == "-fdiagnostics-parseable-fixits":
            info.user_fixits = True
        if arg in RECORDS_SWITCHES:
            info.records_switches = True
        if arg.startswith("-fdiagnostics-format="):
            info.diag_format = True
        if arg == "-o":
            info.output = nxt
        elif arg.startswith("-o") and len(arg) > 2:
            info.output = arg[2:]
        if arg in TAKES_ARG and nxt is not None:
            skip = True


def scan(args: list[str]) -> CmdInfo:
    info = CmdInfo()
    _scan(list(args), info, 0)
    return info


def origins(info: CmdInfo, cwd: str) -> list[str]:
    """Where this command's diagnostics are filed: one ``tu:`` per source, ``link:`` otherwise."""
    sources = [abs_normpath(cwd, s) for s in info.sources]
    out = [f"tu:{s}" for s in sources]
    if not sources or (info.is_link and len(sources) > 1):
        output = abs_normpath(cwd, info.output) if info.output and info.output != "-" else cwd
        out.append(f"link:{output}")
    return out


def abs_normpath(cwd: str, path: str) -> str:
    return os.path.normpath(os.path.join(cwd, path))
