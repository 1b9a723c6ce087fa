// Exact FP16/BF16 emulation and the exponent histogram, checked against LibTorch's own conversions
// (c10::Half / c10::BFloat16 and tensor casts, IEEE-754 binary16 round-to-nearest-even) and the
// chapter's gradient-underflow table (its section 5). The rounding, counting and histogram tests run
// under every instruction set this CPU has (kernel_isa.h), so that the x86-64-v3 and baseline loops a
// CPU without AVX-512 takes are checked on one that has it.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "exponent_histogram_builder.h"
#include "low_precision.h"
#include "precision_context.h"
#include "support/under_isa.h"

namespace ampscope::detail {
namespace {

uint32_t bitsOf(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

class LowPrecisionRounding : public support::UnderIsa {};
class ExponentHistogramBins : public support::UnderIsa {};
AMPSCOPE_UNDER_EACH_ISA(LowPrecisionRounding);
AMPSCOPE_UNDER_EACH_ISA(ExponentHistogramBins);

// Bit-identical, NaN matching NaN.
void expectSameFloat(float expected, float actual, float input) {
  if (std::isnan(expected)) {
    EXPECT_TRUE(std::isnan(actual)) << "input " << input;
  } else {
    EXPECT_EQ(bitsOf(expected), bitsOf(actual)) << "input " << input << " expected " << expected
                                                << " got " << actual;
  }
}

// Values around every FP16/BF16 boundary: ties, subnormal edges, overflow edges, random magnitudes.
std::vector<float> probeValues() {
  std::vector<float> values = {0.0f,       -0.0f,     1.0f,      65504.0f,  65519.996f, 65520.0f,
                               -65520.0f,  1e-2f,     1e-4f,     1e-6f,     1e-7f,      1e-8f,
                               1e-9f,      2.98023224e-08f /* 2^-25 */,     2.9802326e-08f,
                               5.96046448e-08f /* 2^-24 */,    6.10351562e-05f /* 2^-14 */,
                               6.1e-05f,   3.4e38f,   std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN(),
                               std::numeric_limits<float>::denorm_min(), 1.0009765625f /* 1+2^-10 */,
                               1.00048828125f /* 1 + 2^-11: a tie, rounds to even (1) */,
                               1.00146484375f /* 1 + 3*2^-11: a tie, rounds to even (1+2^-9) */};
  std::mt19937 random(1234);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    const uint32_t b = bits(random);
    float v;
    std::memcpy(&v, &b, sizeof v);
    values.push_back(v);
  }
  // Ties and their neighbours at random signs, exponents and kept bits, in runs of 16 normal values (the
  // vectorised conversions take whole groups of 16): BF16 keeps the top 16 bits, FP16 (normal) 19.
  for (int i = 0; i < 4096; ++i) {
    const uint32_t b = bits(random);
    const uint32_t exponent = 1 + b % 254;
    const uint32_t low = i % 2 == 0 ? 0x8000u + (b >> 30) % 3 - 1 : 0x1000u + (b >> 30) % 3 - 1;
    const uint32_t pattern = (b & 0x80000000u) | (exponent << 23) | ((b << 9) & (i % 2 == 0 ? 0x7F0000u : 0x7FE000u)) | low;
    float v;
    std::memcpy(&v, &pattern, sizeof v);
    values.push_back(v);
  }
  return values;
}

// The edges of a format's classes (IEEE 754 binary16; bfloat16 is binary32 with 8 significand bits).
struct FormatEdges {
  float minSub, minNormal, max, maxTie;  // maxTie = max + ulp(max)/2, the smallest value that overflows
};
FormatEdges edgesOf(LowFormat format) {
  if (format == LowFormat::FP16) return {std::ldexp(1.0f, -24), lowFormatMinNormal(format), 65504.0f, 65520.0f};
  return {std::ldexp(1.0f, -133), lowFormatMinNormal(format), std::ldexp(255.0f, 120), std::ldexp(511.0f, 119)};
}

// The reference counts: each value next to its rounded value (roundScalar, checked bit for bit above
// against c10::Half / c10::BFloat16).
RoundingCounts referenceCounts(const float* values, int64_t n, LowFormat format) {
  const float minNormal = lowFormatMinNormal(format);
  RoundingCounts expected;
  expected.elements = n;
  for (int64_t i = 0; i < n; ++i) {
    const float v = values[i];
    const float r = roundScalar(v, format);
    expected.flushedToZero += v != 0.0f && r == 0.0f;
    expected.subnormal += r != 0.0f && std::fabs(r) < minNormal;
    expected.overflowed += std::isfinite(v) && std::isinf(r);
    expected.nan += std::isnan(r);
  }
  return expected;
}

TEST_P(LowPrecisionRounding, Fp16EqualsC10HalfAndTensorCastBitForBit) {
  const std::vector<float> values = probeValues();
  std::vector<float> rounded(values.size());
  roundToFormat(values.data(), rounded.data(), static_cast<int64_t>(values.size()), LowFormat::FP16,
                nullptr);
  const torch::Tensor cast =
      torch::from_blob(const_cast<float*>(values.data()), {static_cast<int64_t>(values.size())})
          .to(torch::kHalf)
          .to(torch::kFloat);
  const float* castData = cast.data_ptr<float>();
  for (size_t i = 0; i < values.size(); ++i) {
    expectSameFloat(static_cast<float>(c10::Half(values[i])), rounded[i], values[i]);
    expectSameFloat(castData[i], rounded[i], values[i]);
    expectSameFloat(rounded[i], roundScalar(values[i], LowFormat::FP16), values[i]);
  }
}

TEST_P(LowPrecisionRounding, Bf16EqualsC10BFloat16AndTensorCastBitForBit) {
  const std::vector<float> values = probeValues();
  std::vector<float> rounded(values.size());
  roundToFormat(values.data(), rounded.data(), static_cast<int64_t>(values.size()), LowFormat::BF16,
                nullptr);
  const torch::Tensor cast =
      torch::from_blob(const_cast<float*>(values.data()), {static_cast<int64_t>(values.size())})
          .to(torch::kBFloat16)
          .to(torch::kFloat);
  const float* castData = cast.data_ptr<float>();
  for (size_t i = 0; i < values.size(); ++i) {
    expectSameFloat(static_cast<float>(c10::BFloat16(values[i])), rounded[i], values[i]);
    expectSameFloat(castData[i], rounded[i], values[i]);
  }
}

// The chapter, section 5: [1e-2, 1e-4, 1e-6, 1e-7, 1e-8, 1e-9] in FP16 is
// [1.0002e-02, 1.0002e-04, 1.0133e-06, 1.1921e-07, 0, 0]: two values flush to zero, two are subnormal.
TEST_P(LowPrecisionRounding, ChapterUnderflowTableAndItsCounts) {
  const std::vector<float> values = {1e-2f, 1e-4f, 1e-6f, 1e-7f, 1e-8f, 1e-9f};
  std::vector<float> out(values.size());
  RoundingCounts counts;
  roundToFormat(values.data(), out.data(), 6, LowFormat::FP16, &counts);
  const std::vector<double> expected = {1.0002e-02, 1.0002e-04, 1.0133e-06, 1.1921e-07, 0, 0};
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(out[i], expected[i], std::fabs(expected[i]) * 1e-4);
  EXPECT_EQ(counts.elements, 6);
  EXPECT_EQ(counts.flushedToZero, 2);
  EXPECT_EQ(counts.subnormal, 2);  // 1.0133e-06 and 1.1921e-07 are below 2^-14
  EXPECT_EQ(counts.overflowed, 0);
  // BF16 keeps them all (the chapter, section 5: 1.0012e-08, 9.9681e-10).
  RoundingCounts bf16Counts;
  roundToFormat(values.data(), out.data(), 6, LowFormat::BF16, &bf16Counts);
  EXPECT_EQ(bf16Counts.flushedToZero, 0);
  EXPECT_NEAR(out[4], 1.0012e-08, 1e-12);
  EXPECT_NEAR(out[5], 9.9681e-10, 1e-13);
}

TEST_P(LowPrecisionRounding, OverflowAndNanAreCounted) {
  const std::vector<float> values = {70000.0f, -1e6f, std::numeric_limits<float>::infinity(),
                                     std::numeric_limits<float>::quiet_NaN(), 65504.0f};
  std::vector<float> out(values.size());
  RoundingCounts counts;
  roundToFormat(values.data(), out.data(), 5, LowFormat::FP16, &counts);
  EXPECT_EQ(counts.overflowed, 2);  // finite -> inf; an inf input is not an overflow
  EXPECT_EQ(counts.nan, 1);
  EXPECT_EQ(out[4], 65504.0f);      // FP16 max stays
}

// The autograd function rounds the forward value AND the incoming gradient, both as c10::Half.
// The observation of a native cast counts without rounding (thresholds); its counts must be those of
// actually rounding (IEEE 754-2019 roundTiesToEven, as the conversions above): checked on the probe values
// and on the float32 neighbours of each format's flush, subnormal and overflow edges.
TEST_P(LowPrecisionRounding, CountingWithoutRoundingMatchesTheRoundingCounts) {
  for (LowFormat format : {LowFormat::FP16, LowFormat::BF16}) {
    std::vector<float> values = probeValues();
    const auto [minSub, minNormal, max, maxTie] = edgesOf(format);
    for (float anchor : {minSub / 2, minSub, minNormal - minSub / 2, minNormal, max, maxTie}) {
      float v = anchor;
      for (int i = 0; i < 8; ++i) v = std::nextafter(v, 0.0f);
      for (int i = 0; i < 16; ++i, v = std::nextafter(v, std::numeric_limits<float>::infinity())) {
        values.push_back(v);
        values.push_back(-v);
      }
    }
    const RoundingCounts expected = referenceCounts(values.data(), static_cast<int64_t>(values.size()), format);
    EXPECT_GT(expected.flushedToZero, 0);
    EXPECT_GT(expected.subnormal, 0);
    EXPECT_GT(expected.overflowed, 0);
    EXPECT_GT(expected.nan, 0);
    const auto n = static_cast<int64_t>(values.size());
    RoundingCounts counted;  // without rounding (a native cast's observation)
    countRounding(values.data(), n, format, &counted);
    std::vector<float> out(values.size());
    RoundingCounts rounded;
    roundToFormat(values.data(), out.data(), n, format, &rounded);
    RoundingCounts inPlace;
    roundToFormat(values.data(), values.data(), n, format, &inPlace);
    for (const RoundingCounts* c : {&counted, &rounded, &inPlace}) {
      EXPECT_EQ(c->elements, expected.elements);
      EXPECT_EQ(c->flushedToZero, expected.flushedToZero) << lowFormatDtypeName(format);
      EXPECT_EQ(c->subnormal, expected.subnormal) << lowFormatDtypeName(format);
      EXPECT_EQ(c->overflowed, expected.overflowed) << lowFormatDtypeName(format);
      EXPECT_EQ(c->nan, expected.nan) << lowFormatDtypeName(format);
    }
  }
}

TEST_P(LowPrecisionRounding, CountsOfMostlyNormalDataMatchAValueByValueReference) {
  // Normal values with one value of each class placed at chunk edges and inside chunks (the count skips
  // chunks it finds clean by their smallest non-zero and largest magnitude); zeros are clean.
  for (LowFormat format : {LowFormat::FP16, LowFormat::BF16}) {
    [[maybe_unused]] const auto [minSub, minNormal, max, maxTie] = edgesOf(format);
    const float rare[] = {minSub / 2, std::nextafter(minNormal - minSub / 2, 0.0f), minNormal - minSub / 2,
                          maxTie, std::nextafter(maxTie, 0.0f), std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min()};
    std::mt19937 random(5);
    std::uniform_real_distribution<float> normal(0.5f, 2.0f);
    std::vector<float> values(3000);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = i % 7 == 0 ? 0.0f : normal(random);
    std::size_t next = 0;
    for (std::size_t at : {std::size_t{0}, std::size_t{255}, std::size_t{256}, std::size_t{700}, std::size_t{1023},
                           std::size_t{1024}, std::size_t{2047}, std::size_t{2999}}) {
      values[at] = (at % 2 ? -1.0f : 1.0f) * rare[next++ % (sizeof rare / sizeof rare[0])];
    }
    for (const int64_t offset : {0, 1, 250}) {
      const auto n = static_cast<int64_t>(values.size()) - offset;
      const float* in = values.data() + offset;
      const RoundingCounts reference = referenceCounts(in, n, format);
      // Of the eight placed values five fall in a class (two flushes, a subnormal, an overflow, a NaN);
      // inf, the tie that rounds up to minNormal and the largest value below the overflow tie do not.
      if (offset == 0) {
        EXPECT_EQ(reference.flushedToZero + reference.subnormal + reference.overflowed + reference.nan, 5);
      }
      // Counted alone (a native cast's observation), while rounding out of place (the rounding pass takes
      // each block's range) and while rounding in place (counted before each block is rounded).
      RoundingCounts counted, outOfPlace, inPlace;
      countRounding(in, n, format, &counted);
      std::vector<float> rounded(static_cast<std::size_t>(n)), roundedInPlace(in, in + n);
      roundToFormat(in, rounded.data(), n, format, &outOfPlace);
      roundToFormat(roundedInPlace.data(), roundedInPlace.data(), n, format, &inPlace);
      for (int64_t i = 0; i < n; ++i) {
        const float want = roundScalar(in[i], format);
        ASSERT_EQ(std::memcmp(&rounded[i], &want, sizeof want), 0) << i;
        ASSERT_EQ(std::memcmp(&roundedInPlace[i], &want, sizeof want), 0) << i;
      }
      for (const RoundingCounts* c : {&counted, &outOfPlace, &inPlace}) {
        const std::string what = std::string(lowFormatDtypeName(format)) + " offset " + std::to_string(offset) +
                                 (c == &counted ? " counted" : c == &outOfPlace ? " out of place" : " in place");
        EXPECT_EQ(c->elements, n) << what;
        EXPECT_EQ(c->flushedToZero, reference.flushedToZero) << what;
        EXPECT_EQ(c->subnormal, reference.subnormal) << what;
        EXPECT_EQ(c->overflowed, reference.overflowed) << what;
        EXPECT_EQ(c->nan, reference.nan) << what;
      }
    }
  }
}

// Every 16-bit pattern of both formats, classified by its value as c10 converts it (exact): IEEE-754
// binary16 and bfloat16 are subnormal below their smallest normal (2^-14, 2^-126) and non-zero. Over
// the whole table (a multiple of the 2048-value chunks), slices that end inside a chunk and a vector, and
// short ones (shorter than a vector) around the smallest subnormals and the infinities.
TEST_P(LowPrecisionRounding, ClassifyStoredMatchesEveryBitPattern) {
  std::vector<uint16_t> patterns(65536);
  for (std::size_t b = 0; b < patterns.size(); ++b) patterns[b] = static_cast<uint16_t>(b);
  for (const LowFormat format : {LowFormat::FP16, LowFormat::BF16}) {
    const auto valueOf = [&](uint16_t b) {
      return format == LowFormat::FP16 ? static_cast<float>(c10::Half(b, c10::Half::from_bits()))
                                       : static_cast<float>(c10::BFloat16(b, c10::BFloat16::from_bits()));
    };
    const float minNormal = lowFormatMinNormal(format);
    for (const auto& [begin, length] : {std::pair<int64_t, int64_t>{0, 65536}, {17, 5000}, {40000, 31}, {65535, 1},
                                     {0x7C00 - 3, 7}, {0x7F80 - 3, 7}, {0xFF80 - 2, 5}, {1, 3}}) {
      RoundingCounts want;
      for (int64_t i = begin; i < begin + length; ++i) {
        const float v = valueOf(patterns[static_cast<std::size_t>(i)]);
        want.subnormal += v != 0.0f && std::fabs(v) < minNormal;
        want.overflowed += std::isinf(v);
        want.nan += std::isnan(v);
      }
      RoundingCounts got;
      classifyStored(patterns.data() + begin, length, format, &got);
      const std::string what = std::string(lowFormatDtypeName(format)) + " from " + std::to_string(begin) +
                               " length " + std::to_string(length);
      EXPECT_EQ(got.subnormal, want.subnormal) << what;
      EXPECT_EQ(got.overflowed, want.overflowed) << what;
      EXPECT_EQ(got.nan, want.nan) << what;
      EXPECT_EQ(got.elements, length) << what;
      EXPECT_EQ(got.flushedToZero, 0) << what;
    }
  }
}

TEST_P(LowPrecisionRounding, CountsOfShortSlicesMatchAValueByValueReference) {
  // The vectorised count's tails and lane sums: every slice length 0..80 at a few offsets of a mix of
  // threshold neighbours (ties included), signed zeros, subnormals, inf and NaN.
  for (LowFormat format : {LowFormat::FP16, LowFormat::BF16}) {
    [[maybe_unused]] const auto [minSub, minNormal, max, maxTie] = edgesOf(format);
    std::vector<float> pool = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                               std::numeric_limits<float>::denorm_min(), 1.0f, -3.5f};
    for (float anchor : {minSub / 2, minNormal - minSub / 2, maxTie}) {
      for (float v : {std::nextafter(anchor, 0.0f), anchor, std::nextafter(anchor, INFINITY)}) {
        pool.push_back(v);
        pool.push_back(-v);
      }
    }
    std::mt19937 random(99);
    std::vector<float> values(400);
    for (float& v : values) v = pool[random() % pool.size()];
    for (int64_t offset : {0, 1, 3, 17}) {
      for (int64_t n = 0; n <= 80; ++n) {
        const RoundingCounts expected = referenceCounts(values.data() + offset, n, format);
        RoundingCounts counted, rounded;
        countRounding(values.data() + offset, n, format, &counted);
        std::vector<float> out(static_cast<std::size_t>(n));
        roundToFormat(values.data() + offset, out.data(), n, format, &rounded);  // the fused range's tails
        for (const RoundingCounts* c : {&counted, &rounded}) {
          ASSERT_EQ(c->elements, expected.elements);
          ASSERT_EQ(c->flushedToZero, expected.flushedToZero) << n << " " << offset;
          ASSERT_EQ(c->subnormal, expected.subnormal) << n << " " << offset;
          ASSERT_EQ(c->overflowed, expected.overflowed) << n << " " << offset;
          ASSERT_EQ(c->nan, expected.nan) << n << " " << offset;
        }
      }
    }
  }
}

TEST_P(LowPrecisionRounding, AnOverflowAnywhereIsCountedOnceWithTheFlushesBesideIt) {
  // The AVX-512 FP16 pass counts groups of 16 values in lanes and tests eight groups at a time for a
  // value at or above the overflow edge; such groups are counted value by value instead, in place
  // before they are overwritten. An overflow (or inf, or NaN) at every position of two blocks of eight
  // groups, three single groups and a tail, with a flush 5 values on (mostly in its group), a subnormal
  // 100 on (mostly in its block) and a value that rounds to max 150 on (in another block), must count
  // as the value-by-value reference does.
  for (LowFormat format : {LowFormat::FP16, LowFormat::BF16}) {
    const auto [minSub, minNormal, max, maxTie] = edgesOf(format);
    const float specials[] = {maxTie, -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN()};
    std::mt19937 random(11);
    std::uniform_real_distribution<float> normal(0.5f, 2.0f);
    constexpr int64_t n = 128 * 2 + 16 * 3 + 5;
    std::vector<float> clean(n);
    for (float& v : clean) v = normal(random);
    for (int64_t at = 0; at < n; ++at) {
      std::vector<float> values = clean;
      values[static_cast<std::size_t>(at)] = specials[at % 3];
      values[static_cast<std::size_t>((at + 5) % n)] = -minSub / 2;                    // flushes
      values[static_cast<std::size_t>((at + 100) % n)] = minNormal / 2;                 // subnormal
      values[static_cast<std::size_t>((at + 150) % n)] = std::nextafter(maxTie, 0.0f);  // rounds to max
      const RoundingCounts reference = referenceCounts(values.data(), n, format);
      ASSERT_EQ(reference.flushedToZero + reference.subnormal + reference.overflowed + reference.nan,
                at % 3 == 1 ? 2 : 3);
      std::vector<float> out(n), inPlace = values;
      RoundingCounts outOfPlaceCounts, inPlaceCounts;
      roundToFormat(values.data(), out.data(), n, format, &outOfPlaceCounts);
      roundToFormat(inPlace.data(), inPlace.data(), n, format, &inPlaceCounts);
      for (int64_t i = 0; i < n; ++i) {
        const float want = roundScalar(values[static_cast<std::size_t>(i)], format);
        ASSERT_EQ(std::memcmp(&out[static_cast<std::size_t>(i)], &want, sizeof want), 0) << at << " " << i;
        ASSERT_EQ(std::memcmp(&inPlace[static_cast<std::size_t>(i)], &want, sizeof want), 0) << at << " " << i;
      }
      for (const RoundingCounts* c : {&outOfPlaceCounts, &inPlaceCounts}) {
        const std::string what = std::string(lowFormatDtypeName(format)) + " special at " + std::to_string(at) +
                                 (c == &inPlaceCounts ? " in place" : " out of place");
        ASSERT_EQ(c->elements, n) << what;
        ASSERT_EQ(c->flushedToZero, reference.flushedToZero) << what;
        ASSERT_EQ(c->subnormal, reference.subnormal) << what;
        ASSERT_EQ(c->overflowed, reference.overflowed) << what;
        ASSERT_EQ(c->nan, reference.nan) << what;
      }
    }
  }
}

TEST_P(LowPrecisionRounding, CountsHoldWhereMostlyCleanDataTurnsMostlySubnormal) {
  // With AVX-512, FP16 counting first tests eight groups of 16 values at a time for any value in a class
  // and counts only those that hold one; once more than about a quarter of them do, it counts every group
  // for the rest of the call. Clean values with a few classes scattered, then a stretch where every
  // eighth value is subnormal (the switch comes inside it), then clean values with a flush and an overflow
  // again: the counts and the rounded values must be the value-by-value reference's, in place and apart.
  for (LowFormat format : {LowFormat::FP16, LowFormat::BF16}) {
    const auto [minSub, minNormal, max, maxTie] = edgesOf(format);
    std::mt19937 random(23);
    std::uniform_real_distribution<float> normal(0.5f, 2.0f);
    std::vector<float> values(128 * 64 + 37);
    for (float& v : values) v = normal(random);
    values[130] = minNormal / 4;     // subnormal, clean stretch
    values[1000] = -minSub / 4;      // flushes, clean stretch
    values[1500] = 0.0f;             // a zero is clean
    for (std::size_t i = 2048; i < 5120; i += 8) values[i] = (i % 16 ? -1.0f : 1.0f) * minNormal / 3;
    values[6000] = -minSub / 4;      // after the switch
    values[7000] = maxTie;           // overflows
    values[8200] = std::numeric_limits<float>::quiet_NaN();
    const auto n = static_cast<int64_t>(values.size());
    const RoundingCounts reference = referenceCounts(values.data(), n, format);
    ASSERT_EQ(reference.subnormal, 1 + 384);
    ASSERT_EQ(reference.flushedToZero, 2);
    std::vector<float> apart(values.size()), inPlace = values;
    RoundingCounts apartCounts, inPlaceCounts;
    roundToFormat(values.data(), apart.data(), n, format, &apartCounts);
    roundToFormat(inPlace.data(), inPlace.data(), n, format, &inPlaceCounts);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const float want = roundScalar(values[i], format);
      ASSERT_EQ(std::memcmp(&apart[i], &want, sizeof want), 0) << i;
      ASSERT_EQ(std::memcmp(&inPlace[i], &want, sizeof want), 0) << i;
    }
    for (const RoundingCounts* c : {&apartCounts, &inPlaceCounts}) {
      EXPECT_EQ(c->elements, n);
      EXPECT_EQ(c->flushedToZero, reference.flushedToZero);
      EXPECT_EQ(c->subnormal, reference.subnormal);
      EXPECT_EQ(c->overflowed, reference.overflowed);
      EXPECT_EQ(c->nan, reference.nan);
    }
  }
}

