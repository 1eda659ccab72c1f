#pragma once
#include <vector>

#include "tokenizer.h"

namespace expr {

// Reverse Polish notation of the tokens (shunting-yard); End is dropped.
std::vector<Token> to_rpn(const std::vector<Token>& tokens);
size_t max_depth(const std::vector<Token>& tokens);

}  // namespace expr
