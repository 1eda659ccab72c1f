"""Which source line each machine instruction of a program belongs to: the DWARF line table (``-g``).

The breakpoint tracer (:mod:`.native_spectra_bp`) arms every address this table names in the
project's own sources, so a test's run says which *lines* it ran, as callgrind says, at the
tracer's cost.  A small reader of ``.debug_line`` (DWARF 2-5, 64-bit little-endian ELF) rather than
``readelf``, whose decoded output names most files without their directory, or pyelftools, which
takes 20 us a row (a leveldb test binary: 30,000 rows, 0.6 s).

Only addresses inside the program's executable sections are kept: a linker writes 0 (or -1) for
code it discarded.  Files under the system's directories (the standard library) are left out.
"""

from __future__ import annotations

import functools
import os
import posixpath
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

# The system's headers and libraries (not all of /usr: a project may be built in /usr/src/app)
SYSTEM_DIRS = ("/lib/", "/lib64/", "/lib32/", "/usr/include/", "/usr/lib", "/usr/local/include/", "/usr/local/lib",
               "/usr/share/", "/nix/store/", "/gnu/store/")
MAX_ADDRESSES = 400_000  # past this, the table is not read: arming that many would cost more than the run
_SHF_EXECINSTR = 0x4
# DWARF 5 forms a line table's directory and file entries use
_DW_FORM_block, _DW_FORM_data1, _DW_FORM_data2, _DW_FORM_data4, _DW_FORM_data8 = 0x09, 0x0B, 0x05, 0x06, 0x07
_DW_FORM_string, _DW_FORM_strp, _DW_FORM_udata, _DW_FORM_data16, _DW_FORM_line_strp = 0x08, 0x0E, 0x0F, 0x1E, 0x1F
_DW_LNCT_path, _DW_LNCT_directory_index = 1, 2
_FIXED_SIZES = {_DW_FORM_data1: 1, _DW_FORM_data2: 2, _DW_FORM_data4: 4, _DW_FORM_data8: 8, _DW_FORM_data16: 16}


@dataclass(frozen=True)
class Section:
    offset: int
    size: int
    address: int
    flags: int


