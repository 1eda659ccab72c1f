'use strict';
// Per-test V8 coverage for tape, preloaded with `--require` into a run that has NODE_V8_COVERAGE set.
//
// tape runs a file's tests one after another in one process, so the process's coverage says nothing
// of which test ran what.  v8.takeCoverage() writes what ran since its last call and resets the counts:
// called when each test starts and ends, it cuts the run into pieces, each the work of the test running
// then (the innermost, for a subtest).  Node names the files by process and millisecond, so two cuts in
// one millisecond would share a name: each is renamed at once, in order, and a line of
// $WHETSTONE_TAPE_TESTS says whose it is ({pid, seq, test, ok}; test null: no test was running).
// Nothing here changes what the tests do or print; without tape, or when anything fails, the hooks
// stay out and the run is an ordinary one.

const fs = require('fs');
const path = require('path');
const v8 = require('v8');

const dir = process.env.NODE_V8_COVERAGE;
const log = process.env.WHETSTONE_TAPE_TESTS;

function tapeTest() {
  try {
    return require(require.resolve('tape/lib/test', { paths: [process.cwd()] }));
  } catch (e) {
    return null;
  }
}

const Test = dir && log ? tapeTest() : null;
if (Test && typeof Test.prototype.run === 'function') {
  let seq = 0;
  const running = [];

  const cut = (test, ok) => {
    try {
      v8.takeCoverage();
      for (const name of fs.readdirSync(dir)) {
        if (name.startsWith('coverage-' + process.pid + '-')) {
          const piece = 'piece-' + process.pid + '-' + String(seq).padStart(6, '0') + '.json';
          fs.renameSync(path.join(dir, name), path.join(dir, piece));
        }
      }
      fs.appendFileSync(log, JSON.stringify({ pid: process.pid, seq, test, ok }) + '\n');
      seq += 1;
    } catch (e) {
      // a piece lost: the run goes on, and the reader finds fewer pieces than cuts
    }
  };

  const run = Test.prototype.run;
  Test.prototype.run = function () {
    // a cut costs a write of every script's counts: at a test's start only for what a subtest's parent
    // ran before it, and for the loading before the first test (the glue between two tests goes with
    // the next one)
    const outer = running[running.length - 1];
    if (outer || seq === 0) cut(outer ? outer.name : null, null);
    running.push(this);
    const t = this;
    this.once('end', () => {
      cut(t.name, !!t._ok);
      const at = running.lastIndexOf(t);
      if (at >= 0) running.splice(at, 1);
    });
    return run.apply(this, arguments);
  };
  // a test that throws outside an assertion ends tape's process: what it ran is its own, and it failed
  process.on('exit', () => {
    const last = running[running.length - 1];
    if (last) cut(last.name, false);
  });
}
