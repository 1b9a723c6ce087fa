// Saturating round-to-nearest-even of float32 values into the FP8 and FP4 element formats (OCP 8-bit
// FP E4M3 and E5M2, the OCP MX spec's FP4 E2M1), left in float32: the building block of the FP8 and
// microscaling modes. No tables and no branches per element, so the loops vectorise:
// - at or above the format's smallest normal, the float32 pattern is rounded to the format's mantissa
//   width (add half an ulp minus one plus the lowest kept bit, truncate: ties go to even);
// - below it, the format's subnormal spacing is a power of two 2^q; adding and subtracting 2^(q+23)
//   makes the FPU round the value to that spacing, RNE, exactly;
// - magnitudes above the largest finite value (infinities included) become it ("satfinite", what FP8
//   casts do in Transformer Engine and torchao); NaN stays NaN.
// tests/engine/fp8/element_quantizer_test.cpp checks every result against number_format's encode.
#pragma once

#include <cstdint>

#include "ampscope/engine/telemetry.h"

namespace ampscope::detail::fp8 {

struct ElementSpec {
  int mantissaBits;     // 3, 2, 1
  int minNormalExp;     // -6, -14, 0
  float maxValue;       // 448, 57344, 6
  int maxExp;           // floor(log2(maxValue)): 8, 15, 2 (the MX spec's emax of the element)
  float minSubnormal;   // 2^-9, 2^-16, 0.5
};
const ElementSpec& elementSpec(QuantFormat format);

// Counts of one quantisation (added to, never reset here).
struct QuantCounts {
  int64_t saturated = 0;  // finite-or-infinite |x * scale| > max: clamped
  int64_t flushed = 0;    // x != 0 (not NaN) and the rounded x * scale == 0
};

// out[i] = round(in[i] * scale) * invScale, rounding as above. in == out is allowed. counts may be null.
void quantize(const float* in, float* out, int64_t n, QuantFormat format, float scale, float invScale,
              QuantCounts* counts);
float quantizeValue(float value, QuantFormat format);  // one value, no scale

// max |in[i]| (NaN if any element is NaN, as torch.amax would propagate it).
float absMax(const float* in, int64_t n);

}  // namespace ampscope::detail::fp8
