// Parsing an element count as people type it: "1e9", "7e9", "1000000", "1,000,000", "1_000_000".
#pragma once

#include <QString>

namespace ampscope::ui::formats {

struct ElementCount {
  bool ok = false;
  long double value = 0;  // a whole number >= 0 when ok
  QString error;          // why not, for the user
};

// The largest count accepted: 1e18 elements (an exabyte of FP8), far beyond any real tensor.
inline constexpr long double kMaxElementCount = 1e18L;

ElementCount parseElementCount(const QString& text);

}  // namespace ampscope::ui::formats