TEST(RoundToFormatFunction, RoundsForwardAndBackwardLikeHalfConversion) {
  torch::manual_seed(3);
  const torch::Tensor x = (torch::randn({1000}) * torch::pow(10.0, torch::randint(-9, 3, {1000})))
                              .requires_grad_(true);
  const torch::Tensor g = torch::randn({1000}) * torch::pow(10.0, torch::randint(-9, 3, {1000}));
  RoundingCounts forward;
  RoundingCounts backward;
  const torch::Tensor y = roundToFormat(x, LowFormat::FP16, &forward, &backward);
  (y * g).sum().backward();
  const float* xd = x.data_ptr<float>();
  const float* yd = y.data_ptr<float>();
  const float* gd = g.data_ptr<float>();
  const float* dx = x.grad().data_ptr<float>();
  for (int i = 0; i < 1000; ++i) {
    expectSameFloat(static_cast<float>(c10::Half(xd[i])), yd[i], xd[i]);
    expectSameFloat(static_cast<float>(c10::Half(gd[i])), dx[i], gd[i]);
  }
  EXPECT_EQ(forward.elements, 1000);
  EXPECT_EQ(backward.elements, 1000);
  EXPECT_GT(backward.flushedToZero, 0);  // 1e-9-scale gradients flush
}

