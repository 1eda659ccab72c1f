"""Messages printed over several lines, for :class:`.gcc.GccParser`.

A diagnostic's message (or a note's) is one line unless the compiler breaks it or the text itself
holds a newline; the pieces are joined back into the message (and its ``[-Wflag]``):

* gcc ``-fmessage-length=N``: broken after a space, before `` [`` and its flag, or inside a
  ‘quoted’ text too long for the line, the rest 3 spaces in on the next line (:func:`wrapped`);
  an ``In function`` line broken before the name (:func:`scope_rest`);
* gcc ``-fdiagnostics-show-location=every-line`` as well: every piece repeats the ``file:line:col:
  severity:`` prefix (:func:`every_line`);
* clang ``-fmessage-length=N``: broken at a space, the rest 6 spaces in (:func:`clang_piece`); code
  indented 6 spaces looks the same, and the caret line under it says it was the source echo (:func:`undo`);
* a newline in the message (an attribute's text, ``#pragma message``): the lines after the header, up
  to the source echo, are the message's.  gcc quotes such text ‘so’: while a quote is open the message
  goes on; gcc's echo (``NN | code``) cannot be one of them, so a line printed between the header and
  it is text (:func:`settle`); clang ends a message with its flag, so a line ending in one is the
  message's last (:func:`source_or_text`, :func:`flag_closes`).

The parser keeps which header opened the message (``wrap_at``, the header's facts), the piece printed
last (``wrap_tail``) and ``len(raw)`` after it (``wrap_raw``: a source echo since ends the message).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .gcc_text import (
    _COMMAND,
    _GCC_ECHO,
    _K_SCOPE,
    _colon_facts,
    _DiagFacts,
    find_symbol,
    goes_on,
    split_flag,
)

if TYPE_CHECKING:
    from .gcc import GccParser


def _join(self: GccParser, piece: str, sep: str) -> None:
    """``piece`` goes on the message (or note) the open record is printing."""
    rec = self.rec
    assert rec is not None
    if self.in_note and rec.notes:
        note = rec.notes[-1]
        text, code = split_flag(note.message + sep + piece)  # a note keeps its flag in its text
        note.message = f"{text} [{code}]" if code else text
        return
    rec.message, code = split_flag(rec.message + sep + piece)
    if code and not rec.error_code:
        rec.error_code = code
    if not rec.symbol and rec.severity != "note":
        rec.symbol = find_symbol(rec.message)


def _open_quote(self: GccParser) -> bool:
    """The message (or note) printed so far opened a ‘quote’ it did not close: it goes on."""
    text = _said(self)
    return "‘" in text and text.count("‘") > text.count("’")


def continues(self: GccParser, line: str) -> bool:
    """``line`` (3 spaces in, right after the message) is the next piece -fmessage-length broke off:
    the piece before broke after a space or " [" or inside a ‘quote’, this one is `` [-Wflag]``, or it
    ends in the flag the record still lacks (the message had a newline).  Not any line so indented:
    gcc's echo without line numbers is code indented 2 behind a one-space margin."""
    first = line[3:4]
    if first == " ":
        return line.startswith("    [-") and line.endswith("]")
    if not first or first == "\t":
        return False
    if self.wrap_tail.endswith((" ", " [")) or _open_quote(self):
        return True
    rec = self.rec
    return line.endswith("]") and rec is not None and not self.in_note and not rec.error_code \
        and bool(split_flag(line)[1])


def _sep(tail: str, piece: str, between_words: str) -> str:
    """What stood between two pieces: nothing where gcc broke after a space or an opening quote or
    bracket, or before a character it prints on its own (a quote, punctuation); else, before a word,
    ``between_words``: a newline of the message's text (3 spaces in: gcc keeps the space it broke at),
    or the space gcc dropped at the end of an over-long line (every-line, whose location prefix leaves
    little room)."""
    if tail.endswith((" ", "[", "‘", "(", "<")) or not piece[:1].isalnum():
        return ""
    return between_words


def wrapped(self: GccParser, line: str) -> bool:
    """gcc -fmessage-length: the rest of the message (or note) just opened, 3 spaces in."""
    piece = line[3:]
    _join(self, piece, _sep(self.wrap_tail, piece, "\n"))
    self._add_raw(line)
    self.wrap_tail = _said(self)
    self.may_go_on = goes_on(self.wrap_tail)
    self.wrap_raw = len(self.raw)
    return True


def _said(self: GccParser) -> str:
    """The message (or note) printed so far: the tail the next piece is judged by."""
    rec = self.rec
    assert rec is not None
    return rec.notes[-1].message if self.in_note and rec.notes else rec.message


def every_line(self: GccParser, facts: _DiagFacts, line: str) -> bool:
    """gcc -fdiagnostics-show-location=every-line with -fmessage-length: a header with the same
    place and severity as the piece printed last, which broke after a space or " [" or inside a
    ‘quote’, with nothing (no source echo) since, is the next piece of that message, not a
    diagnostic of its own."""
    at = self.wrap_at
    if at is None or len(self.raw) != self.wrap_raw or facts[:4] != at[:4]:
        return False
    message, code = facts[4], facts[5]
    piece = f"{message} [{code}]" if code else message
    _join(self, piece, _sep(self.wrap_tail, piece, " "))
    if facts[7] and not self.rec_flavor:
        self.rec_flavor = facts[7]
    self._add_raw(facts[10])
    self.wrap_tail = _said(self)
    self.may_go_on = goes_on(self.wrap_tail)
    self.wrap_raw = len(self.raw)
    return True


