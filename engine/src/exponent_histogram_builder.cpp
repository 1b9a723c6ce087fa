#include "exponent_histogram_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "ampscope/engine/number_format.h"
#include "vector_clones.h"

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

// Every count except the exponent bins is a count of magnitudes at or below a threshold (positive
// floats order like their bit patterns), or a difference of two: x < t is x <= t - 1 in bits.
enum Threshold : int {
  kZero,  // |x| == 0
  kOverlayUnderflow,
  kOverlaySubnormal,
  kFormatFirst,  // per format: flushedMax, subnormalBelow - 1, overflowFrom - 1
  kFinite = kFormatFirst + 3 * kRangeFormats,  // the largest finite magnitude
  kInfinite,                                   // +-inf; above it: NaN
  kThresholds
};

struct ThresholdTable {
  std::array<uint32_t, kThresholds> at;
  // Per threshold: its exponent field, whether it sets every mantissa bit of that field (then the count
  // at or below it is all of the fields up to its own), and the first threshold of equal value (which
  // alone is counted; the others copy it).
  std::array<uint32_t, kThresholds> field;
  std::array<bool, kThresholds> wholeField;
  std::array<std::size_t, kThresholds> same;
};

uint32_t bitsOfFloat(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

ThresholdTable makeThresholdTable(LowFormat target) {
  const Overlay overlay = overlayFor(target);
  const auto& ranges = rangeThresholds();
  ThresholdTable t;
  t.at[kZero] = 0;
  t.at[kOverlayUnderflow] = bitsOfFloat(overlay.underflowMax);
  t.at[kOverlaySubnormal] = bitsOfFloat(overlay.subnormalBelow) - 1;
  for (std::size_t f = 0; f < kRangeFormats; ++f) {
    t.at[kFormatFirst + 3 * f] = ranges[f].flushedMax;
    t.at[kFormatFirst + 3 * f + 1] = ranges[f].subnormalBelow - 1;
    t.at[kFormatFirst + 3 * f + 2] = ranges[f].overflowFrom - 1;
  }
  t.at[kFinite] = 0x7F7FFFFFu;
  t.at[kInfinite] = 0x7F800000u;
  for (std::size_t k = 0; k < kThresholds; ++k) {
    t.field[k] = t.at[k] >> 23;
    t.wholeField[k] = (t.at[k] & 0x7FFFFFu) == 0x7FFFFFu;
    t.same[k] = k;
    for (std::size_t j = 0; j < k; ++j) {
      if (t.at[j] == t.at[k]) {
        t.same[k] = j;
        break;
      }
    }
  }
  return t;
}

const ThresholdTable& thresholdTable(LowFormat target) {
  static const ThresholdTable fp16 = makeThresholdTable(LowFormat::FP16);
  static const ThresholdTable bf16 = makeThresholdTable(LowFormat::BF16);
  return target == LowFormat::FP16 ? fp16 : bf16;
}

constexpr int64_t kBlock = 2048;  // one block's magnitudes stay in L1 between the passes over it

// How many magnitudes of a block lie in [lo, t] (lo <= t): one subtract, compare and add per element
// (unsigned wrap-around puts everything below lo above t - lo), which the compiler vectorises.
AMPSCOPE_VECTOR_CLONES uint32_t countInRange(const uint32_t* __restrict magnitude, int64_t n, uint32_t lo,
                                             uint32_t t) {
  const uint32_t width = t - lo;
  uint32_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += (magnitude[i] - lo) <= width;
  return count;
}

// -inf among data[i] * multiplier (only looked for in a block that holds an inf or NaN).
uint32_t countNegativeInfinities(const float* data, int64_t n, float multiplier) {
  uint32_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float value = multiplier == 1.0f ? data[i] : data[i] * multiplier;
    count += bitsOfFloat(value) == 0xFF800000u;
  }
  return count;
}

// The exponent field of each value, counted into four interleaved tables (consecutive values of one
// binade would otherwise wait on each other's increment). Fields 0 (zeros, float32 subnormals) and 255
// (inf, NaN) are sorted out afterwards. The tables keep counting over all blocks of one call (a block
// costs no clearing and no pass over the 256 fields): only the few fields that hold a threshold are
// read per block, as differences of their sums before and after it.
using FieldCounts = std::array<std::array<uint32_t, 256>, 4>;
void countExponentFields(const uint32_t* magnitude, int64_t n, FieldCounts& fields) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    ++fields[0][magnitude[i] >> 23];
    ++fields[1][magnitude[i + 1] >> 23];
    ++fields[2][magnitude[i + 2] >> 23];
    ++fields[3][magnitude[i + 3] >> 23];
  }
  for (; i < n; ++i) ++fields[0][magnitude[i] >> 23];
}

struct HistogramAccumulator {
  explicit HistogramAccumulator(const ThresholdTable& t) : table(t) {}

  const ThresholdTable& table;
  FieldCounts fields{};                 // since the last fold (uint32: folded before they could wrap)
  std::array<int64_t, 256> folded{};    // per exponent field, what earlier folds counted
  int64_t sinceFold = 0;
  std::array<int64_t, kThresholds> within{};  // per counted threshold: values of its field at or below it
  int64_t negativeInfinities = 0;
  ExponentBins::Dense bins{};  // the float32 subnormals' bins; the others come from the fields in addTo
  int64_t count = 0;

  uint64_t fieldSum(uint32_t field) const {
    return uint64_t{fields[0][field]} + fields[1][field] + fields[2][field] + fields[3][field];
  }

