#include "ampscope/engine/number_text.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace ampscope {

void appendNumberText(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "nan";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "inf" : "-inf";
    return;
  }
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

std::string numberText(double value) {
  std::string out;
  appendNumberText(out, value);
  return out;
}

std::optional<double> parseNumberText(std::string_view text) {
  if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  if (text.empty()) return std::nullopt;
  // Only the characters of a decimal literal: from_chars would otherwise take "nan(...)" and "infinity".
  for (char c : text) {
    const bool ok = (c >= '0' && c <= '9') || c == '-' || c == '.' || c == 'e' || c == 'E' || c == '+';
    if (!ok) return std::nullopt;
  }
  if (text.front() == '+') return std::nullopt;
  double value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec == std::errc::result_out_of_range) {
    // Beyond the double range: the caller's bounds name the field; report it as an infinity or zero.
    const bool negative = text.front() == '-';
    const bool tiny = text.find_first_of("eE") != std::string_view::npos &&
                      text.find('-', text.find_first_of("eE")) != std::string_view::npos;
    if (tiny) return negative ? -0.0 : 0.0;
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace ampscope
