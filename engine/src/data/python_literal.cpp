#include "ampscope/engine/python_literal.h"

#include <cmath>

#include "ampscope/engine/number_text.h"

namespace ampscope {

std::string pyFloat(double value) {
  if (std::isnan(value)) return "float('nan')";
  if (std::isinf(value)) return value > 0 ? "float('inf')" : "float('-inf')";
  std::string text = numberText(value);
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

std::string pyString(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      // A raw newline would end the literal: control characters as \xNN escapes.
      static const char kHex[] = "0123456789abcdef";
      quoted += "\\x";
      quoted += kHex[(static_cast<unsigned char>(c) >> 4) & 0xf];
      quoted += kHex[static_cast<unsigned char>(c) & 0xf];
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string pyTuple(const std::vector<int64_t>& values) {
  std::string text = "(";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(values[i]);
  }
  if (values.size() == 1) text += ",";
  return text + ")";
}

}  // namespace ampscope
