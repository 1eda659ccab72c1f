'use strict';

function isWordChar(ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}

function collapse(text, sep) {
  let out = '';
  let pending = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (isWordChar(ch)) {
      if (pending && out.length > 0) {
        out += sep;
      }
      out += ch;
      pending = false;
    } else {
      pending = true;
    }
  }
  return out;
}

function truncate(text, max, sep) {
  if (text.length <= max) {
    return text;
  }
  let cut = text.slice(0, max);
  const last = cut.lastIndexOf(sep);
  if (last > 0) {
    cut = cut.slice(0, last);
  }
  return cut;
}

function countWords(text) {
  let count = 0;
  let inWord = false;
  for (const ch of text) {
    if (ch !== ' ' && !inWord) {
      count += 1;
      inWord = true;
    } else if (ch === ' ') {
      inWord = false;
    }
  }
  return count;
}

module.exports = { isWordChar, collapse, truncate, countWords };
