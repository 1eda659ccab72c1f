'use strict';

const test = require('node:test');
const assert = require('node:assert');
const slugify = require('../');

test('counts words', () => {
  assert.strictEqual(slugify.words('one two  three'), 3);
  assert.strictEqual(slugify.words('   '), 0);
  assert.strictEqual(slugify.words('x'), 1);
});
