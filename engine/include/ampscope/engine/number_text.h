// The one number formatter of AmpScope: every double that leaves the program as text (JSON, CSV, the
// run panel's fields, error messages, generated Python) goes through numberText(), and every such text
// comes back through parseNumberText().
//
// Finite values are written as the shortest text that reads back as the same double (std::to_chars);
// the non-finite ones are spelled "nan", "inf" and "-inf" everywhere (JSON has no NaN, so the JSON
// codec writes these spellings as strings).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ampscope {

std::string numberText(double value);
void appendNumberText(std::string& out, double value);  // the same, appended (no allocation)
// Accepts what numberText() writes and any decimal/scientific literal strtod reads in the C locale;
// the whole text must be the number. Hex floats, leading '+', blanks and "infinity" are refused.
std::optional<double> parseNumberText(std::string_view text);

}  // namespace ampscope
