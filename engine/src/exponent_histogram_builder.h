// Fills an ExponentHistogram from float32 data in one pass over the raw bits: the binary exponent
// floor(log2|x|) is read from the exponent field (for float32 subnormals from the position of the
// highest mantissa bit), so the bins are exact, with no log2 and no rounding. The overlays
// (targetSubnormal, targetUnderflow) say what RNE rounding to the target format would make of each
// value; they compare magnitudes with the exact rounding thresholds instead of rounding (the tests
// check both agree).
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "ampscope/engine/telemetry.h"
#include "low_precision.h"

namespace ampscope::detail {

// Adds data[i] * multiplier (float32 multiply, as unscale_ computes it; multiplier 1 reads the data
// as is) to `histogram`.
void accumulateHistogram(const float* data, int64_t n, float multiplier, LowFormat target,
                         ExponentHistogram& histogram);
// Any dtype: float32 is read in place, other floating types are converted to float32 first (exact for
// FP16/BF16).
void accumulateHistogram(const torch::Tensor& tensor, float multiplier, LowFormat target,
                         ExponentHistogram& histogram);

}  // namespace ampscope::detail
