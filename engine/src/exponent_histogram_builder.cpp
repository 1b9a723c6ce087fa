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

namespace {

int binOf(uint32_t magnitude) {
  const uint32_t exponentField = magnitude >> 23;
  // float32 subnormal: value = mantissa * 2^-149.
  return exponentField == 0 ? -149 + (31 - __builtin_clz(magnitude)) : static_cast<int>(exponentField) - 127;
}

// The range counts come from the exponent bins, which are exact: every bin lies wholly on one side of
// a threshold except the bin holding it. So only values in those few bins (flagged in `boundary`) are
// compared with a threshold; the rest is sums of bins after the loop.
struct RangeBins {
  std::array<int, kRangeFormats> flushedBin, subnormalBin, overflowBin;
  std::array<uint8_t, ExponentHistogram::kBins> boundary{};  // bit f: a threshold of format f is in this bin
};

const RangeBins& rangeBins() {
  static const RangeBins bins = [] {
    RangeBins b;
    const auto& t = rangeThresholds();
    for (std::size_t f = 0; f < t.size(); ++f) {
      b.flushedBin[f] = binOf(t[f].flushedMax);
      b.subnormalBin[f] = binOf(t[f].subnormalBelow);
      b.overflowBin[f] = binOf(t[f].overflowFrom);
      for (const int bin : {b.flushedBin[f], b.subnormalBin[f], b.overflowBin[f]}) {
        b.boundary[static_cast<std::size_t>(bin - ExponentHistogram::kMinExponent)] |= static_cast<uint8_t>(1u << f);
      }
    }
    return b;
  }();
  return bins;
}

}  // namespace

void accumulateHistogram(const float* data, int64_t n, float multiplier, LowFormat target,
                         ExponentHistogram& histogram) {
  const Overlay overlay = overlayFor(target);
  const auto& ranges = rangeThresholds();
  const RangeBins& rangeBin = rangeBins();
  // This call's bins, and per format the values of its threshold bins that fall below the flush
  // threshold, below the subnormal threshold, at or above the overflow threshold.
  std::array<int64_t, ExponentHistogram::kBins> bins{};
  std::array<FormatRangeCounts, kRangeFormats> edge{};
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
    const auto bin = static_cast<size_t>(exponent - ExponentHistogram::kMinExponent);
    ++bins[bin];
    if (const unsigned formats = rangeBin.boundary[bin]) {
      for (std::size_t f = 0; f < kRangeFormats; ++f) {
        if (!(formats & (1u << f))) continue;
        if (exponent == rangeBin.flushedBin[f]) edge[f].flushed += magnitude <= ranges[f].flushedMax;
        if (exponent == rangeBin.subnormalBin[f]) edge[f].subnormal += magnitude < ranges[f].subnormalBelow;
        if (exponent == rangeBin.overflowBin[f]) edge[f].overflowed += magnitude >= ranges[f].overflowFrom;
      }
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
  const auto at = [&](int exponent) { return bins[static_cast<size_t>(exponent - ExponentHistogram::kMinExponent)]; };
  for (std::size_t f = 0; f < kRangeFormats; ++f) {
    // flushed: the bins below the flush bin and the flush bin's values <= the threshold; subnormal: the
    // rest of the flush bin, the bins up to the subnormal bin, and its values below the threshold;
    // overflowed: the overflow bin's values >= the threshold and every bin above it.
    FormatRangeCounts c;
    for (int e = ExponentHistogram::kMinExponent; e < rangeBin.flushedBin[f]; ++e) c.flushed += at(e);
    c.flushed += edge[f].flushed;
    c.subnormal = at(rangeBin.flushedBin[f]) - edge[f].flushed + edge[f].subnormal;
    for (int e = rangeBin.flushedBin[f] + 1; e < rangeBin.subnormalBin[f]; ++e) c.subnormal += at(e);
    c.overflowed = edge[f].overflowed;
    for (int e = rangeBin.overflowBin[f] + 1; e <= ExponentHistogram::kMaxExponent; ++e) c.overflowed += at(e);
    histogram.formats[f].flushed += c.flushed;
    histogram.formats[f].subnormal += c.subnormal;
    histogram.formats[f].overflowed += c.overflowed;
  }
  for (std::size_t b = 0; b < bins.size(); ++b) histogram.counts[b] += bins[b];
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
