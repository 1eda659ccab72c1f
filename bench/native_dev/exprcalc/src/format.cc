#include "format.h"

namespace expr {

std::string with_thousands(long value) {
  bool negative = value < 0;
  std::string digits = std::to_string(negative ? -value : value);
  std::string out;
  int count = 0;
  for (size_t i = digits.size(); i > 0; --i) {
    out.insert(out.begin(), digits[i - 1]);
    ++count;
    if (count % 3 == 0 && i > 1) {
      out.insert(out.begin(), ',');
    }
  }
  return negative ? "-" + out : out;
}

std::string pad_left(const std::string& text, size_t width) {
  if (text.size() >= width) {
    return text;
  }
  return std::string(width - text.size(), ' ') + text;
}

}  // namespace expr
