#pragma once
#include <string>

namespace expr {

std::string with_thousands(long value);
std::string pad_left(const std::string& text, size_t width);

}  // namespace expr