def sections(binary: str) -> dict[str, Section]:
    """The ELF file's sections by name; {} for anything but a 64-bit little-endian ELF file."""
    try:
        with open(binary, "rb") as fh:
            head = fh.read(64)
            if head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return {}
            shoff, = struct.unpack_from("<Q", head, 0x28)
            shentsize, shnum, shstrndx = struct.unpack_from("<HHH", head, 0x3A)
            fh.seek(shoff)
            table = fh.read(shentsize * shnum)
            names_at, names_size = struct.unpack_from("<QQ", table, shstrndx * shentsize + 0x18)
            fh.seek(names_at)
            names = fh.read(names_size)
    except (OSError, struct.error, IndexError):
        return {}
    out: dict[str, Section] = {}
    for i in range(len(table) // shentsize if shentsize else 0):
        name_at, _type, flags, address, offset, size = struct.unpack_from("<IIQQQQ", table, i * shentsize)
        name = names[name_at:names.find(b"\0", name_at)].decode("latin-1")
        out.setdefault(name, Section(offset, size, address, flags))
    return out


def line_table(binary: str) -> dict[int, tuple[str, int]]:
    """Code address (as the file names it) -> (source path, line) for the project's own sources;
    {} without line tables.  Paths are as the compiler wrote them: absolute, or relative to where
    it ran when the table does not say."""
    try:
        info = os.stat(binary)
    except OSError:
        return {}
    return dict(_cached_table(binary, info.st_mtime_ns, info.st_size))


@functools.lru_cache(maxsize=16)
def _cached_table(binary: str, _mtime: int, _size: int) -> tuple[tuple[int, tuple[str, int]], ...]:
    found = sections(binary)
    line = found.get(".debug_line")
    if line is None:
        return ()
    code = [(s.address, s.address + s.size) for s in found.values() if s.flags & _SHF_EXECINSTR and s.address]
    try:
        with open(binary, "rb") as fh:
            data = _read(fh, line)
            strings: dict[str, bytes] = {name: _read(fh, found[name]) for name in (".debug_line_str", ".debug_str")
                                         if name in found}
    except OSError:
        return ()
    rows: dict[int, tuple[str, int]] = {}
    try:
        _decode(data, strings, code, rows)
    except (IndexError, struct.error, ValueError):
        pass  # a table cut short: the rows read so far stand
    return tuple(rows.items())


def _read(fh: BinaryIO, section: Section) -> bytes:
    fh.seek(section.offset)
    return fh.read(section.size)


def _uleb(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def _sleb(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value - (1 << shift) if byte & 0x40 else value, at


def _cstr(data: bytes, at: int) -> tuple[str, int]:
    end = data.index(b"\0", at)
    return data[at:end].decode("utf-8", "replace"), end + 1


def _decode(data: bytes, strings: dict[str, bytes], code: list[tuple[int, int]],
            rows: dict[int, tuple[str, int]]) -> None:
    at = 0
    while at + 4 <= len(data) and len(rows) <= MAX_ADDRESSES:
        length, = struct.unpack_from("<I", data, at)
        offset_size = 4
        at += 4
        if length == 0xFFFFFFFF:
            length, = struct.unpack_from("<Q", data, at)
            offset_size = 8
            at += 8
        end = at + length
        _unit(data, at, end, offset_size, strings, code, rows)
        at = end


def _unit(data: bytes, at: int, end: int, offset_size: int, strings: dict[str, bytes],
          code: list[tuple[int, int]], rows: dict[int, tuple[str, int]]) -> None:
    version, = struct.unpack_from("<H", data, at)
    at += 2
    if version < 2 or version > 5:
        return
    if version >= 5:
        at += 2  # address size, segment selector size
    header_length = int.from_bytes(data[at:at + offset_size], "little")
    at += offset_size
    program = at + header_length
    min_inst = data[at]
    at += 2 if version >= 4 else 1  # maximum operations per instruction: VLIW only
    # data[at] is default_is_stmt: every row counts, statement or not
    line_base, = struct.unpack_from("<b", data, at + 1)
    line_range, opcode_base = data[at + 2], data[at + 3]
    lengths = data[at + 4:at + 3 + opcode_base]
    at += 3 + opcode_base
    if version >= 5:
        files = _files_v5(data, at, offset_size, strings)
    else:
        files = _files_v4(data, at)
    _program(data, program, end, files, min_inst, line_base, line_range, opcode_base, lengths, code, rows)


def _files_v4(data: bytes, at: int) -> list[str]:
    dirs = [""]  # 0: where the compiler ran, which this table does not name
    while data[at]:
        name, at = _cstr(data, at)
        dirs.append(name)
    at += 1
    files = [""]  # DWARF 2-4 number files from 1
    while data[at]:
        name, at = _cstr(data, at)
        index, at = _uleb(data, at)
        _, at = _uleb(data, at)
        _, at = _uleb(data, at)
        files.append(posixpath.join(dirs[index] if index < len(dirs) else "", name))
    return files


def _files_v5(data: bytes, at: int, offset_size: int, strings: dict[str, bytes]) -> list[str]:
    def entries(at: int) -> tuple[list[dict[int, object]], int]:
        count = data[at]
        at += 1
        formats = []
        for _ in range(count):
            kind, at = _uleb(data, at)
            form, at = _uleb(data, at)
            formats.append((kind, form))
        n, at = _uleb(data, at)
        out = []
        for _ in range(n):
            entry: dict[int, object] = {}
            for kind, form in formats:
                entry[kind], at = _form(data, at, form, offset_size, strings)
            out.append(entry)
        return out, at

    dir_entries, at = entries(at)
    file_entries, _ = entries(at)
    dirs = [str(d.get(_DW_LNCT_path, "")) for d in dir_entries]
    dirs = [d if i == 0 else posixpath.join(dirs[0], d) for i, d in enumerate(dirs)]  # relative to the first
    files = []
    for f in file_entries:
        index = f.get(_DW_LNCT_directory_index, 0)
        base = dirs[index] if isinstance(index, int) and index < len(dirs) else ""
        files.append(posixpath.join(base, str(f.get(_DW_LNCT_path, ""))))
    return files


def _form(data: bytes, at: int, form: int, offset_size: int, strings: dict[str, bytes]) -> tuple[object, int]:
    if form == _DW_FORM_string:
        return _cstr(data, at)
    if form in (_DW_FORM_line_strp, _DW_FORM_strp):
        where = int.from_bytes(data[at:at + offset_size], "little")
        table = strings.get(".debug_line_str" if form == _DW_FORM_line_strp else ".debug_str", b"")
        return (_cstr(table, where)[0] if where < len(table) else ""), at + offset_size
    if form == _DW_FORM_udata:
        return _uleb(data, at)
    size = _FIXED_SIZES.get(form)
    if size is not None:
        return int.from_bytes(data[at:at + size], "little"), at + size
    if form == _DW_FORM_block:
        size, at = _uleb(data, at)
        return None, at + size
    raise ValueError(f"DWARF form {form:#x} in a line table header")


def _program(data: bytes, at: int, end: int, files: list[str], min_inst: int, line_base: int, line_range: int,
             opcode_base: int, lengths: bytes, code: list[tuple[int, int]], rows: dict[int, tuple[str, int]]) -> None:
    keep: Callable[[int], bool] = _keeper(files)
    address, file, line = 0, 1, 1

    def emit() -> None:
        if line > 0 and keep(file) and any(lo <= address < hi for lo, hi in code):
            rows[address] = (files[file], line)  # the last row at an address is the one its code has

    while at < end:
        op = data[at]
        at += 1
        if op >= opcode_base:  # special: advance address and line, emit a row
            adjusted = op - opcode_base
            address += (adjusted // line_range) * min_inst
            line += line_base + adjusted % line_range
            emit()
        elif op == 0:  # extended
            size, at = _uleb(data, at)
            sub = data[at] if size else 0
            if sub == 1:  # end of sequence
                address, file, line = 0, 1, 1
            elif sub == 2:  # set address
                address = int.from_bytes(data[at + 1:at + size], "little")
            at += size
        elif op == 1:  # copy
            emit()
        elif op == 2:
            step, at = _uleb(data, at)
            address += step * min_inst
        elif op == 3:
            step, at = _sleb(data, at)
            line += step
        elif op == 4:
            file, at = _uleb(data, at)
        elif op == 8:  # const add pc
            address += ((255 - opcode_base) // line_range) * min_inst
        elif op == 9:
            address += int.from_bytes(data[at:at + 2], "little")
            at += 2
        else:  # column, negate stmt, basic block, prologue/epilogue, isa, or one this reader does not know
            for _ in range(lengths[op - 1] if op - 1 < len(lengths) else 0):
                _, at = _uleb(data, at)


def _keeper(files: list[str]) -> Callable[[int], bool]:
    own = [0 <= i < len(files) and bool(files[i]) and not files[i].startswith(SYSTEM_DIRS) for i in range(len(files))]
    return lambda i: 0 <= i < len(own) and own[i]
