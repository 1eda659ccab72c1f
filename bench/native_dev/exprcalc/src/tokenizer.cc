#include "tokenizer.h"

#include <cctype>
#include <stdexcept>

namespace expr {

static long read_number(const std::string& text, size_t& i) {
  long value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    value = value * 10 + (text[i] - '0');
    ++i;
  }
  return value;
}

std::vector<Token> tokenize(const std::string& text) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == ' ') {
      ++i;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = i;
      long v = read_number(text, i);
      out.push_back({Kind::Number, v, start});
      continue;
    }
    Kind k;
    switch (c) {
      case '+': k = Kind::Plus; break;
      case '-': k = Kind::Minus; break;
      case '*': k = Kind::Star; break;
      case '/': k = Kind::Slash; break;
      case '(': k = Kind::LParen; break;
      case ')': k = Kind::RParen; break;
      default: throw std::invalid_argument("unexpected character");
    }
    out.push_back({k, 0, i});
    ++i;
  }
  out.push_back({Kind::End, 0, text.size()});
  return out;
}

bool is_operator(Kind kind) {
  return kind == Kind::Plus || kind == Kind::Minus || kind == Kind::Star || kind == Kind::Slash;
}

int precedence(Kind kind) {
  if (kind == Kind::Star || kind == Kind::Slash) {
    return 2;
  }
  if (kind == Kind::Plus || kind == Kind::Minus) {
    return 1;
  }
  return 0;
}

}  // namespace expr
