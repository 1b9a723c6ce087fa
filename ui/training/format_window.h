// FormatWindow: where an FP8/FP4 element format's range falls on a quantised tensor's unscaled values.
// A tensor is stored as round(x * scale), so in x's own units the format covers [smallest subnormal,
// max] / scale: values above saturate to ±max, values below half the smallest subnormal (and the tie at
// it, since 0 is even) round to 0. For block scalings each block has its own window: the union from the
// smallest to the largest block factor is given instead.
#pragma once

#include <QString>

#include "ampscope/engine/telemetry.h"

namespace ampscope::ui {

struct FormatWindow {
  double flushLog2 = 0;  // log2 of the largest |x| that still rounds to 0
  double lowLog2 = 0;    // log2(smallest subnormal / scale)
  double highLog2 = 0;   // log2(max / scale): larger |x| saturate
  bool blocks = false;   // the union of per-block windows
};

// The smallest subnormal and the largest finite value of an element format (OCP 8-bit FP / MX specs).
double smallestSubnormal(QuantFormat format);
double largestFinite(QuantFormat format);
QString formatName(QuantFormat format);  // "E4M3", "E5M2", "E2M1"

FormatWindow formatWindow(const QuantTensorStats& tensor);

}  // namespace ampscope::ui
