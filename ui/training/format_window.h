// FormatWindow: where an FP8/FP4 element format's range falls on a quantised tensor's unscaled values.
// A tensor is stored as round(x * scale), so in x's own units the format covers [smallest subnormal,
// max] / scale: values above saturate to ±max, values below half the smallest subnormal (and the tie at
// it, since 0 is even) round to 0. For block scalings each block has its own window: the union from the
// smallest to the largest block factor is given instead.
#pragma once

#include <QString>
#include <vector>

#include "ampscope/engine/mode_formats.h"
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

// A format's zones on an exponent axis at scale 1, as log2|x| (number_format.h's finfo): round to
// nearest even sends |x| <= 2^flushLog2 to 0 (the tie at half the smallest subnormal goes to 0, which is
// even), [2^subnormalLog2, 2^normalLog2) is subnormal, and from 2^overflowLog2 (the largest finite value
// plus half its ulp) a value overflows, or saturates to ±max where the mode quantises with saturation.
struct FormatZones {
  DType dtype = DType::FP16;
  QString name;            // "FP16", "BF16", "E4M3", "E5M2", "E2M1"
  double flushLog2 = 0;
  double subnormalLog2 = 0;
  double normalLog2 = 0;
  double overflowLog2 = 0;
  double max = 0;          // the largest finite value
  double overflowFrom = 0; // max + half its ulp: from here a value overflows (or saturates)
  bool saturates = false;  // beyond max: ±max (quantised modes), not ±inf / NaN
};
FormatZones formatZones(DType dtype, bool saturates);
QString zoneFormatName(DType dtype);

// The formats the exponent views of a run draw, most important first: each mode's gradient format
// (mode_formats.h: measuredAgainst), the quantised modes' and then the others' in the run's order, then
// FP16 and BF16 (the formats an FP32 run is compared with), without repeats. The first two are drawn.
struct ZoneFormat {
  DType dtype;
  bool saturates;
};
std::vector<ZoneFormat> zoneFormats(const std::vector<PrecisionMode>& modes);

}  // namespace ampscope::ui
