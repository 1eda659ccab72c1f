'use strict';

const test = require('node:test');
const assert = require('node:assert');
const slugify = require('../');

test('lowercases and joins words', () => {
  assert.strictEqual(slugify('Hello World'), 'hello-world');
});

test('drops punctuation runs', () => {
  assert.strictEqual(slugify('  a -- b!!c  '), 'a-b-c');
});

test('keeps digits', () => {
  assert.strictEqual(slugify('Route 66'), 'route-66');
});

test('custom separator', () => {
  assert.strictEqual(slugify('one two', { sep: '_' }), 'one_two');
});

test('truncates on a word boundary', () => {
  assert.strictEqual(slugify('alpha beta gamma', { max: 12 }), 'alpha-beta');
  assert.strictEqual(slugify('alpha', { max: 5 }), 'alpha');
});

test('no limit', () => {
  assert.strictEqual(slugify('a b c d e f', { max: 0 }), 'a-b-c-d-e-f');
});