// Hand count (IEEE-754 float32 exponents: 1 and 1.5 -> 0, 2 -> 1, 0.25 -> -2, the smallest float32
// subnormal 2^-149 -> -149, 3e-8 -> -25, 1e-5 -> -17). FP16 overlay: 1e-5 and 3e-8 are subnormal in
// FP16 (3e-8 > 2^-25 rounds up to 2^-24), 2^-149 rounds to zero.
TEST_P(ExponentHistogramBins, BinsMatchAHandCountAndSumToNumel) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> values = {0.0f,  -0.0f, 1.0f, 1.5f, 2.0f, 0.25f,
                                     std::numeric_limits<float>::denorm_min(), -inf, inf,
                                     std::numeric_limits<float>::quiet_NaN(), 3e-8f, -1e-5f};
  ExponentHistogram h;
  accumulateHistogram(values.data(), static_cast<int64_t>(values.size()), 1.0f, LowFormat::FP16, h);
  EXPECT_EQ(h.total(), static_cast<int64_t>(values.size()));
  EXPECT_EQ(h.zero, 2);
  EXPECT_EQ(h.posInf, 1);
  EXPECT_EQ(h.negInf, 1);
  EXPECT_EQ(h.nan, 1);
  EXPECT_EQ(h.countAt(0), 2);
  EXPECT_EQ(h.countAt(1), 1);
  EXPECT_EQ(h.countAt(-2), 1);
  EXPECT_EQ(h.countAt(-149), 1);
  EXPECT_EQ(h.countAt(-25), 1);
  EXPECT_EQ(h.countAt(-17), 1);
  EXPECT_EQ(h.targetSubnormal, 2);
  EXPECT_EQ(h.targetUnderflow, 1);
}

