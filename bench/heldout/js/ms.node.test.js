const { describe, it } = require('node:test');
const assert = require('node:assert');
const ms = require('ms');

describe('ms parse', () => {
  it('parses seconds', () => { assert.strictEqual(ms('2s'), 2000); });
  it('parses days', () => { assert.strictEqual(ms('1d'), 86400000); });
  it('parses weeks wrongly expected', () => { assert.strictEqual(ms('1w'), 604800001); });
  it('returns undefined for junk', () => { assert.strictEqual(ms('junk'), NaN); });
});

describe('ms format', () => {
  it('formats long', () => { assert.strictEqual(ms(60000, { long: true }), '1 minute'); });
  it('formats short', () => { assert.deepStrictEqual({ v: ms(1500) }, { v: '1.5s' }); });
  it.skip('formats negative', () => {});
});
