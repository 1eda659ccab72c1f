"""The edit engine: plan/diff/apply/undo, refusals, byte-exact undo."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_whetstone import edits
from pytest_whetstone.candidates.hashing import record_hashes
from pytest_whetstone.edits import EditError
from pytest_whetstone.records import FixCandidate, Position, TextEdit
from pytest_whetstone.store.sessions import find_store, load_session, open_session


def te(path: str, sl: int, sc: int, el: int, ec: int, text: str) -> TextEdit:
    return TextEdit(file_path=path, start=Position(sl, sc), end=Position(el, ec), new_text=text)


def cand(*es: TextEdit, cid: str = "") -> FixCandidate:
    c = FixCandidate(target_id="E1", description="d", mutation_type="replaceNode", edits=list(es))
    c.candidate_id = cid
    return c.ensure_id()


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


@pytest.fixture()
def session(ws: Path):
    return open_session(find_store(ws), "s1")


# ------------------------------------------------------------------ text level


def test_apply_text_replace_insert_delete() -> None:
    text = "int main() {\n  return 0\n}\n"
    out = edits.apply_edits_text(
        text,
        [te("f", 2, 11, 2, 11, ";"), te("f", 1, 1, 1, 1, "#include <stdio.h>\n"), te("f", 2, 10, 2, 11, "1")],
    )
    assert out == "#include <stdio.h>\nint main() {\n  return 1;\n}\n"



def test_texts_applied_in_turn_each_keep_their_own_lines() -> None:
    one, two = "a\nbb\nccc\n", "x\r\ny\r\n"
    for _ in range(2):  # the second time round, each text after the other: no line table of the other's
        assert edits.apply_edits_text(one, [te("f", 3, 2, 3, 3, "Z")]) == "a\nbb\ncZc\n"
        assert edits.apply_edits_text(two, [te("f", 2, 1, 2, 2, "w\nv")]) == "x\r\nw\r\nv\r\n"
    assert edits.apply_edits_text(one, [te("f", 2, 1, 2, 3, "")]) == "a\n\nccc\n"

def test_columns_are_characters_not_bytes() -> None:
    text = 'const char *s = "é"; int x = y;\n'
    col = text.index("y") + 1  # character column
    assert edits.apply_edits_text(text, [te("f", 1, col, 1, col + 1, "z")]).endswith("x = z;\n")


def test_overlapping_edits_refused() -> None:
    with pytest.raises(EditError, match="overlapping"):
        edits.apply_edits_text("abcdef\n", [te("f", 1, 1, 1, 4, "x"), te("f", 1, 3, 1, 5, "y")])
    with pytest.raises(EditError, match="overlapping"):  # two inserts at one point: order unknown
        edits.apply_edits_text("abc\n", [te("f", 1, 2, 1, 2, "x"), te("f", 1, 2, 1, 2, "y")])


def test_adjacent_edits_allowed() -> None:
    out = edits.apply_edits_text("abcdef\n", [te("f", 1, 1, 1, 3, "X"), te("f", 1, 3, 1, 5, "Y")])
    assert out == "XYef\n"


@pytest.mark.parametrize(
    "pos", [(0, 1), (5, 1), (1, 0), (1, 9)], ids=["line0", "line-past", "col0", "col-past"]
)
def test_out_of_range_positions_refused(pos: tuple[int, int]) -> None:
    with pytest.raises(EditError, match="out of range"):
        edits.apply_edits_text("abc\nde\n", [te("f", *pos, *pos, "x")])


def test_end_before_start_refused() -> None:
    with pytest.raises(EditError, match="before it starts"):
        edits.apply_edits_text("abcdef\n", [te("f", 1, 4, 1, 2, "x")])


def test_crlf_preserved_for_inserted_lines() -> None:
    out = edits.apply_edits_text("a\r\nb\r\n", [te("f", 2, 1, 2, 1, "x\ny\n")])
    assert out == "a\r\nx\r\ny\r\nb\r\n"


def test_end_of_file_position() -> None:
    assert edits.apply_edits_text("a\n", [te("f", 2, 1, 2, 1, "b\n")]) == "a\nb\n"
    # No trailing newline: the end of the last line is the end of the file.
    assert edits.apply_edits_text("a", [te("f", 1, 2, 1, 2, ";")]) == "a;"


# ------------------------------------------------------------------ refusals


def test_refuses_outside_and_dotdot(ws: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    other = tmp_path_factory.mktemp("other") / "x.c"
    other.write_text("int x;\n")
    with pytest.raises(EditError, match="outside the workspace"):
        edits.plan([te(str(other), 1, 1, 1, 1, "//")], ws)
    with pytest.raises(EditError, match="outside the workspace"):
        edits.plan([te("../" + ws.name + "_nope/x.c", 1, 1, 1, 1, "//")], ws)
    with pytest.raises(EditError, match="outside the workspace"):
        edits.plan([te("sub/../../x.c", 1, 1, 1, 1, "//")], ws)
    assert other.read_text() == "int x;\n"


def test_refuses_symlink_leaving_workspace(ws: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.c").write_text("int s;\n")
    os.symlink(outside, ws / "link")
    os.symlink(outside / "secret.c", ws / "file.c")
    for name in ("link/secret.c", "file.c"):
        with pytest.raises(EditError, match="outside the workspace"):
            edits.plan([te(name, 1, 1, 1, 1, "//")], ws)
    assert (outside / "secret.c").read_text() == "int s;\n"


def test_symlink_inside_workspace_edits_target_and_keeps_link(ws: Path, session) -> None:
    (ws / "real.c").write_text("int a;\n")
    os.symlink("real.c", ws / "alias.c")
    edits.apply(cand(te("alias.c", 1, 5, 1, 6, "b")), ws, session)
    assert (ws / "alias.c").is_symlink()
    assert (ws / "real.c").read_text() == "int b;\n"


def test_refuses_changed_file(ws: Path, session) -> None:
    f = ws / "a.c"
    f.write_text("int a;\n")
    c = record_hashes(cand(te("a.c", 1, 5, 1, 6, "b")), ws)
    assert c.mutation["file_hashes"] == {"a.c": edits.sha256_bytes(b"int a;\n")}
    f.write_text("int a; /* user edit */\n")
    with pytest.raises(EditError, match="changed since"):
        edits.apply(c, ws, session)
    # explicit expected hashes win over the recorded ones
    with pytest.raises(EditError, match="changed since"):
        edits.apply(cand(te("a.c", 1, 5, 1, 6, "b")), ws, session, expected_hashes={"a.c": "0" * 64})
    assert f.read_text() == "int a; /* user edit */\n"
    assert load_session(session.store, "s1").state().applied == []


def test_refuses_binary_and_keeps_non_utf8_bytes(ws: Path, session) -> None:
    (ws / "b.o").write_bytes(b"\x7fELF\x00\x01")
    (ws / "l1.c").write_bytes(b"/* caf\xe9 */ int a = 1;\n")
    with pytest.raises(EditError, match="binary"):
        edits.plan([te("b.o", 1, 1, 1, 1, "x")], ws)
    # a Latin-1 byte is one column and is written back as it was
    edits.apply(cand(te("l1.c", 1, 20, 1, 21, "2")), ws, session)
    assert (ws / "l1.c").read_bytes() == b"/* caf\xe9 */ int a = 2;\n"
    edits.undo(session)
    assert (ws / "l1.c").read_bytes() == b"/* caf\xe9 */ int a = 1;\n"
    with pytest.raises(EditError, match="not UTF-8"):  # U+FFFD would stand for the lost byte
        edits.plan([te("l1.c", 1, 4, 1, 8, "caf\ufffd")], ws)


def test_missing_file_refused_unless_creation(ws: Path, session) -> None:
    with pytest.raises(EditError, match="does not exist"):
        edits.plan([te("nope.c", 2, 1, 2, 1, "x")], ws)
    entry = edits.apply(cand(te("new.h", 1, 1, 1, 1, "#pragma once\n")), ws, session)
    assert (ws / "new.h").read_text() == "#pragma once\n"
    edits.undo(session)
    assert not (ws / "new.h").exists()
    assert entry.pre_images["new.h"]["sha256"] is None


def test_manual_candidate_refused(ws: Path, session) -> None:
    with pytest.raises(EditError, match="manual"):
        edits.apply(FixCandidate(description="install zlib").ensure_id(), ws, session)


# ------------------------------------------------------------------ apply + undo


CASES = {
    "insert": (b"int main() {\n}\n", [te("f.c", 1, 1, 1, 1, "#include <math.h>\n")]),
    "delete": (b"int x;;\nint y;\n", [te("f.c", 1, 7, 1, 8, "")]),
    "replace": (b"int mian(void);\n", [te("f.c", 1, 5, 1, 9, "main")]),
    "crlf": (b"int a\r\nint b;\r\n", [te("f.c", 1, 6, 1, 6, ";"), te("f.c", 2, 1, 2, 1, "int c;\n")]),
    "no-trailing-newline": (b"int a = 1", [te("f.c", 1, 9, 1, 10, "2;")]),
    "multi-line-delete": (b"a\nb\nc\n", [te("f.c", 1, 2, 3, 1, "\n")]),
}


@pytest.mark.parametrize("kind", list(CASES))
def test_undo_restores_byte_for_byte(ws: Path, session, kind: str) -> None:
    before, es = CASES[kind]
    f = ws / "f.c"
    f.write_bytes(before)
    f.chmod(0o640)
    c = record_hashes(cand(*es), ws)
    text = edits.candidate_diff(c, ws)
    assert text.startswith("--- a/f.c\n+++ b/f.c\n")
    entry = edits.apply(c, ws, session)
    after = f.read_bytes()
    assert after != before
    assert (f.stat().st_mode & 0o777) == 0o640
    if kind == "crlf":
        assert after == b"int a;\r\nint c;\r\nint b;\r\n"
    if kind == "no-trailing-newline":
        assert after == b"int a = 2;"
        assert "\\ No newline at end of file" in text
    state = load_session(session.store, "s1").state()
    assert [a["journal_id"] for a in state.applied] == [entry.journal_id]
    assert state.applied[0]["pre_images"]["f.c"]["content"].encode() == before
    assert state.applied[0]["fingerprint"] == c.edits_fingerprint()
    edits.undo(session)
    assert f.read_bytes() == before
    assert (f.stat().st_mode & 0o777) == 0o640
    assert load_session(session.store, "s1").state().applied == []
    assert not list(ws.glob(".*whetstone-tmp"))


def test_multi_file_apply_and_undo(ws: Path, session) -> None:
    (ws / "a.c").write_text("int a;\n")
    (ws / "b.c").write_text("int b;\n")
    c = cand(te("a.c", 1, 5, 1, 6, "aa"), te("b.c", 1, 5, 1, 6, "bb"))
    entry = edits.apply(c, ws, session)
    assert entry.files == ["a.c", "b.c"]
    assert (ws / "a.c").read_text() == "int aa;\n" and (ws / "b.c").read_text() == "int bb;\n"
    assert "undo" not in edits.undo_last(session.store, "s1")  # message names the journal
    assert (ws / "a.c").read_text() == "int a;\n" and (ws / "b.c").read_text() == "int b;\n"


def test_multi_file_all_or_nothing(ws: Path, session, monkeypatch: pytest.MonkeyPatch) -> None:
    (ws / "a.c").write_text("int a;\n")
    (ws / "b.c").write_text("int b;\n")
    real = edits._atomic_write
    calls = []

    def flaky(path: Path, data: bytes, mode: int | None) -> None:
        calls.append(path.name)
        if path.name == "b.c" and calls.count("b.c") == 1:
            raise OSError(28, "No space left on device", str(path))
        real(path, data, mode)

    monkeypatch.setattr(edits, "_atomic_write", flaky)
    with pytest.raises(EditError, match="No space left"):
        edits.apply(cand(te("a.c", 1, 5, 1, 6, "aa"), te("b.c", 1, 5, 1, 6, "bb")), ws, session)
    assert (ws / "a.c").read_text() == "int a;\n"
    assert (ws / "b.c").read_text() == "int b;\n"
    assert load_session(session.store, "s1").state().applied == []


def test_undo_refuses_file_changed_after_apply_unless_forced(ws: Path, session) -> None:
    f = ws / "a.c"
    f.write_text("int a;\n")
    edits.apply(cand(te("a.c", 1, 5, 1, 6, "b")), ws, session)
    f.write_text("int b; // edited by hand\n")
    with pytest.raises(EditError, match="changed since the candidate was applied"):
        edits.undo(session)
    assert f.read_text() == "int b; // edited by hand\n"
    edits.undo(session, force=True)
    assert f.read_text() == "int a;\n"


def test_undo_order_and_nothing_left(ws: Path, session) -> None:
    f = ws / "a.c"
    f.write_text("x\n")
    edits.apply(cand(te("a.c", 1, 1, 1, 2, "y")), ws, session)
    edits.apply(cand(te("a.c", 1, 1, 1, 2, "z")), ws, session)
    edits.undo(session)
    assert f.read_text() == "y\n"
    edits.undo(session)
    assert f.read_text() == "x\n"
    with pytest.raises(EditError, match="nothing to undo"):
        edits.undo(session)


def test_undo_never_trusts_session_paths(ws: Path, session, tmp_path_factory) -> None:
    outside = tmp_path_factory.mktemp("victim") / "v.txt"
    outside.write_text("keep\n")
    session.append(
        "applied",
        {
            "journal_id": "Jevil",
            "files": [str(outside)],
            "pre_images": {str(outside): {"sha256": None, "content": "pwned\n"}},
            "post_hashes": {},
        },
    )
    with pytest.raises(EditError, match="outside the workspace"):
        edits.undo(session, force=True)
    assert outside.read_text() == "keep\n"


def test_apply_by_id_dry_run_and_apply(ws: Path, session) -> None:
    f = ws / "m.c"
    f.write_text("int mian(void) { return 0; }\n")
    c = record_hashes(cand(te("m.c", 1, 5, 1, 9, "main")), ws)
    session.append("candidates", {"records": [c.to_dict()]})
    text, journal = edits.apply_candidate_by_id(session.store, "s1", c.candidate_id[:6], dry_run=True)
    assert journal is None and "-int mian" in text and "+int main" in text
    assert f.read_text().startswith("int mian")
    text2, journal = edits.apply_candidate_by_id(session.store, "s1", c.candidate_id, dry_run=False)
    assert text2 == text and journal is not None
    assert f.read_text().startswith("int main")
    with pytest.raises(EditError, match="no candidate"):
        edits.apply_candidate_by_id(session.store, "s1", "Cnope", dry_run=True)
