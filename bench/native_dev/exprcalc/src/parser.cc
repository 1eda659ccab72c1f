#include "parser.h"

#include <stdexcept>

namespace expr {

std::vector<Token> to_rpn(const std::vector<Token>& tokens) {
  std::vector<Token> out;
  std::vector<Token> ops;
  for (const Token& t : tokens) {
    if (t.kind == Kind::Number) {
      out.push_back(t);
    } else if (is_operator(t.kind)) {
      while (!ops.empty() && is_operator(ops.back().kind) && precedence(ops.back().kind) >= precedence(t.kind)) {
        out.push_back(ops.back());
        ops.pop_back();
      }
      ops.push_back(t);
    } else if (t.kind == Kind::LParen) {
      ops.push_back(t);
    } else if (t.kind == Kind::RParen) {
      while (!ops.empty() && ops.back().kind != Kind::LParen) {
        out.push_back(ops.back());
        ops.pop_back();
      }
      if (ops.empty()) {
        throw std::invalid_argument("unbalanced parenthesis");
      }
      ops.pop_back();
    }
  }
  while (!ops.empty()) {
    if (ops.back().kind == Kind::LParen) {
      throw std::invalid_argument("unbalanced parenthesis");
    }
    out.push_back(ops.back());
    ops.pop_back();
  }
  return out;
}

size_t max_depth(const std::vector<Token>& tokens) {
  size_t depth = 0;
  size_t deepest = 0;
  for (const Token& t : tokens) {
    if (t.kind == Kind::LParen) {
      ++depth;
      if (depth > deepest) {
        deepest = depth;
      }
    } else if (t.kind == Kind::RParen && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace expr
