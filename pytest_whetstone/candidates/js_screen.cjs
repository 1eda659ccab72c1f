'use strict';
// Runs a project's tape test files once per mutant in one node process (whetstone's JS schema screen).
// argv[2]: a JSON file {root, files, requires, tape, fd}.  Requests arrive on stdin, one JSON line each
// ({id, target, schema, timeout_ms, reached, spins?, files?, only?}); each answer is one JSON line on file
// descriptor `fd` ({id, tap, rc, error, ms, exit, tops}: tops, the paths of the tests that failed).
// For each run the file `target` is loaded as the text of the file `schema`, read afresh (a schema, its
// mutants behind the global `whetstone_now_`, or one mutant's own text), every other file as written: one
// process serves every file.
// Between runs every module of the project (and tape's own files) is dropped from the require cache,
// so each run loads the test files afresh, as `tape a.js b.js` would; the packages tape and the
// project use stay loaded.  A run that crashes or times out is answered with `exit: true` and the
// process ends: the caller starts a fresh one.
const fs = require('fs');
const Module = require('module');
const path = require('path');
const readline = require('readline');

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const real = (p) => { try { return fs.realpathSync(p); } catch (e) { return p; } };
let target = '';  // the running mutant's file, and its schema's text
let schemaText = '';
const tapeIndex = real(config.tape);
const tapeDir = path.dirname(tapeIndex) + path.sep;
const answerFd = config.fd;
process.chdir(config.root);
process.setMaxListeners(0);

for (const ext of ['.js', '.cjs']) {
  const load = Module._extensions[ext] || Module._extensions['.js'];
  Module._extensions[ext] = function (module, filename) {
    if (filename === target) { module._compile(schemaText, filename); return; }
    load(module, filename);
  };
}

globalThis.whetstone_now_ = 0;
let reached = null;  // ids whose expression ran, when the request asks
let seen = null;
let evaluations = 0;  // how many times any mutated expression ran, in a run that records the reach
let runs = null;  // and each host's, by its first id
let spins = 0;  // how many times the switched-on mutant's expression ran, and the run's bound on that (0: none)
let spinLimit = 0;
globalThis.whetstone_enter_ = function (lo, hi, mid) {
  if (reached !== null) {
    evaluations++;
    runs.set(lo, (runs.get(lo) || 0) + 1);
    if (!seen.has(lo)) for (let id = lo; id <= hi; id++) { seen.add(id); reached.push(id); }
  }
  const now = globalThis.whetstone_now_;
  // a mutated loop condition or step that never yields: the timer cannot fire, so the count ends the run
  if (spinLimit > 0 && now >= lo && now <= hi && ++spins > spinLimit) finish(1, 'timed out', true);
  return now === mid;
};

let captured = null;  // what the running mutant's tests print, as a tape process's stdout would hold it
for (const stream of [process.stdout, process.stderr]) {
  stream.write = function (chunk, encoding, callback) {
    if (captured !== null) captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    if (typeof encoding === 'function') encoding();
    else if (typeof callback === 'function') callback();
    return true;
  };
}

function answer(obj) {
  fs.writeSync(answerFd, JSON.stringify(obj) + '\n');
}

let current = null;  // the run in progress: {id, started, timer, done, running, failed}
const SEP = '\u001f';  // between the names of a test's path
const titleOf = (name) => (typeof name === 'string' && name ? name : '(anonymous)');

function finish(rc, error, exit) {
  const run = current;
  if (run === null || run.done) return;
  run.done = true;
  clearTimeout(run.timer);
  let tap = captured === null ? '' : captured.join('');
  // tape prints its plan when the process exits: a run that ended says so the same way
  if (rc === 0) tap += `\n1..${(tap.match(/^(?:not )?ok \d+/gm) || []).length}\n`;
  captured = null;
  if (reached !== null && run.reachedPath) {
    // the C schemata's layout: the ids after a 0, then -1 and the count of evaluations (low word first),
    // then -2, a host's first id and its count for each host that ran
    const words = (n) => [n % 4294967296, Math.floor(n / 4294967296)];
    const hosts = [...runs].flatMap(([lo, n]) => [-2, lo, ...words(n)]);
    const ids = Int32Array.from([0, ...reached, -1, ...words(evaluations), ...hosts]);
    try { fs.writeFileSync(run.reachedPath, Buffer.from(ids.buffer)); } catch (e) { /* not recorded */ }
  }
  reached = null;
  answer({ id: run.id, tap, rc, error, ms: Number(process.hrtime.bigint() - run.started) / 1e6, exit,
    tops: [...run.failed] });
  current = null;
  if (exit) process.exit(0);
  next();
}

function crashed(err) {
  if (captured !== null) captured.push((err && err.stack ? err.stack : String(err)) + '\n');
  if (current !== null && current.running !== null) current.failed.add(current.running);
  finish(1, 'crashed', true);
}
process.on('uncaughtException', crashed);
process.on('unhandledRejection', crashed);

function forget() {
  for (const key of Object.keys(require.cache)) {
    if (!key.includes(`${path.sep}node_modules${path.sep}`) || key.startsWith(tapeDir)) delete require.cache[key];
  }
}

function start(request) {
  current = { id: request.id, started: process.hrtime.bigint(), done: false, reachedPath: request.reached || '',
    running: null, failed: new Set() };
  globalThis.whetstone_now_ = request.id;
  target = real(request.target);
  schemaText = fs.readFileSync(request.schema, 'utf8');
  reached = request.reached ? [] : null;
  seen = new Set();
  evaluations = 0;
  runs = new Map();
  spins = 0;
  spinLimit = request.spins || 0;
  captured = [];
  forget();
  current.timer = setTimeout(() => finish(1, 'timed out', true), request.timeout_ms);
  const tape = require(tapeIndex);
  // The test files' tape: each test is watched, by its path of names from the top-level one (which
  // failed, or was running when the process crashed), and with `only` (failing paths), a test on no such
  // path is tape's skipped test, never run (--gtest_filter's part)
  const only = request.only || null;
  const wanted = (at) => only === null || only.some((p) => p === at || p.startsWith(at + SEP));
  const watch = (t, at) => {
    if (!t || typeof t.on !== 'function') return;
    const run = current;  // a test a past run left behind reports to that run, which has ended
    t.on('prerun', () => { run.running = at; });
    t.on('result', (r) => { if (r && typeof r === 'object' && !r.ok && !r.todo && !r.skip) run.failed.add(at); });
    t.on('test', (st) => watch(st, at + SEP + titleOf(st.name)));
    const sub = t.test;
    if (only !== null && typeof sub === 'function') {
      t.test = function (name) {
        if (wanted(at + SEP + titleOf(name))) return sub.apply(this, arguments);
        return sub.call(this, titleOf(name), { skip: true }, () => {});
      };
    }
  };
  const watched = function (name) {
    if (!wanted(titleOf(name))) return tape.skip.apply(this, arguments);
    const test = tape.apply(this, arguments);
    watch(test, titleOf(name));
    return test;
  };
  Object.assign(watched, tape, { test: watched });
  require.cache[tapeIndex].exports = watched;
  try {
    for (const name of config.requires) require(require.resolve(name, { paths: [config.root] }));
    for (const file of request.files || config.files) require(file);
  } catch (err) {
    crashed(err);
    return;
  }
  tape.onFinish(() => setImmediate(() => finish(0, '', false)));
}

const pending = [];
function next() {
  if (current === null && pending.length) start(pending.shift());
}
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  if (!line.trim()) return;
  pending.push(JSON.parse(line));
  next();
}).on('close', () => { if (current === null) process.exit(0); });
answer({ ready: true });