def clang_piece(self: GccParser, line: str) -> bool:
    """clang -fmessage-length: a line 6 spaces in right after the message (where the source echo is due)
    goes on it after a space, unless the message already ended with its flag (clang prints it last).
    The join can be taken back (:func:`undo`): source indented 6 spaces looks the same."""
    rec = self.rec
    assert rec is not None
    target = rec.notes[-1] if self.in_note and rec.notes else rec
    if len(self.raw) != self.wrap_raw or (target is rec and rec.error_code) or target.message.endswith("]"):
        return False
    self.unjoin = (rec, target.message, rec.error_code, rec.symbol, len(self.raw) + 1)
    _join(self, line[6:], " ")
    self._add_raw(line)
    self.wrap_raw = len(self.raw)
    return True


def undo(self: GccParser) -> None:
    """A caret line right after a line :func:`clang_piece` joined: that line was the source echo."""
    unjoin, self.unjoin = self.unjoin, None
    assert unjoin is not None
    rec = self.rec
    joined, message, code, symbol, raw_len = unjoin
    if rec is None or joined is not rec or len(self.raw) != raw_len:
        return
    if self.in_note and rec.notes:
        rec.notes[-1].message = message
    else:
        rec.message, rec.error_code, rec.symbol = message, code, symbol
        if len(rec.context_lines) < 32:
            rec.context_lines.append(self.raw[-1])


def source_or_text(self: GccParser, line: str) -> bool:
    """A line at column 0 where the source echo is due: clang's echo, or the message going on after a
    newline.  A line ending in the diagnostic's flag is the message's last line (no source line ends
    so); any other is taken as the echo and remembered (``held``) until the next lines tell."""
    rec = self.rec
    assert rec is not None
    if len(self.raw) == self.wrap_raw:  # the line right after the message (gcc's echo comes later)
        if _open_quote(self) and len(self.raw) < 64 and not _COMMAND.match(line):
            _join(self, line, "\n")  # gcc's ‘#pragma message: a\nb’: the quote closes on a later line
            self._add_raw(line)
            self.wrap_raw = len(self.raw)
            return True
        if not self.in_note and not rec.error_code and line.endswith("]"):
            text, code = split_flag(line)
            if code:
                rec.message, rec.error_code = f"{rec.message}\n{text}", code
                self._add_raw(line)
                self.wrap_raw = len(self.raw)
                return True  # the echo is still due
        note = rec.notes[-1] if self.in_note and rec.notes else None
        self.held = (rec, note, len(self.raw), -1 if self.in_note else len(rec.context_lines))
        self.odd = True
    self._echo_line(line)
    self.expect = "caret"
    return True


def flag_closes(self: GccParser, line: str) -> bool:
    """No caret under the line taken as clang's echo, and this one ends in the flag: both were the
    message (its text had a newline), and the echo is still due."""
    held = self.held
    rec = self.rec
    if held is None or rec is None or held[0] is not rec or held[1] is not None or rec.error_code:
        return False
    text, code = split_flag(line)
    if not code or not _take_held(self, held):
        return False
    rec.message, rec.error_code = f"{rec.message}\n{text}", code
    self._add_raw(line)
    self.wrap_raw = len(self.raw)
    self.expect = "source"
    return True


def settle(self: GccParser) -> None:
    """Before the message's record or note closes: a line held as clang's echo that gcc's echo
    followed was the message's (gcc prints its echo only after the whole message)."""
    held, self.held = self.held, None
    if held is None or held[0] is not self.rec:
        return
    k = held[2]
    if k + 1 < len(self.raw) and _GCC_ECHO.match(self.raw[k + 1]):
        _take_held(self, held)


def _take_held(self: GccParser, held: tuple) -> bool:
    """The held line goes on its message after a newline (and out of the record's context)."""
    rec, note, k, c = held
    self.held = None
    if k >= len(self.raw):
        return False
    text = self.raw[k]
    if note is not None:
        note.message += "\n" + text
        return True
    if 0 <= c < len(rec.context_lines) and rec.context_lines[c] is text:
        del rec.context_lines[c]
    rec.message += "\n" + text
    return True


def scope_rest(self: GccParser, line: str) -> bool:
    """The rest of an "In function" line -fmessage-length wrapped (``   ‘name’:``)."""
    head, self.scope_head = self.scope_head, ""
    if not line.startswith("   ") or line[3:4] == " ":
        return self._indented(line)
    joined = head + line[3:]
    kind, facts = _colon_facts(joined)
    if kind == _K_SCOPE:
        return self._scope(facts)
    if joined.endswith(" ") and len(joined) < 4096:
        self.scope_head = joined  # a long C++ name: wrapped again
    return True
