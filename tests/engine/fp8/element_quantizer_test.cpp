// The FP8/FP4 element quantiser (fp8/element_quantizer.h) against exact references:
// - E4M3 and E5M2: number_format's encodeSaturating (the OCP 8-bit FP spec's formats, round to nearest
//   even, overflow saturating to the largest finite value as the "satfinite" conversion does), for every
//   float32 within 64 ulps of every representable value and of every midpoint between neighbours
//   (the rounding thresholds), and for a million random float32 patterns;
// - E2M1: the OCP MX spec's FP4 value set {0, 0.5, 1, 1.5, 2, 3, 4, 6} searched for the nearest value,
//   ties to the even encoding, at the same thresholds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "ampscope/engine/number_format.h"
#include "fp8/element_kernel.h"
#include "fp8/element_quantizer.h"

namespace ampscope::detail::fp8 {
namespace {

using kernel::bitsOf;
using kernel::floatOf;

float reference(float x, QuantFormat format) {
  if (format == QuantFormat::E2M1) {
    // Codes 0..7 in order of magnitude; an even code has a zero mantissa bit.
    static const float kValues[] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
    if (std::isnan(x)) return x;
    const float a = std::fabs(x);
    int best = 0;
    for (int c = 1; c < 8; ++c) {
      const double d = std::fabs(static_cast<double>(a) - kValues[c]);
      const double dBest = std::fabs(static_cast<double>(a) - kValues[best]);
      if (d < dBest || (d == dBest && c % 2 == 0)) best = c;
    }
    if (a > 6.0f) best = 7;  // saturating
    return std::copysign(kValues[best], x);
  }
  const DType dtype = format == QuantFormat::E4M3 ? DType::FP8E4M3FN : DType::FP8E5M2;
  return static_cast<float>(decode(dtype, encodeSaturating(dtype, static_cast<double>(x))));
}

// Every float32 within `ulps` of the value's neighbourhood, both signs.
void expectAround(float centre, QuantFormat format, int ulps, int64_t* checked) {
  const uint32_t c = bitsOf(std::fabs(centre));
  for (int k = -ulps; k <= ulps; ++k) {
    const int64_t b = static_cast<int64_t>(c) + k;
    if (b < 0 || b >= 0x7F800000) continue;
    for (const float x : {floatOf(static_cast<uint32_t>(b)), -floatOf(static_cast<uint32_t>(b))}) {
      const float got = quantizeValue(x, format);
      const float want = reference(x, format);
      ASSERT_EQ(bitsOf(got), bitsOf(want)) << "x = " << x << " (" << std::hexfloat << x << ")";
      ++*checked;
    }
  }
}

std::vector<float> representable(QuantFormat format) {
  std::vector<float> values;
  if (format == QuantFormat::E2M1) return {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const DType dtype = format == QuantFormat::E4M3 ? DType::FP8E4M3FN : DType::FP8E5M2;
  for (uint64_t bits = 0; bits < 0x80; ++bits) {
    const double v = decode(dtype, bits);
    if (std::isfinite(v)) values.push_back(static_cast<float>(v));
  }
  return values;
}

class ElementQuantizer : public ::testing::TestWithParam<QuantFormat> {};

TEST_P(ElementQuantizer, MatchesTheReferenceNearEveryValueAndEveryRoundingThreshold) {
  const QuantFormat format = GetParam();
  const std::vector<float> values = representable(format);
  int64_t checked = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    expectAround(values[i], format, 64, &checked);
    if (i + 1 < values.size()) expectAround((values[i] + values[i + 1]) / 2, format, 64, &checked);
  }
  const float top = values.back();
  // Beyond the largest value: the next value the format would have had, its midpoint, and far out.
  for (const float beyond : {top * 1.0625f, top * 1.125f, top * 2.0f, 1e30f, std::numeric_limits<float>::max()}) {
    expectAround(beyond, format, 64, &checked);
  }
  // float32 subnormals and the smallest normals round to zero in every format.
  expectAround(std::numeric_limits<float>::denorm_min(), format, 64, &checked);
  expectAround(std::numeric_limits<float>::min(), format, 64, &checked);
  EXPECT_GT(checked, 1000);
}

TEST_P(ElementQuantizer, MatchesTheReferenceOnAMillionRandomPatterns) {
  const QuantFormat format = GetParam();
  std::mt19937 rng(20261201);
  // Half the draws spread over all patterns, half within the format's range, where rounding happens.
  std::uniform_int_distribution<uint32_t> any(0, 0x7F7FFFFF);
  std::uniform_real_distribution<float> exponent(-20.0f, 18.0f);
  std::vector<float> in(1'000'000), out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const float magnitude = i % 2 ? floatOf(any(rng)) : std::exp2(exponent(rng));
    in[i] = rng() % 2 ? -magnitude : magnitude;
  }
  quantize(in.data(), out.data(), static_cast<int64_t>(in.size()), format, 1.0f, 1.0f, nullptr);
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(bitsOf(out[i]), bitsOf(reference(in[i], format))) << std::hexfloat << in[i];
  }
}

TEST_P(ElementQuantizer, SpecialValues) {
  const QuantFormat format = GetParam();
  const float max = elementSpec(format).maxValue;
  EXPECT_EQ(quantizeValue(std::numeric_limits<float>::infinity(), format), max);
  EXPECT_EQ(quantizeValue(-std::numeric_limits<float>::infinity(), format), -max);
  EXPECT_TRUE(std::isnan(quantizeValue(std::numeric_limits<float>::quiet_NaN(), format)));
  EXPECT_EQ(bitsOf(quantizeValue(-0.0f, format)), bitsOf(-0.0f));
  EXPECT_EQ(bitsOf(quantizeValue(-1e-30f, format)), bitsOf(-0.0f));
}

INSTANTIATE_TEST_SUITE_P(Formats, ElementQuantizer,
                         ::testing::Values(QuantFormat::E4M3, QuantFormat::E5M2, QuantFormat::E2M1),
                         [](const auto& info) { return std::string(quantFormatKey(info.param)); });

TEST(ElementQuantizerCounts, SaturatedAndFlushedAreCountedAfterScaling) {
  // E4M3 with scale 2: 300 * 2 = 600 > 448 saturates; 2^-11 * 2 = 2^-10 is half the smallest
  // subnormal 2^-9 and rounds to zero (a tie, to the even code 0); 2^-10 * 2 = 2^-9 stays; 0 is no flush.
  const std::vector<float> in = {300.0f, 0x1p-11f, 0x1p-10f, 0.0f, -1e-30f, std::numeric_limits<float>::infinity()};
  std::vector<float> out(in.size());
  QuantCounts counts;
  quantize(in.data(), out.data(), static_cast<int64_t>(in.size()), QuantFormat::E4M3, 2.0f, 0.5f, &counts);
  EXPECT_EQ(counts.saturated, 2);  // 600 and inf
  EXPECT_EQ(counts.flushed, 2);    // 2^-11 and -1e-30
  EXPECT_EQ(out[0], 224.0f);       // 448 / 2
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_EQ(out[2], 0x1p-10f);
  EXPECT_EQ(out[5], 224.0f);
}

TEST(ElementQuantizerCounts, AbsMax) {
  const std::vector<float> in = {1.0f, -7.5f, 3.0f};
  EXPECT_EQ(absMax(in.data(), 3), 7.5f);
  const std::vector<float> withNaN = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  EXPECT_TRUE(std::isnan(absMax(withNaN.data(), 2)));
  EXPECT_EQ(absMax(in.data(), 0), 0.0f);
}

}  // namespace
}  // namespace ampscope::detail::fp8
