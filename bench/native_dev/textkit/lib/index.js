'use strict';

const { collapse, truncate, countWords } = require('./helpers');

const DEFAULTS = { sep: '-', max: 40 };

module.exports = function (text, options) {
  const opts = Object.assign({}, DEFAULTS, options);
  const lower = String(text).toLowerCase();
  const slug = collapse(lower, opts.sep);
  if (opts.max > 0) {
    return truncate(slug, opts.max, opts.sep);
  }
  return slug;
};

module.exports.words = function words(text) {
  return countWords(String(text).trim());
};
