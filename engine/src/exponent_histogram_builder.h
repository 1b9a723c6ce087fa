// Fills an ExponentHistogram from float32 data in one pass over the raw bits, block by block: a
// vectorised pass takes each block's exponent fields, magnitude >> 13 in 16 bits and its range (keys,
// the field and whether the mantissa is zero, only for blocks counted by key); a block that spans
// fewer than 48 fields (one layer's gradients) has its fields counted over the field bytes, any other
// its keys by an increment per value; only a threshold that lies inside a field the block occupies,
// and that the counts cannot settle, costs a vectorised compare over the block (up to eight thresholds
// to a pass with AVX-512, four otherwise). The binary exponent
// floor(log2|x|) is read from the exponent field (for float32 subnormals from the position of the
// highest mantissa bit), so the bins are exact, with no log2 and no rounding. The overlays
// (targetSubnormal, targetUnderflow) say what RNE rounding to the target format would make of each
// value; they compare magnitudes with the exact rounding thresholds instead of rounding (the tests
// check both agree). The same holds for `formats` (FP16, BF16, FP8 E4M3, FP8 E5M2 whatever the target):
// each format's three thresholds are float32 values, compared as bit patterns with |x|'s (positive
// floats order like their bits).
#pragma once

#include <torch/torch.h>

#include <array>
#include <cstdint>

#include "ampscope/engine/telemetry.h"
#include "low_precision.h"

namespace ampscope::detail {

// One format's range thresholds as float32 bit patterns of magnitudes, with minSub, minNorm, max and
// ulpMax from the format's table (number_format.h): |x| <= minSub/2 flushes, |x| < minNorm - minSub/2
// is subnormal, |x| >= max + ulpMax/2 overflows, except in E4M3FN, where that tie rounds to max and
// only |x| > 464 overflows (ties to even: docs/record-format.md).
struct RangeThresholds {
  uint32_t flushedMax;
  uint32_t subnormalBelow;
  uint32_t overflowFrom;
};
const std::array<RangeThresholds, kRangeFormats>& rangeThresholds();  // indexed by RangeFormat

// Adds data[i] * multiplier (float32 multiply, as unscale_ computes it; multiplier 1 reads the data
// as is) to `histogram`.
void accumulateHistogram(const float* data, int64_t n, float multiplier, LowFormat target,
                         ExponentHistogram& histogram);
// Both histograms of the same data in one read: `multiplied` of data[i] * multiplier and, when asIsToo,
// `asIs` of data[i] (the scaled and unscaled gradients of one step, when nothing changes them between).
// Where the multiplier is a power of two and no product rounds (the usual loss scale), the exponent
// fields are counted once and the multiple's histogram is read off them at moved thresholds.
void accumulateHistogramPair(const float* data, int64_t n, float multiplier, LowFormat target,
                             ExponentHistogram& asIs, ExponentHistogram& multiplied, bool asIsToo = true);
// Any dtype: float32 is read in place, other floating types are converted to float32 first (exact for
// FP16/BF16).
void accumulateHistogram(const torch::Tensor& tensor, float multiplier, LowFormat target,
                         ExponentHistogram& histogram);

}  // namespace ampscope::detail
