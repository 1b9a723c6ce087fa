#include "exponent_histogram_builder.h"

#include <cmath>
#include <cstring>

#include "ampscope/engine/number_format.h"

namespace ampscope::detail {

namespace {

// Round-to-nearest-even thresholds, so the overlays need no rounding per value: with m the smallest
// subnormal of the target (FP16 2^-24, BF16 2^-133), |x| <= m/2 rounds to zero (the tie goes to the
// even zero), and |x| < minNormal - m/2 stays subnormal (the tie at minNormal - m/2 goes to the even
// minNormal). Both thresholds are exact float32 values.
struct Overlay {
  float underflowMax;   // m/2
  float subnormalBelow; // minNormal - m/2
};

Overlay overlayFor(LowFormat target) {
  if (target == LowFormat::FP16) {
    return {std::ldexp(1.0f, -25), std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25)};
  }
  return {std::ldexp(1.0f, -134), std::ldexp(1.0f, -126) - std::ldexp(1.0f, -134)};
}

uint32_t float32Bits(double exact) {
  const float value = static_cast<float>(exact);
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// Every threshold is exact in double and in float32 (the tests check it). The ties: minSub/2 goes to the
// even zero and minNorm - minSub/2 to the even minNorm in every format; max + ulpMax/2 goes to inf when
// max's mantissa is odd (all ones: IEEE formats, E5M2) but back to max when it is even: E4M3FN's max 448
// is 1.110b * 2^8 (1.111b * 2^8 is its NaN), so 464 rounds to 448 and only what lies above overflows.
RangeThresholds thresholdsOf(DType dtype) {
  const FInfo info = finfo(dtype);
  const double halfMinSub = info.smallestSubnormal / 2;
  const double tie = info.max + ulp(dtype, info.max) / 2;
  uint32_t overflowFrom = float32Bits(tie);
  if (!roundValue(dtype, tie).overflowed) ++overflowFrom;  // the next float32 above the tie
  return {float32Bits(halfMinSub), float32Bits(info.smallestNormal - halfMinSub), overflowFrom};
}

}  // namespace

const std::array<RangeThresholds, kRangeFormats>& rangeThresholds() {
  static const std::array<RangeThresholds, kRangeFormats> thresholds = {
      thresholdsOf(DType::FP16), thresholdsOf(DType::BF16), thresholdsOf(DType::FP8E4M3FN),
      thresholdsOf(DType::FP8E5M2)};
  return thresholds;
}

void accumulateHistogram(const float* data, int64_t n, float multiplier, LowFormat target,
                         ExponentHistogram& histogram) {
  const Overlay overlay = overlayFor(target);
  const auto& ranges = rangeThresholds();
  // Local counters: the loop then keeps them in registers instead of writing through `histogram`.
  std::array<FormatRangeCounts, kRangeFormats> formats{};
  for (int64_t i = 0; i < n; ++i) {
    const float value = multiplier == 1.0f ? data[i] : data[i] * multiplier;
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    const uint32_t magnitude = bits & 0x7FFFFFFFu;
    const uint32_t exponentField = magnitude >> 23;
    if (__builtin_expect(exponentField == 0xFF, 0)) {
      if (magnitude & 0x7FFFFFu) {
        ++histogram.nan;
      } else if (bits >> 31) {
        ++histogram.negInf;
      } else {
        ++histogram.posInf;
      }
      continue;
    }
    if (__builtin_expect(magnitude == 0, 0)) {
      ++histogram.zero;
      continue;
    }
    int exponent;
    if (exponentField == 0) {
      // float32 subnormal: value = mantissa * 2^-149.
      exponent = -149 + (31 - __builtin_clz(magnitude));
    } else {
      exponent = static_cast<int>(exponentField) - 127;
    }
    ++histogram.counts[static_cast<size_t>(exponent - ExponentHistogram::kMinExponent)];
    for (int f = 0; f < kRangeFormats; ++f) {
      const RangeThresholds& t = ranges[static_cast<size_t>(f)];
      FormatRangeCounts& c = formats[static_cast<size_t>(f)];
      c.flushed += magnitude <= t.flushedMax;
      c.subnormal += (magnitude > t.flushedMax) & (magnitude < t.subnormalBelow);
      c.overflowed += magnitude >= t.overflowFrom;
    }
    const float magnitudeValue = std::fabs(value);
    if (magnitudeValue < overlay.subnormalBelow) {
      if (magnitudeValue <= overlay.underflowMax) {
        ++histogram.targetUnderflow;
      } else {
        ++histogram.targetSubnormal;
      }
    }
  }
  for (std::size_t f = 0; f < formats.size(); ++f) {
    histogram.formats[f].flushed += formats[f].flushed;
    histogram.formats[f].subnormal += formats[f].subnormal;
    histogram.formats[f].overflowed += formats[f].overflowed;
  }
  histogram.formatsMeasured = true;
}

void accumulateHistogram(const torch::Tensor& tensor, float multiplier, LowFormat target,
                         ExponentHistogram& histogram) {
  at::NoGradGuard noGrad;
  torch::Tensor data = tensor;
  if (data.scalar_type() != torch::kFloat) data = data.to(torch::kFloat);
  data = data.contiguous();
  accumulateHistogram(data.data_ptr<float>(), data.numel(), multiplier, target, histogram);
}

}  // namespace ampscope::detail
