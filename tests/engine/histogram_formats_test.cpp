// The exponent histogram builder's per-format range counts ("formats": FP16, BF16, FP8 E4M3, FP8 E5M2)
// against exact round-to-nearest-even (IEEE 754-2019 section 4.3.1; the OCP 8-bit FP spec for E4M3 and
// E5M2, E4M3FN overflowing to NaN): for the float32 values at and next to every threshold, and for a
// million random float32 bit patterns, each value's classification by the builder equals what
// number_format's exact encoder (and, for FP16/BF16, low_precision's rounding) makes of it. Each test
// runs under every instruction set this CPU has (kernel_isa.h: the field counts' AVX-512BW loop, with
// and without GFNI/BITALG/VBMI, and their portable loop).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ampscope/engine/number_format.h"
#include "exponent_histogram_builder.h"
#include "low_precision.h"
#include "support/under_isa.h"

namespace ampscope::detail {
namespace {

class HistogramFormats : public support::UnderIsaVariant {};
AMPSCOPE_UNDER_EACH_ISA_VARIANT(HistogramFormats);

constexpr DType kDTypes[kRangeFormats] = {DType::FP16, DType::BF16, DType::FP8E4M3FN, DType::FP8E5M2};

float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

uint32_t toBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

struct Expected {
  bool flushed, subnormal, overflowed;
};

// What exact RNE rounding makes of `value` in `dtype` (number_format.h).
Expected exact(DType dtype, float value) {
  const RoundingResult r = roundValue(dtype, static_cast<double>(value));
  return {r.flushedToZero, r.becameSubnormal && r.stored != 0, r.overflowed};
}

// The builder's classification of the single value `value`.
FormatRangeCounts built(float value, int format) {
  ExponentHistogram h;
  accumulateHistogram(&value, 1, 1.0f, LowFormat::FP16, h);
  EXPECT_TRUE(h.formatsMeasured);
  return h.formats[static_cast<std::size_t>(format)];
}

void expectAgrees(float value, int format) {
  const Expected e = exact(kDTypes[format], value);
  const FormatRangeCounts c = built(value, format);
  const char* name = rangeFormatKey(static_cast<RangeFormat>(format));
  EXPECT_EQ(c.flushed, e.flushed ? 1 : 0) << name << " " << value << " (bits 0x" << std::hex << toBits(value) << ")";
  EXPECT_EQ(c.subnormal, e.subnormal ? 1 : 0) << name << " " << value << " (bits 0x" << std::hex << toBits(value) << ")";
  EXPECT_EQ(c.overflowed, e.overflowed ? 1 : 0) << name << " " << value << " (bits 0x" << std::hex << toBits(value) << ")";
}

TEST_P(HistogramFormats, ThresholdsAreTheSpecifiedValues) {
  // minSub/2, minNorm - minSub/2, max + ulpMax/2 of each format (docs/record-format.md's table).
  const auto& t = rangeThresholds();
  const auto value = [](uint32_t bits) { return static_cast<double>(fromBits(bits)); };
  EXPECT_EQ(value(t[0].flushedMax), std::ldexp(1.0, -25));
  EXPECT_EQ(value(t[0].subnormalBelow), std::ldexp(1.0, -14) - std::ldexp(1.0, -25));
  EXPECT_EQ(value(t[0].overflowFrom), 65520.0);
  EXPECT_EQ(value(t[1].flushedMax), std::ldexp(1.0, -134));
  EXPECT_EQ(value(t[1].subnormalBelow), std::ldexp(1.0, -126) - std::ldexp(1.0, -134));
  EXPECT_EQ(value(t[1].overflowFrom), std::ldexp(1.0, 128) - std::ldexp(1.0, 119));
  EXPECT_EQ(value(t[2].flushedMax), std::ldexp(1.0, -10));
  EXPECT_EQ(value(t[2].subnormalBelow), std::ldexp(1.0, -6) - std::ldexp(1.0, -10));
  // E4M3FN: 464 lies halfway between 448 (mantissa 110, even) and the NaN pattern's 480 (111): it rounds
  // to 448, so the first value that overflows is the float32 after 464 (as PyTorch's float8_e4m3fn cast).
  EXPECT_EQ(value(t[2].overflowFrom), static_cast<double>(std::nextafter(464.0f, 1000.0f)));
  EXPECT_FALSE(roundValue(DType::FP8E4M3FN, 464.0).overflowed);
  EXPECT_EQ(value(t[3].flushedMax), std::ldexp(1.0, -17));
  EXPECT_EQ(value(t[3].subnormalBelow), std::ldexp(1.0, -14) - std::ldexp(1.0, -17));
  EXPECT_EQ(value(t[3].overflowFrom), 61440.0);
}

TEST_P(HistogramFormats, EveryThresholdAgreesWithExactRounding) {
  // Each threshold and the 3 float32 values on either side of it, both signs; plus each format's
  // smallest subnormal, smallest normal and largest finite value and their neighbours.
  for (int f = 0; f < kRangeFormats; ++f) {
    const auto& t = rangeThresholds()[static_cast<std::size_t>(f)];
    const FInfo info = finfo(kDTypes[f]);
    std::vector<uint32_t> centres = {t.flushedMax, t.subnormalBelow, t.overflowFrom,
                                     toBits(static_cast<float>(info.smallestSubnormal)),
                                     toBits(static_cast<float>(info.smallestNormal)),
                                     toBits(static_cast<float>(info.max))};
    for (const uint32_t centre : centres) {
      for (int d = -3; d <= 3; ++d) {
        const uint32_t bits = centre + static_cast<uint32_t>(d);
        if ((bits & 0x7F800000u) == 0x7F800000u) continue;  // not finite
        expectAgrees(fromBits(bits), f);
        expectAgrees(-fromBits(bits), f);
      }
    }
  }
}

TEST_P(HistogramFormats, Fp16AndBf16AgreeWithTheEngineRounding) {
  // low_precision's roundScalar (F16C / c10 conversions) says the same at each FP16 and BF16 threshold.
  for (int f = 0; f < 2; ++f) {
    const LowFormat format = f == 0 ? LowFormat::FP16 : LowFormat::BF16;
    const auto& t = rangeThresholds()[static_cast<std::size_t>(f)];
    for (const uint32_t centre : {t.flushedMax, t.subnormalBelow, t.overflowFrom}) {
      for (int d = -2; d <= 2; ++d) {
        const float value = fromBits(centre + static_cast<uint32_t>(d));
        const float rounded = roundScalar(value, format);
        const FormatRangeCounts c = built(value, f);
        EXPECT_EQ(c.flushed, rounded == 0.0f ? 1 : 0) << value;
        EXPECT_EQ(c.overflowed, std::isinf(rounded) ? 1 : 0) << value;
        EXPECT_EQ(c.subnormal, rounded != 0.0f && std::fabs(rounded) < lowFormatMinNormal(format) ? 1 : 0) << value;
      }
    }
  }
}

TEST_P(HistogramFormats, AMillionRandomValuesAgreeWithExactRounding) {
  // Random exponents across float32's whole range (subnormals included) and random mantissas, summed
  // in one histogram; the expected sums classify every value with the exact encoder.
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<uint32_t> bits(0, 0xFFFFFFFFu);
  std::vector<float> values;
  values.reserve(1000000);
  while (values.size() < 1000000) {
    const float v = fromBits(bits(rng));
    if (std::isfinite(v)) values.push_back(v);
  }
  ExponentHistogram h;
  accumulateHistogram(values.data(), static_cast<int64_t>(values.size()), 1.0f, LowFormat::FP16, h);
  for (int f = 0; f < kRangeFormats; ++f) {
    FormatRangeCounts expected;
    for (const float v : values) {
      if (v == 0.0f) continue;
      const Expected e = exact(kDTypes[f], v);
      expected.flushed += e.flushed;
      expected.subnormal += e.subnormal;
      expected.overflowed += e.overflowed;
    }
    const auto& got = h.formats[static_cast<std::size_t>(f)];
    EXPECT_EQ(got.flushed, expected.flushed) << rangeFormatKey(static_cast<RangeFormat>(f));
    EXPECT_EQ(got.subnormal, expected.subnormal) << rangeFormatKey(static_cast<RangeFormat>(f));
    EXPECT_EQ(got.overflowed, expected.overflowed) << rangeFormatKey(static_cast<RangeFormat>(f));
    EXPECT_GT(got.overflowed, 0);
    EXPECT_GT(got.flushed, 0);
  }
  // The FP16 formats entry and the FP16 overlays are the same facts.
  EXPECT_EQ(h.formats[0].flushed, h.targetUnderflow);
  EXPECT_EQ(h.formats[0].subnormal, h.targetSubnormal);
}

TEST_P(HistogramFormats, NonFiniteAndZeroValuesAreNotCounted) {
  const float values[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN};
  ExponentHistogram h;
  accumulateHistogram(values, 5, 1.0f, LowFormat::BF16, h);
  for (const auto& c : h.formats) EXPECT_EQ(c.flushed + c.subnormal + c.overflowed, 0);
  EXPECT_EQ(h.zero, 2);
  EXPECT_EQ(h.nan, 1);
}

// The whole histogram, value by value from its definition (telemetry.h): bin floor(log2|x|) of every
// finite non-zero value, zero / +inf / -inf / NaN, the overlays from low_precision's rounding of each
// value and the per-format counts from the exact encoder. The builder counts by blocks and thresholds;
// this checks it over lengths around its block size, for a multiplier or none, single and paired.
ExponentHistogram referenceHistogram(const std::vector<float>& data, float multiplier, LowFormat target) {
  ExponentHistogram h;
  ExponentBins::Dense bins{};
  for (const float x : data) {
    const float v = multiplier == 1.0f ? x : x * multiplier;
    const uint32_t m = toBits(v) & 0x7FFFFFFFu;
    if (m == 0) {
      ++h.zero;
      continue;
    }
    if (m == 0x7F800000u) {
      ++(v < 0 ? h.negInf : h.posInf);
      continue;
    }
    if (m > 0x7F800000u) {
      ++h.nan;
      continue;
    }
    const int bin = static_cast<int>(std::floor(std::log2(std::fabs(static_cast<double>(v)))));
    ++bins[static_cast<std::size_t>(bin - ExponentHistogram::kMinExponent)];
    const float rounded = roundScalar(v, target);
    if (rounded == 0.0f) ++h.targetUnderflow;
    else if (std::fabs(rounded) < lowFormatMinNormal(target)) ++h.targetSubnormal;
    for (int f = 0; f < kRangeFormats; ++f) {
      const Expected e = exact(kDTypes[f], v);
      auto& c = h.formats[static_cast<std::size_t>(f)];
      c.flushed += e.flushed;
      c.subnormal += e.subnormal;
      c.overflowed += e.overflowed;
    }
  }
  h.counts.add(bins);
  h.formatsMeasured = true;
  return h;
}

void expectSameHistogram(const ExponentHistogram& got, const ExponentHistogram& want, const std::string& what) {
  EXPECT_TRUE(got.counts == want.counts) << what;
  EXPECT_EQ(got.zero, want.zero) << what;
  EXPECT_EQ(got.posInf, want.posInf) << what;
  EXPECT_EQ(got.negInf, want.negInf) << what;
  EXPECT_EQ(got.nan, want.nan) << what;
  EXPECT_EQ(got.targetSubnormal, want.targetSubnormal) << what;
  EXPECT_EQ(got.targetUnderflow, want.targetUnderflow) << what;
  EXPECT_EQ(got.formatsMeasured, want.formatsMeasured) << what;
  for (int f = 0; f < kRangeFormats; ++f) {
    const auto& g = got.formats[static_cast<std::size_t>(f)];
    const auto& w = want.formats[static_cast<std::size_t>(f)];
    EXPECT_EQ(g.flushed, w.flushed) << what << " " << rangeFormatKey(static_cast<RangeFormat>(f));
    EXPECT_EQ(g.subnormal, w.subnormal) << what << " " << rangeFormatKey(static_cast<RangeFormat>(f));
    EXPECT_EQ(g.overflowed, w.overflowed) << what << " " << rangeFormatKey(static_cast<RangeFormat>(f));
  }
}

TEST_P(HistogramFormats, WholeHistogramAgreesWithAValueByValueReference) {
  // Special values: signed zeros, float32 subnormals, every threshold and its float32 neighbours (the
  // ties of each format), the largest finite values, infinities and NaNs; mixed with gradient-like
  // normal values and with arbitrary bit patterns.
  std::vector<float> specials = {0.0f, -0.0f, fromBits(1), fromBits(0x80000001u), fromBits(0x007FFFFFu),
                                 fromBits(0x00400000u), INFINITY, -INFINITY, NAN, -NAN,
                                 fromBits(0x7F7FFFFFu), fromBits(0xFF7FFFFFu), fromBits(0x7FC00001u)};
  for (const RangeThresholds& t : rangeThresholds()) {
    for (const uint32_t b : {t.flushedMax, t.subnormalBelow, t.overflowFrom}) {
      for (const uint32_t near : {b - 1, b, b + 1}) {
        specials.push_back(fromBits(near));
        specials.push_back(-fromBits(near));
      }
    }
  }
  // The thresholds between 2^-26 and 2^-5 and their neighbours, all normal float32 values: the flush and
  // subnormal edges of FP16, E4M3 and E5M2 (six thresholds, three of them powers of two). Among
  // gradient-like values of these binades they make narrow blocks (fewer than 24 exponent fields, no
  // float32 subnormal, no inf or NaN), which the builder counts by compares over field bytes.
  std::vector<float> narrowSpecials;
  for (const RangeThresholds& t : rangeThresholds()) {
    for (const uint32_t b : {t.flushedMax, t.subnormalBelow, t.overflowFrom}) {
      if (fromBits(b) < std::ldexp(1.0f, -26) || fromBits(b) > std::ldexp(1.0f, -5)) continue;
      for (const uint32_t near : {b - 1, b, b + 1}) {
        narrowSpecials.push_back(fromBits(near));
        narrowSpecials.push_back(-fromBits(near));
      }
    }
  }
  ASSERT_EQ(narrowSpecials.size(), 6u * 6u);
  // The same edges for data without low bits (FP16-valued: the low 13 bits of every magnitude clear;
  // BF16-valued: the low 16), whose narrow blocks count every threshold on magnitude >> 13: per edge, the
  // nearest such values at, below and above it.
  const auto cleanNear = [&](uint32_t lowBits) {
    std::vector<float> near;
    for (const RangeThresholds& t : rangeThresholds()) {
      for (const uint32_t b : {t.flushedMax, t.subnormalBelow, t.overflowFrom}) {
        if (fromBits(b) < std::ldexp(1.0f, -26) || fromBits(b) > std::ldexp(1.0f, -5)) continue;
        const uint32_t at = b & ~lowBits;
        for (const uint32_t v : {at - (lowBits + 1), at, at + (lowBits + 1)}) near.push_back(fromBits(v));
      }
    }
    return near;
  };
  const std::vector<float> fp16Near = cleanNear(0x1FFFu), bf16Near = cleanNear(0xFFFFu);
  const auto clear = [](float v, uint32_t lowBits) { return fromBits(toBits(v) & ~lowBits); };
  std::mt19937 rng(4242);
  std::uniform_int_distribution<uint32_t> anyBits;
  std::normal_distribution<float> gradient(0.0f, 1e-3f);
  for (const int64_t n : {1, 5, 2047, 2048, 2049, 4096 + 17, 8191, 8192, 8193, 2 * 8192 + 5, 20000}) {
    for (const int mix : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) {
      std::vector<float> data(static_cast<std::size_t>(n));
      // Mixes 3 and 4 are scaled gradients as a loss scale leaves them: normal values with zeros,
      // infinities and NaNs, whose pair takes the one-pass path for a power-of-two multiplier. Mix 4
      // has one value, (2 - 2^-23) * 2^-120, that 2^-16 makes a float32 subnormal and rounds up into
      // the next binade (to 2^-135): its multiple is not the value moved by 16 binades, so the pair must
      // not take that path.
      const float scaledSpecials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN};
      for (auto& v : data) {
        const uint32_t r = anyBits(rng);
        if (mix == 0) v = (r % 8 == 0) ? specials[r % specials.size()] : gradient(rng);
        else if (mix == 1) v = fromBits(anyBits(rng));
        else if (mix == 2) v = (r % 64 == 0) ? specials[r % specials.size()] : gradient(rng) * 1e-4f;  // FP16 subnormal range
        else if (mix == 5) {  // narrow blocks: a quarter zeros, the thresholds near 2^-16-sized gradients
          v = (r % 4 == 0) ? 0.0f
              : (r % 16 == 1) ? narrowSpecials[(r >> 4) % narrowSpecials.size()]
                              : gradient(rng) * std::ldexp(1.0f, -6);
        } else if (mix == 6) {  // mostly zeros (blocks of nothing but zeros where n is small)
          v = (r % 8 == 0) ? gradient(rng) : ((r % 16 == 1) ? -0.0f : 0.0f);
        } else if (mix == 7 || mix == 8) {  // mix 5 without low bits: FP16- (7) and BF16-valued (8)
          const uint32_t lowBits = mix == 7 ? 0x1FFFu : 0xFFFFu;
          const std::vector<float>& near = mix == 7 ? fp16Near : bf16Near;
          v = (r % 4 == 0) ? 0.0f
              : (r % 16 == 1) ? near[(r >> 4) % near.size()] * ((r & 32) ? -1.0f : 1.0f)
                              : clear(gradient(rng) * std::ldexp(1.0f, -6), lowBits);
        } else if (mix == 9) {
          // Gradients scaled by 2^16 with zeros and no inf or NaN (a step that does not overflow): narrow
          // blocks, where the multiplier 2^-16 moves the FP16 and E5M2 subnormal edges into field 128.
          v = (r % 4 == 0) ? 0.0f
              : (r % 16 == 1) ? narrowSpecials[(r >> 4) % narrowSpecials.size()] * 65536.0f
                              : gradient(rng) * std::ldexp(1.0f, -6) * 65536.0f;
        } else if (mix == 10 || mix == 11) {
          // Narrow blocks of many fields: exponents spread over 2^-30 .. 2^9 (40 fields, across field
          // 128, where a zero's q wraps onto the field's), with zeros and the edges above; mix 11
          // FP16-valued (no low bits), whose every threshold is counted on magnitude >> 13.
          const float spread = std::ldexp(1.0f + static_cast<float>(r >> 8) * 0x1p-24f, -30 + static_cast<int>(r % 40));
          v = (r % 8 == 0) ? 0.0f
              : (r % 16 == 1) ? narrowSpecials[(r >> 4) % narrowSpecials.size()]
                              : ((r & 64) ? -spread : spread);
          if (mix == 11) v = clear(v, 0x1FFFu);
        } else v = (r % 50 == 0) ? scaledSpecials[r % 5] : gradient(rng) * 65536.0f;
      }
      if (mix == 4) data[static_cast<std::size_t>(n / 2)] = fromBits(0x03FFFFFFu);
      for (const LowFormat target : {LowFormat::FP16, LowFormat::BF16}) {
        // 2^-16 and 2^3: a loss scale of 65536 and of 1/8 (after many backoffs); 1/3: no power of two.
        for (const float multiplier : {1.0f, 1.0f / 65536, 8.0f, 1.0f / 3}) {
          const std::string what = "n " + std::to_string(n) + " mix " + std::to_string(mix) + " target " +
                                   lowFormatDtypeName(target) + " multiplier " + std::to_string(multiplier);
          ExponentHistogram single;
          accumulateHistogram(data.data(), n, multiplier, target, single);
          expectSameHistogram(single, referenceHistogram(data, multiplier, target), what + " single");
          ExponentHistogram asIs, multiplied;
          accumulateHistogramPair(data.data(), n, multiplier, target, asIs, multiplied);
          expectSameHistogram(multiplied, referenceHistogram(data, multiplier, target), what + " pair multiplied");
          expectSameHistogram(asIs, referenceHistogram(data, 1.0f, target), what + " pair as is");
          // Accumulating onto an existing histogram adds.
          accumulateHistogram(data.data(), n, multiplier, target, single);
          ExponentHistogram twice = referenceHistogram(data, multiplier, target);
          twice.add(referenceHistogram(data, multiplier, target));
          expectSameHistogram(single, twice, what + " added twice");
        }
      }
    }
  }
}

}  // namespace
}  // namespace ampscope::detail
