"""The dispatcher's steps around one line or one batch (parse/__init__.py's ``_dispatch`` drives them):
a line of the other stream handed to its owner, a parser flushed, and the records no live parser can
still change taken out of a streamed result."""

from __future__ import annotations

from ..classify import SAME_PLACE_REACH
from .base import LineParser, ParseContext, ParseResult
from .stream import Record


def interject(line: str, active: LineParser, owners: list[LineParser], parsers: list[LineParser],
               dead: list[LineParser], ctx: ParseContext, line_no: int) -> bool:
    """A line of another stream that landed inside a test runner's record (``LineParser.interjects``):
    its owner takes it and the record goes on.  False when the line is none."""
    if not active.runner or ctx.interjection is None or not ctx.interjection.match(line):
        return False
    for owner in owners:
        if owner in parsers and owner.interjects is not None and owner.interjects.match(line):
            ctx.line_no = line_no
            try:
                if owner.feed(line):
                    return True
            except Exception:  # noqa: BLE001 - never raise on input; drop the parser
                dead.append(owner)
                parsers.remove(owner)
    return False


def drain(result: ParseResult, parsers: list[LineParser], *, final: bool) -> list[Record]:
    """Take out of ``result`` the records no live parser can still change, and that have
    ``SAME_PLACE_REACH`` such records after them (classify.same_place looks that far ahead)."""
    errors = result.build_errors
    cut = len(errors)
    if not final and cut:
        cut -= 1  # the linker may still add notes to the newest record
        held = [h for h in (p.holds() for p in parsers) if h is not None]
        if held:
            for k in range(cut):
                record = errors[k]
                if any(record is h for h in held):
                    cut = k
                    break
        cut = max(0, cut - SAME_PLACE_REACH)
    ready: list[Record] = list(errors[:cut])
    if cut:
        for k in range(cut - 1, -1, -1):
            if errors[k].severity == "error":
                result.drained_error = result.drained + k
                break
        del errors[:cut]
        result.drained += cut
    if result.test_failures:
        ready.extend(result.test_failures)
        result.test_failures.clear()
    return ready


def flush_parser(parser: LineParser, parsers: list[LineParser], dead: list[LineParser]) -> None:
    try:
        parser.flush()
    except Exception:  # noqa: BLE001
        dead.append(parser)
        if parser in parsers:
            parsers.remove(parser)
