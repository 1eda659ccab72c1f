#pragma once
#include <string>

namespace expr {

class Evaluator {
 public:
  explicit Evaluator(long limit = 1000000) : limit_(limit) {}
  long evaluate(const std::string& text) const;
  bool within_limit(long value) const;

 private:
  long apply(char op, long lhs, long rhs) const;
  long limit_;
};

}  // namespace expr
