#include "evaluator.h"

#include <stdexcept>
#include <vector>

#include "parser.h"
#include "tokenizer.h"

namespace expr {

long Evaluator::apply(char op, long lhs, long rhs) const {
  switch (op) {
    case '+': return lhs + rhs;
    case '-': return lhs - rhs;
    case '*': return lhs * rhs;
    case '/':
      if (rhs == 0) {
        throw std::domain_error("division by zero");
      }
      return lhs / rhs;
  }
  throw std::invalid_argument("unknown operator");
}

bool Evaluator::within_limit(long value) const {
  return value <= limit_ && value >= -limit_;
}

long Evaluator::evaluate(const std::string& text) const {
  std::vector<long> stack;
  for (const Token& t : to_rpn(tokenize(text))) {
    if (t.kind == Kind::Number) {
      stack.push_back(t.value);
      continue;
    }
    if (stack.size() < 2) {
      throw std::invalid_argument("missing operand");
    }
    long rhs = stack.back();
    stack.pop_back();
    long lhs = stack.back();
    stack.pop_back();
    char op = t.kind == Kind::Plus ? '+' : t.kind == Kind::Minus ? '-' : t.kind == Kind::Star ? '*' : '/';
    long value = apply(op, lhs, rhs);
    if (!within_limit(value)) {
      throw std::overflow_error("limit exceeded");
    }
    stack.push_back(value);
  }
  if (stack.size() != 1) {
    throw std::invalid_argument("malformed expression");
  }
  return stack.back();
}

}  // namespace expr
