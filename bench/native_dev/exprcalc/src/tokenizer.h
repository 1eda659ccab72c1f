#pragma once
#include <string>
#include <vector>

namespace expr {

enum class Kind { Number, Plus, Minus, Star, Slash, LParen, RParen, End };

struct Token {
  Kind kind;
  long value;
  size_t pos;
};

std::vector<Token> tokenize(const std::string& text);
bool is_operator(Kind kind);
int precedence(Kind kind);

}  // namespace expr
