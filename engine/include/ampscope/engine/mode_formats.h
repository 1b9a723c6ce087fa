// The number formats each precision mode rounds to, written down once: the FP8/microscaling recipes
// (engine/src/fp8/recipe_quantizer.cpp), the store's derived counts (telemetry_store.cpp) and the UI's
// format zones (ui/training/format_zones.h) all read them here. docs/fp8-recipes.md describes the
// recipes; the ranges of the formats are in number_format.h (finfo).
#pragma once

#include <optional>

#include "ampscope/engine/number_format.h"
#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope {

// Values per shared scale in the block recipes: OCP MX v1.0's k = 32 for MXFP8, 16 for NVFP4. Constants
// here (not only ModeFormats::blockSize) because the quantisers take them as template arguments.
inline constexpr int kMxfp8BlockSize = 32;
inline constexpr int kNvfp4BlockSize = 16;

struct ModeFormats {
  // What the forward pass rounds its low-precision operands to: autocast's casts (FP16/BF16), every op
  // of a pure mode, the GEMM inputs x and W of the quantised modes. FP32 for fp32 (nothing rounds).
  DType forward = DType::FP32;
  // What the gradients are rounded to: the backward casts of the AMP modes, the stored gradients of the
  // pure modes, the gradient arriving at a GEMM's output in the quantised modes (E5M2 in the per-tensor
  // FP8 recipes, the forward format in the block recipes).
  DType gradient = DType::FP32;
  // The format a mode's gradients are measured against (the histogram's zones, "would flush", the
  // underflow view of followed runs): the gradient format, and FP16 for fp32, to show what would happen.
  DType measuredAgainst = DType::FP16;
  // The quantised modes scale a tensor (or block) before rounding and saturate beyond the format's
  // largest finite value (satfinite) instead of overflowing to inf/NaN.
  bool quantised = false;
  // Block recipes: values per block sharing one scale (0: per tensor), and the scale's format.
  int blockSize = 0;
  DType blockScale = DType::FP32;
};

ModeFormats modeFormats(PrecisionMode mode);

// The recipes' element formats as number_format.h's DType, and back (nullopt: not an element format).
DType dtypeOf(QuantFormat format);
std::optional<QuantFormat> quantFormatOf(DType dtype);
// The format's slot in ExponentHistogram::formats (nullopt: the histograms do not measure it, E2M1).
std::optional<RangeFormat> rangeFormatOf(DType dtype);

}  // namespace ampscope