  // The threshold counts come from the exponent-field counts: every magnitude of a lower field lies
  // below a threshold, every one of a higher field above it, so only a threshold whose own field holds
  // values of this block needs a pass over the block (with all mantissa bits set, not even then).
  // data and multiplier: the values the magnitudes are of (for the sign of an infinity).
  void block(const uint32_t* magnitude, const float* data, float multiplier, int64_t n) {
    if (sinceFold + n > int64_t{0xFFFFFFFF}) fold();
    std::array<uint64_t, kThresholds> before;
    for (std::size_t k = 0; k < kThresholds; ++k) before[k] = fieldSum(table.field[k]);
    const uint64_t field0Before = fieldSum(0);
    const uint64_t field255Before = fieldSum(255);
    countExponentFields(magnitude, n, fields);
    sinceFold += n;
    const std::size_t zeroCounted = table.same[kZero];
    const int64_t zerosBefore = within[zeroCounted];
    for (std::size_t k = 0; k < kThresholds; ++k) {
      if (table.same[k] != k || table.wholeField[k]) continue;
      if (fieldSum(table.field[k]) == before[k]) continue;  // none of this block in t's field
      within[k] += countInRange(magnitude, n, table.field[k] << 23, table.at[k]);
    }
    if (fieldSum(255) != field255Before) negativeInfinities += countNegativeInfinities(data, n, multiplier);
    const uint64_t fieldZero = fieldSum(0) - field0Before;
    if (fieldZero != static_cast<uint64_t>(within[zeroCounted] - zerosBefore)) {
      // float32 subnormals (rare): their binade from the highest mantissa bit.
      for (int64_t i = 0; i < n; ++i) {
        if (magnitude[i] != 0 && (magnitude[i] >> 23) == 0) {
          bins[static_cast<std::size_t>(binOf(magnitude[i]) - ExponentHistogram::kMinExponent)] += 1;
        }
      }
    }
    count += n;
  }

  void fold() {
    for (uint32_t e = 0; e < 256; ++e) folded[e] += static_cast<int64_t>(fieldSum(e));
    fields = FieldCounts{};
    sinceFold = 0;
  }

  std::array<int64_t, kThresholds> atOrBelow{};  // set by finish()

  // After the last block, once: the totals of every threshold and the normal binades' bins.
  void finish() {
    fold();
    std::array<int64_t, 257> below{};  // below[e]: values whose exponent field is < e
    for (std::size_t e = 0; e < 256; ++e) below[e + 1] = below[e] + folded[e];
    for (std::size_t k = 0; k < kThresholds; ++k) {
      const std::size_t c = table.same[k];
      const uint32_t field = table.field[c];
      atOrBelow[k] = table.wholeField[c] ? below[field + 1] : below[field] + within[c];
    }
    for (uint32_t e = 1; e < 255; ++e) {
      bins[static_cast<std::size_t>(static_cast<int>(e) - 127 - ExponentHistogram::kMinExponent)] += folded[e];
    }
  }

  void addTo(ExponentHistogram& histogram) const {
    const auto le = [&](std::size_t k) { return atOrBelow[k]; };
    const int64_t zeros = le(kZero);
    histogram.zero += zeros;
    histogram.negInf += negativeInfinities;
    histogram.posInf += le(kInfinite) - le(kFinite) - negativeInfinities;
    histogram.nan += count - le(kInfinite);
    histogram.targetUnderflow += le(kOverlayUnderflow) - zeros;
    histogram.targetSubnormal += le(kOverlaySubnormal) - le(kOverlayUnderflow);
    for (std::size_t f = 0; f < kRangeFormats; ++f) {
      const std::size_t flushed = kFormatFirst + 3 * f;
      FormatRangeCounts& c = histogram.formats[f];
      c.flushed += le(flushed) - zeros;
      c.subnormal += le(flushed + 1) - le(flushed);
      c.overflowed += le(kFinite) - le(flushed + 2);
    }
    histogram.counts.add(bins);
    histogram.formatsMeasured = true;
  }
};

// The bits of |value|, value = data[i] * multiplier (float32, as unscale_ multiplies; 1: the data as is).
AMPSCOPE_VECTOR_CLONES void magnitudesOf(const float* data, int64_t n, float multiplier, uint32_t* magnitude) {
  for (int64_t i = 0; i < n; ++i) {
    const float value = multiplier == 1.0f ? data[i] : data[i] * multiplier;
    const uint32_t bits = bitsOfFloat(value);
    magnitude[i] = bits & 0x7FFFFFFFu;
  }
}

}  // namespace

void accumulateHistogram(const float* data, int64_t n, float multiplier, LowFormat target,
                         ExponentHistogram& histogram) {
  ExponentHistogram unused;
  accumulateHistogramPair(data, n, multiplier, target, unused, histogram, /*asIsToo=*/false);
}

void accumulateHistogramPair(const float* data, int64_t n, float multiplier, LowFormat target,
                             ExponentHistogram& asIs, ExponentHistogram& multiplied, bool asIsToo) {
  const ThresholdTable& table = thresholdTable(target);
  const bool separate = asIsToo && multiplier != 1.0f;
  HistogramAccumulator second(table);
  std::optional<HistogramAccumulator> first;
  if (separate) first.emplace(table);
  alignas(64) uint32_t magnitude[kBlock];
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = std::min(kBlock, n - start);
    magnitudesOf(data + start, len, multiplier, magnitude);
    second.block(magnitude, data + start, multiplier, len);
    if (separate) {
      magnitudesOf(data + start, len, 1.0f, magnitude);
      first->block(magnitude, data + start, 1.0f, len);
    }
  }
  second.finish();
  second.addTo(multiplied);
  if (separate) first->finish();
  if (asIsToo) (separate ? *first : second).addTo(asIs);
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