TEST_P(ExponentHistogramBins, RandomTensorBinsAgreeWithFrexpAndSumToNumel) {
  torch::manual_seed(5);
  const torch::Tensor t = torch::randn({4096}) * torch::pow(10.0, torch::randint(-40, 30, {4096}));
  ExponentHistogram h;
  accumulateHistogram(t, 1.0f, LowFormat::BF16, h);
  EXPECT_EQ(h.total(), t.numel());
  std::array<int64_t, ExponentHistogram::kBins> expected{};
  int64_t zeros = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const float v = t.data_ptr<float>()[i];
    if (v == 0.0f) {
      ++zeros;
      continue;
    }
    int e;
    std::frexp(v, &e);  // v = m * 2^e with 0.5 <= |m| < 1, so floor(log2|v|) = e - 1
    ++expected[static_cast<size_t>(e - 1 - ExponentHistogram::kMinExponent)];
  }
  EXPECT_EQ(h.zero, zeros);
  EXPECT_EQ(h.counts.dense(), expected);
}

// The overlays use magnitude thresholds; they must say exactly what rounding (c10::Half, BF16 RNE)
// does, including the ties at half the smallest subnormal and just below the smallest normal.
TEST_P(ExponentHistogramBins, OverlaysAgreeWithActualRoundingNearEveryThreshold) {
  for (LowFormat format : {LowFormat::FP16, LowFormat::BF16}) {
    const int minExponent = format == LowFormat::FP16 ? -14 : -126;
    const int subnormalExponent = format == LowFormat::FP16 ? -24 : -133;
    std::vector<float> values;
    for (float anchor : {std::ldexp(1.0f, subnormalExponent - 1), std::ldexp(1.0f, subnormalExponent),
                         std::ldexp(1.0f, minExponent) - std::ldexp(1.0f, subnormalExponent - 1),
                         std::ldexp(1.0f, minExponent)}) {
      float v = anchor;
      for (int i = 0; i < 64; ++i) v = std::nextafter(v, 0.0f);
      for (int i = 0; i < 128; ++i, v = std::nextafter(v, 1.0f)) {
        values.push_back(v);
        values.push_back(-v);
      }
    }
    std::mt19937 random(7);
    std::uniform_real_distribution<float> exponent(static_cast<float>(subnormalExponent - 4),
                                                   static_cast<float>(minExponent + 2));
    for (int i = 0; i < 20000; ++i) values.push_back(std::exp2(exponent(random)));
    ExponentHistogram h;
    accumulateHistogram(values.data(), static_cast<int64_t>(values.size()), 1.0f, format, h);
    int64_t subnormal = 0;
    int64_t underflow = 0;
    for (float v : values) {
      const float r = roundScalar(v, format);
      if (r == 0.0f) {
        ++underflow;
      } else if (std::fabs(r) < lowFormatMinNormal(format)) {
        ++subnormal;
      }
    }
    EXPECT_EQ(h.targetUnderflow, underflow) << lowFormatDtypeName(format);
    EXPECT_EQ(h.targetSubnormal, subnormal) << lowFormatDtypeName(format);
    EXPECT_GT(underflow, 0);
    EXPECT_GT(subnormal, 0);
  }
}

// The unscaled view multiplies by 1/scale in float32, as unscale_ does: with scale 2^16 every
// exponent moves down by 16.
TEST_P(ExponentHistogramBins, MultiplierShiftsExponentsByThePowerOfTwo) {
  const std::vector<float> values = {1.0f, 3.0f, 65536.0f};
  ExponentHistogram h;
  accumulateHistogram(values.data(), 3, 1.0f / 65536.0f, LowFormat::FP16, h);
  EXPECT_EQ(h.countAt(-16), 1);
  EXPECT_EQ(h.countAt(-15), 1);
  EXPECT_EQ(h.countAt(0), 1);
}

}  // namespace
}  // namespace ampscope::detail
