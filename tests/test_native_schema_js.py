"""JS schemata (:mod:`pytest_whetstone.candidates.native_schema_js`): where a mutant may become a run-time
choice, and, with real node, that every choice of a schema behaves as its mutant applied alone."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_whetstone.candidates.mutant import Mutant
from pytest_whetstone.candidates.native_mutants import mutants_in
from pytest_whetstone.candidates.native_schema import schema_text
from pytest_whetstone.edits import apply_edits_text

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is needed")

# A module in the styles real code is written in: no semicolons (a "(" at a statement's start would
# call the line before), 'use strict', method calls on objects, optional chains, typeof on names that
# may not exist, delete, compound assignment, templates, arrows, getters, a multi-line call.
MODULE = """'use strict'
var base = 10
var table = { scale: 2, items: [1, 2, 3] }

function clamp(x, lo, hi) {
  if (x < lo) return lo
  if (x > hi) { return hi }
  return x
}

function total(list) {
  let sum = 0
  for (let i = 0; i < list.length; i++) {
    sum += list[i] * table.scale
  }
  ;(list.length > 2) && (sum = sum - 1)
  return sum
}

function describe(obj) {
  const name = obj?.name ?? 'anon'
  const kind = typeof missingGlobal === 'undefined' ? 'plain' : 'odd'
  const copy = Object.assign({}, obj)
  delete copy.name
  return `${name}:${kind}:${Object.keys(copy).length + 1}`
}

const counter = {
  n: 0,
  bump(by) { this.n += by; return this.n },
  get twice() { return this.n * 2 },
}

function run(list) {
  counter.n = 0
  counter.bump(list.length)
  const mapped = list.map((x) => x + base)
  const picked = Math.max(
    clamp(mapped[0], 0, 15),
    clamp(mapped[1] || 0, 0, 15)
  )
  return [total(list), describe({ name: 'box', w: list[0] }), counter.twice, picked, clamp(-list.length, 0, 3)]
}

module.exports = { run }
"""

DRIVER = """'use strict'
globalThis.whetstone_now_ = Number(process.argv[3] || 0)
globalThis.whetstone_enter_ = (lo, hi, mid) => globalThis.whetstone_now_ === mid
let out
try {
  const { run } = require(process.argv[2])
  out = [[1, 2, 3], [7], [0, 9, 4, 4], []].map((list) => { try { return run(list) } catch (e) { return 'threw ' + e.name } })
} catch (e) {
  out = 'load ' + e.name
}
console.log(JSON.stringify(out))
"""


def _mutants() -> list[Mutant]:
    data = MODULE.encode()
    return mutants_in("lib/calc.js", data, 1, MODULE.count("\n") + 1)


def test_a_schema_keeps_every_line_and_holds_most_mutants() -> None:
    mutants = _mutants()
    schema = schema_text("lib/calc.js", MODULE.encode(), mutants)
    assert schema is not None
    assert schema.text.count("\n") == MODULE.count("\n")  # no prelude, no line added
    assert not schema.text.startswith("(")  # 'use strict' stays the first statement, a directive
    assert schema.text.splitlines()[0] == "'use strict'"
    assert len(schema.ids) >= 0.8 * len(mutants)


def _choice_hosts(source: str) -> list[str]:
    """The original text of each host the schema wrote for ``source``'s mutants."""
    data = source.encode()
    schema = schema_text("a.js", data, mutants_in("a.js", data, 1, source.count("\n") + 1))
    return [] if schema is None else schema.text.splitlines()


def test_targets_callees_keys_and_directives_are_never_choices() -> None:
    lines = _choice_hosts("function f(o, k) {\n  o.count = o.count + 1\n  o.items.push(k)\n"
                          "  const m = { 'key': 1 }\n  return typeof k === 'string' && m.key > 0\n}\n")
    assert lines[1].startswith("  o.count = ")  # the target stays a reference
    assert "o.items.push(" in lines[2] and "? (o.items.push" not in lines[2]  # no method lifted off its object
    assert lines[3].startswith("  const m = { 'key': ")  # a key is no value
    assert "typeof k" in lines[4] and "typeof (" not in lines[4]


def test_a_choice_at_a_statement_start_is_written_bare() -> None:
    lines = _choice_hosts("function f(a) {\n  var b = a\n  g(a, b)\n  return b\n}\nfunction g(x, y) { return x - y }\n")
    assert lines[2].lstrip().startswith("whetstone_enter_(")  # "(" here would call the line before: `a(g(...))`
    assert "? (g(b, a))" in lines[2]


@needs_node
def test_every_choice_behaves_as_its_mutant_alone(tmp_path: Path) -> None:
    mutants = _mutants()
    schema = schema_text("lib/calc.js", MODULE.encode(), mutants)
    assert schema is not None
    (tmp_path / "driver.js").write_text(DRIVER)
    (tmp_path / "schema.js").write_text(schema.text)
    check = subprocess.run(["node", "--check", str(tmp_path / "schema.js")], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr

    def outputs(path: Path, mid: int) -> object:
        try:  # a mutant may loop (`i < n` -> `i != n`): both ways, then
            done = subprocess.run(["node", str(tmp_path / "driver.js"), str(path), str(mid)], capture_output=True,
                                  text=True, timeout=5)
        except subprocess.TimeoutExpired:
            return "loops"
        return json.loads(done.stdout) if done.returncode == 0 else f"exit {done.returncode}"

    alone = tmp_path / "alone.js"
    assert outputs(tmp_path / "schema.js", 0) == outputs(_write(alone, MODULE), 0)
    held = [m for m in mutants if m.key in schema.ids]
    step = max(1, len(held) // 60)  # every kind of mutant, bounded time: about 60 node pairs
    for mutant in held[::step]:
        _write(alone, apply_edits_text(MODULE, [mutant.edit]))
        assert outputs(tmp_path / "schema.js", schema.ids[mutant.key]) == outputs(alone, 0), \
            (mutant.edit.start.line, mutant.edit.new_text)


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_choice_inside_a_statement_start_needs_the_statement_before_ended() -> None:
    source = "function f(a) {\n  var b = a{end}\n  g(a, b).x\n  return b\n}\nfunction g(x, y) { return {x: x - y} }\n"
    unsafe = _choice_hosts(source.replace("{end}", ""))[2]
    safe = _choice_hosts(source.replace("{end}", ";"))[2]
    assert "g(b, a)" not in unsafe and unsafe.lstrip().startswith("g(")  # `a\n(c ? ...)` would call `a`
    assert safe.lstrip().startswith("(whetstone_enter_(") and "? (g(b, a))" in safe
