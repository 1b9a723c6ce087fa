// Every encoding of the small formats against the tables of their specs, independently of encode()'s
// arithmetic:
//   OCP 8-bit Floating Point Specification (OFP8) v1.0, section 5.1 and table 2 ("Special value
//   encodings and exponent/mantissa ranges"): E4M3 bias 7, max 448 = S.1111.110, min normal 2^-6,
//   min subnormal 2^-9, NaN S.1111.111, no infinity; E5M2 bias 15, max 57344 = S.11110.11, min normal
//   2^-14, min subnormal 2^-16, infinity S.11111.00, NaN S.11111.{01,10,11}.
//   OCP Microscaling Formats (MX) Specification v1.0, section 5.3.3 (FP4 E2M1: bias 1, values 0, 0.5, 1,
//   1.5, 2, 3, 4, 6, no infinity or NaN) and section 5.4.1 (E8M0: bias 127, 2^-127 .. 2^127, 0xFF is NaN,
//   no sign, no zero, no infinity).
// Per pattern: decode, classify, encode(decode(p)) == p (NaN keeps only its class; -0 encodes to -0),
// nextUp/nextDown against the sorted value list, and round-to-nearest-even at every midpoint.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ampscope/engine/number_format.h"

namespace ampscope {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Reference {
  double value;
  ValueClass cls;
};

// The spec's definition of each pattern, written from the tables above, not from number_format.cpp.
Reference referenceOf(DType dtype, unsigned p) {
  if (dtype == DType::E8M0) {
    if (p == 0xFF) return {kNaN, ValueClass::NaN};
    return {std::ldexp(1.0, static_cast<int>(p) - 127), ValueClass::Normal};
  }
  if (dtype == DType::FP4E2M1) {
    static const double kValues[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    const double v = kValues[p & 7];
    const ValueClass cls = (p & 7) == 0 ? ValueClass::Zero : (p & 7) == 1 ? ValueClass::Subnormal : ValueClass::Normal;
    return {(p & 8) != 0 ? -v : v, cls};
  }
  const bool e4m3 = dtype == DType::FP8E4M3FN;
  const int mBits = e4m3 ? 3 : 2;
  const int bias = e4m3 ? 7 : 15;
  const unsigned e = (p >> mBits) & (e4m3 ? 0xF : 0x1F);
  const unsigned m = p & ((1u << mBits) - 1);
  const double sign = (p & 0x80) != 0 ? -1.0 : 1.0;
  if (e4m3 && e == 0xF && m == 7) return {kNaN, ValueClass::NaN};
  if (!e4m3 && e == 0x1F) return m == 0 ? Reference{sign * kInf, ValueClass::Infinite} : Reference{kNaN, ValueClass::NaN};
  if (e == 0) {
    return {sign * std::ldexp(m, 1 - bias - mBits), m == 0 ? ValueClass::Zero : ValueClass::Subnormal};
  }
  return {sign * std::ldexp((1u << mBits) + m, static_cast<int>(e) - bias - mBits), ValueClass::Normal};
}

unsigned patternCount(DType dtype) { return dtype == DType::FP4E2M1 ? 16 : 256; }

const DType kSmallFormats[] = {DType::FP8E4M3FN, DType::FP8E5M2, DType::FP4E2M1, DType::E8M0};

TEST(NumberFormatExhaustive, EveryPatternDecodesAndClassifiesAsTheSpecSays) {
  for (const DType dtype : kSmallFormats) {
    SCOPED_TRACE(formatSpec(dtype).name);
    int nans = 0;
    for (unsigned p = 0; p < patternCount(dtype); ++p) {
      const Reference ref = referenceOf(dtype, p);
      EXPECT_EQ(classify(dtype, p), ref.cls) << "pattern " << p;
      const double value = decode(dtype, p);
      if (ref.cls == ValueClass::NaN) {
        EXPECT_TRUE(std::isnan(value)) << "pattern " << p;
        ++nans;
        continue;
      }
      EXPECT_EQ(value, ref.value) << "pattern " << p;
      EXPECT_EQ(std::signbit(value), std::signbit(ref.value)) << "pattern " << p;  // -0 keeps its sign
    }
    // OFP8 table 2: E4M3 has 2 NaN patterns (S.1111.111), E5M2 6 (S.11111.{01,10,11}); MX: E2M1 none,
    // E8M0 one (0xFF).
    const int expectedNaNs = dtype == DType::FP8E4M3FN ? 2 : dtype == DType::FP8E5M2 ? 6 : dtype == DType::E8M0 ? 1 : 0;
    EXPECT_EQ(nans, expectedNaNs);
  }
}

TEST(NumberFormatExhaustive, TheSpecsLimitsAreTheFinfoLimits) {
  // OFP8 table 2 and MX sections 5.3.3 / 5.4.1.
  EXPECT_EQ(finfo(DType::FP8E4M3FN).max, 448.0);
  EXPECT_EQ(finfo(DType::FP8E4M3FN).smallestNormal, std::ldexp(1.0, -6));
  EXPECT_EQ(finfo(DType::FP8E4M3FN).smallestSubnormal, std::ldexp(1.0, -9));
  EXPECT_EQ(finfo(DType::FP8E5M2).max, 57344.0);
  EXPECT_EQ(finfo(DType::FP8E5M2).smallestNormal, std::ldexp(1.0, -14));
  EXPECT_EQ(finfo(DType::FP8E5M2).smallestSubnormal, std::ldexp(1.0, -16));
  EXPECT_EQ(infinityBits(DType::FP8E5M2), 0x7Cu);  // S.11111.00
  const FInfo fp4 = finfo(DType::FP4E2M1);
  EXPECT_EQ(fp4.max, 6.0);
  EXPECT_EQ(fp4.lowest, -6.0);
  EXPECT_EQ(fp4.smallestNormal, 1.0);      // 2^(1-1)
  EXPECT_EQ(fp4.smallestSubnormal, 0.5);   // 0.1b * 2^0
  EXPECT_EQ(fp4.eps, 0.5);                 // 1 -> 1.5
  EXPECT_EQ(maxFiniteBits(DType::FP4E2M1), 0x7u);
  EXPECT_EQ(infinityBits(DType::FP4E2M1, true), 0xFu);  // no infinity: the largest finite value, -6
  EXPECT_THROW(quietNaNBits(DType::FP4E2M1), std::invalid_argument);
  const FInfo e8m0 = finfo(DType::E8M0);
  EXPECT_EQ(e8m0.max, std::ldexp(1.0, 127));
  EXPECT_EQ(e8m0.lowest, std::ldexp(1.0, -127));  // no sign: the smallest value
  EXPECT_EQ(e8m0.smallestNormal, std::ldexp(1.0, -127));
  EXPECT_EQ(e8m0.eps, 1.0);  // 1 -> 2
  EXPECT_EQ(maxFiniteBits(DType::E8M0), 0xFEu);
  EXPECT_EQ(quietNaNBits(DType::E8M0), 0xFFu);
  EXPECT_THROW(compose(DType::E8M0, true, 127, 0), std::invalid_argument);
  EXPECT_EQ(formatBitsBinary(DType::E8M0, 0x7F), "01111111");
  EXPECT_EQ(formatBitsBinary(DType::FP4E2M1, 0xB), "1 01 1");
  EXPECT_EQ(formatBitsHex(DType::FP4E2M1, 0xB), "0xb");
}

TEST(NumberFormatExhaustive, EncodingADecodedPatternGivesItBack) {
  for (const DType dtype : kSmallFormats) {
    SCOPED_TRACE(formatSpec(dtype).name);
    for (unsigned p = 0; p < patternCount(dtype); ++p) {
      const double value = decode(dtype, p);
      if (std::isnan(value)) {
        // A NaN's payload does not survive the trip through double; its class and sign do.
        EXPECT_EQ(classify(dtype, encode(dtype, value)), ValueClass::NaN) << "pattern " << p;
        continue;
      }
      EXPECT_EQ(encode(dtype, value), p) << "pattern " << p;              // -0 included
      if (!std::isinf(value)) {
        EXPECT_EQ(encodeSaturating(dtype, value), p) << "pattern " << p;
      }
      EXPECT_EQ(roundValue(dtype, value).absError, 0.0) << "pattern " << p;
    }
  }
}

// The distinct non-NaN values, ascending (the two zeros count once).
std::vector<double> sortedValues(DType dtype) {
  std::vector<double> values;
  for (unsigned p = 0; p < patternCount(dtype); ++p) {
    const Reference ref = referenceOf(dtype, p);
    if (ref.cls != ValueClass::NaN && !(ref.value == 0 && std::signbit(ref.value))) values.push_back(ref.value);
  }
  std::sort(values.begin(), values.end());
  return values;
}

TEST(NumberFormatExhaustive, NextUpAndNextDownStepThroughTheSortedValues) {
  for (const DType dtype : kSmallFormats) {
    SCOPED_TRACE(formatSpec(dtype).name);
    const std::vector<double> values = sortedValues(dtype);
    const std::size_t expectedCount = dtype == DType::FP8E4M3FN ? 253  // 256 - 2 NaN - one zero
                                      : dtype == DType::FP8E5M2 ? 249  // 256 - 6 NaN - one zero
                                      : dtype == DType::FP4E2M1 ? 15 : 255;
    EXPECT_EQ(values.size(), expectedCount);
    for (unsigned p = 0; p < patternCount(dtype); ++p) {
      const double v = decode(dtype, p);
      if (std::isnan(v)) {
        EXPECT_EQ(nextUp(dtype, p), p);
        EXPECT_EQ(nextDown(dtype, p), p);
        continue;
      }
      const auto at = std::find(values.begin(), values.end(), v);
      ASSERT_NE(at, values.end());
      const double above = at + 1 == values.end() ? v : *(at + 1);  // the top (max or inf) stays
      const double below = at == values.begin() ? v : *(at - 1);
      EXPECT_EQ(decode(dtype, nextUp(dtype, p)), above) << "pattern " << p;
      EXPECT_EQ(decode(dtype, nextDown(dtype, p)), below) << "pattern " << p;
    }
  }
}

TEST(NumberFormatExhaustive, EveryMidpointRoundsToEvenAndEverythingElseToTheNearest) {
  for (const DType dtype : kSmallFormats) {
    SCOPED_TRACE(formatSpec(dtype).name);
    const std::vector<double> values = sortedValues(dtype);
    int ties = 0;
    for (std::size_t i = 0; i + 1 < values.size(); ++i) {
      const double a = values[i];
      const double b = values[i + 1];
      if (std::isinf(a) || std::isinf(b)) continue;  // the overflow threshold: the next test
      const double mid = (a + b) / 2;                 // exact: a and b are short binary fractions
      const uint64_t pa = encode(dtype, a);
      const uint64_t pb = encode(dtype, b);
      // The even one has a zero mantissa LSB (IEEE 754-2019 4.3.1 roundTiesToEven). E8M0 has no mantissa:
      // every value's significand is the implied 1, odd, and a tie rounds up (see number_format.h).
      uint64_t even = (decompose(dtype, pa).mantissaField & 1) == 0 ? pa : pb;
      if (dtype == DType::E8M0) even = pb;
      // Values, not patterns: a negative input rounding to zero gives -0, a positive one +0.
      auto rounded = [&](double x) {
        const double r = decode(dtype, encode(dtype, x));
        EXPECT_EQ(std::signbit(r), std::signbit(x)) << x;
        return r;
      };
      EXPECT_EQ(rounded(mid), decode(dtype, even)) << "tie between " << a << " and " << b;
      EXPECT_EQ(rounded(std::nextafter(mid, a)), a) << "just below " << mid;
      EXPECT_EQ(rounded(std::nextafter(mid, b)), b) << "just above " << mid;
      ++ties;
    }
    EXPECT_GT(ties, 13);
  }
}

TEST(NumberFormatExhaustive, OverflowIsNaNInfOrSaturationAsEachSpecSays) {
  // E4M3: the tie between 448 (S.1111.110, even) and 480 (would be S.1111.111, NaN) is 464: it stays
  // 448; above it non-saturating conversion is NaN (OFP8 section 5.1: E4M3 has no infinity), saturating
  // is 448.
  EXPECT_EQ(encode(DType::FP8E4M3FN, 464.0), 0x7Eu);
  EXPECT_EQ(encode(DType::FP8E4M3FN, std::nextafter(464.0, kInf)), 0x7Fu);
  EXPECT_EQ(encodeSaturating(DType::FP8E4M3FN, 1e9), 0x7Eu);
  EXPECT_EQ(encodeSaturating(DType::FP8E4M3FN, -kInf), 0xFEu);
  // E5M2: max 57344 = 1.11b * 2^15 (odd); the tie 61440 rounds to the even 65536, beyond max: inf.
  EXPECT_EQ(encode(DType::FP8E5M2, std::nextafter(61440.0, 0.0)), 0x7Bu);
  EXPECT_EQ(encode(DType::FP8E5M2, 61440.0), 0x7Cu);
  EXPECT_EQ(encodeSaturating(DType::FP8E5M2, 61440.0), 0x7Bu);
  EXPECT_EQ(encodeSaturating(DType::FP8E5M2, -kInf), 0xFBu);
  // E2M1: the MX spec defines no overflow encoding; every value beyond 6, infinities included, is 6.
  for (const double x : {6.5, 7.0, 8.0, 1e300, kInf}) {
    EXPECT_EQ(encode(DType::FP4E2M1, x), 0x7u) << x;
    EXPECT_EQ(encode(DType::FP4E2M1, -x), 0xFu) << x;
    EXPECT_EQ(encodeSaturating(DType::FP4E2M1, x), 0x7u) << x;
  }
  const RoundingResult r = roundValue(DType::FP4E2M1, 7.0);
  EXPECT_TRUE(r.saturated);
  EXPECT_FALSE(r.overflowed);
  EXPECT_EQ(r.stored, 6.0);
  EXPECT_FALSE(roundValue(DType::FP4E2M1, 6.4).saturated);  // rounds to 6, inside the range
  // The results the panel and `convert` show side by side.
  const RoundingResult e4 = roundValue(DType::FP8E4M3FN, 1000.0);
  const RoundingResult e4s = roundValueSaturating(DType::FP8E4M3FN, 1000.0);
  EXPECT_TRUE(e4.overflowed);
  EXPECT_EQ(e4.cls, ValueClass::NaN);
  EXPECT_TRUE(e4s.saturated);
  EXPECT_EQ(e4s.stored, 448.0);
  EXPECT_EQ(e4s.absError, 552.0);
  const RoundingResult e5s = roundValueSaturating(DType::FP8E5M2, 1e5);
  EXPECT_EQ(roundValue(DType::FP8E5M2, 1e5).stored, kInf);
  EXPECT_EQ(e5s.stored, 57344.0);
  EXPECT_TRUE(e5s.saturated);
}

TEST(NumberFormatExhaustive, E2M1HasNoNaNToGive) {
  const RoundingResult r = roundValue(DType::FP4E2M1, -kNaN);
  EXPECT_TRUE(r.noEncoding);
  EXPECT_EQ(r.bits, 0x8u);  // -0: the NaN's sign, the only thing left
  EXPECT_TRUE(std::isnan(r.absError));
  EXPECT_FALSE(roundValue(DType::FP8E4M3FN, kNaN).noEncoding);
}

TEST(NumberFormatExhaustive, E8M0RoundsToTheNearestPowerOfTwoAndHasNoZeroOrSign) {
  EXPECT_EQ(encode(DType::E8M0, 1.0), 127u);
  EXPECT_EQ(encode(DType::E8M0, 1.4999), 127u);
  EXPECT_EQ(encode(DType::E8M0, 1.5), 128u);  // the tie rounds up
  EXPECT_EQ(encode(DType::E8M0, 2.9), 128u);
  EXPECT_EQ(encode(DType::E8M0, 3.0), 129u);
  EXPECT_EQ(encode(DType::E8M0, std::ldexp(1.0, -200)), 0u);  // nothing below 2^-127
  EXPECT_EQ(encode(DType::E8M0, std::numeric_limits<double>::denorm_min()), 0u);
  EXPECT_EQ(encode(DType::E8M0, std::ldexp(1.0, 127)), 0xFEu);
  EXPECT_EQ(encode(DType::E8M0, std::ldexp(1.5, 127)), 0xFFu);  // overflow: NaN
  EXPECT_EQ(encodeSaturating(DType::E8M0, std::ldexp(1.5, 127)), 0xFEu);
  EXPECT_EQ(encode(DType::E8M0, kInf), 0xFFu);
  EXPECT_EQ(encodeSaturating(DType::E8M0, kInf), 0xFEu);
  EXPECT_TRUE(roundValue(DType::E8M0, std::ldexp(1.5, 127)).overflowed);
  for (const double x : {0.0, -0.0, -4.0, -kInf}) {
    const RoundingResult r = roundValue(DType::E8M0, x);
    EXPECT_EQ(r.bits, 0xFFu) << x;
    EXPECT_TRUE(r.noEncoding) << x;
    EXPECT_FALSE(r.overflowed) << x;
  }
  EXPECT_FALSE(roundValue(DType::E8M0, kNaN).noEncoding);  // NaN has its encoding, 0xFF
  EXPECT_EQ(ulp(DType::E8M0, 1.0), 1.0);
  EXPECT_EQ(ulp(DType::E8M0, 0.0), std::ldexp(1.0, -127));
  // The MX spec's scale rule (section 6.3): 2^floor(log2(amax)).
  EXPECT_EQ(e8m0FloorBits(1.99), 127u);
  EXPECT_EQ(e8m0FloorBits(0.75), 126u);
  EXPECT_EQ(e8m0FloorBits(48.0), 132u);
  EXPECT_EQ(e8m0FloorBits(std::ldexp(1.0, -140)), 0u);
  EXPECT_EQ(e8m0FloorBits(1e300), 0xFEu);
  EXPECT_EQ(e8m0FloorBits(0.0), 0xFFu);
  EXPECT_EQ(e8m0FloorBits(-1.0), 0xFFu);
}

TEST(NumberFormatExhaustive, NamesIncludePyTorchs) {
  EXPECT_EQ(parseDType("float4_e2m1fn_x2"), DType::FP4E2M1);
  EXPECT_EQ(parseDType("fp4"), DType::FP4E2M1);
  EXPECT_EQ(parseDType("E2M1"), DType::FP4E2M1);
  EXPECT_EQ(parseDType("float8_e8m0fnu"), DType::E8M0);
  EXPECT_EQ(parseDType("e8m0"), DType::E8M0);
  EXPECT_EQ(formatSpec(DType::FP4E2M1).torchName, "float4_e2m1fn_x2");
  EXPECT_EQ(formatSpec(DType::E8M0).torchName, "float8_e8m0fnu");
  EXPECT_FALSE(parseDType("fp6").has_value());
}

TEST(NumberFormatExhaustive, Fp4TakesHalfAByteAndAnOddCountAWholeLastByte) {
  auto bytesOf = [](long double elements) {
    for (const MemoryFootprint& row : memoryFootprints(elements)) {
      if (row.dtype == DType::FP4E2M1) return row.bytes;
    }
    return -1.0L;
  };
  EXPECT_EQ(bytesOf(1e9L), 5e8L);
  EXPECT_EQ(bytesOf(3), 2.0L);  // float4_e2m1fn_x2: two elements per byte
  EXPECT_EQ(bytesOf(0), 0.0L);
}

// PyTorch converts a Python float to float16/bfloat16 through float32 (checked against torch 1.13 by
// tests/engine/pytorch_double_rounding_test.py); these are the double-rounding cases.
TEST(NumberFormatPyTorch, DoubleRoundingThroughFloat32) {
  const PyTorchConversion overflow = pytorchConversion(DType::FP16, 65519.99999);
  EXPECT_EQ(roundTo(DType::FP16, 65519.99999), 65504.0);  // IEEE from the double
  EXPECT_TRUE(overflow.differs);
  EXPECT_EQ(overflow.viaFloat32, 65520.0);
  EXPECT_EQ(overflow.stored, kInf);
  EXPECT_EQ(overflow.reason,
            "PyTorch rounds to float32 first: 65519.99999 -> 65520 (float32) -> inf (ties to even at the "
            "overflow threshold)");
  const double tiny = std::ldexp(1.0 + std::ldexp(1.0, -40), -25);
  EXPECT_EQ(roundTo(DType::FP16, tiny), std::ldexp(1.0, -24));
  const PyTorchConversion flushed = pytorchConversion(DType::FP16, tiny);
  EXPECT_EQ(flushed.stored, 0.0);
  EXPECT_NE(flushed.reason.find("a tie there, broken to even"), std::string::npos) << flushed.reason;
  const double bf = 1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(roundTo(DType::BF16, bf), 1 + std::ldexp(1.0, -7));
  EXPECT_EQ(pytorchConversion(DType::BF16, bf).stored, 1.0);
  // No difference, no reason.
  const PyTorchConversion same = pytorchConversion(DType::FP16, 0.1);
  EXPECT_TRUE(same.available);
  EXPECT_FALSE(same.differs);
  EXPECT_TRUE(same.reason.empty());
  EXPECT_FALSE(pytorchConversion(DType::FP16, kNaN).differs);  // NaN is NaN
  EXPECT_FALSE(pytorchConversion(DType::TF32, 1.0).available);
  EXPECT_FALSE(pytorchConversion(DType::FP4E2M1, 1.0).available);
  // FP8 goes through float32 too (c10's float8 types are built from a float): 464 + 2^-30 is beyond
  // E4M3's tie at 464 as a double, exactly the tie as a float32.
  const double e4 = 464.0 + std::ldexp(1.0, -30);
  EXPECT_EQ(classify(DType::FP8E4M3FN, encode(DType::FP8E4M3FN, e4)), ValueClass::NaN);
  EXPECT_EQ(pytorchConversion(DType::FP8E4M3FN, e4).stored, 448.0);
}

TEST(NumberFormatPyTorch, E8M0CastDropsTheSignAndMapsZeroToTheSmallestScale) {
  const PyTorchConversion negative = pytorchConversion(DType::E8M0, -4.0);
  EXPECT_TRUE(negative.differs);
  EXPECT_EQ(negative.stored, 4.0);
  EXPECT_EQ(negative.reason, "PyTorch's float8_e8m0fnu cast drops the sign: -4 -> 4 (E8M0 has no sign)");
  EXPECT_EQ(pytorchConversion(DType::E8M0, 0.0).stored, std::ldexp(1.0, -127));
  EXPECT_FALSE(pytorchConversion(DType::E8M0, 1.5).differs);  // both round the tie up: 2
  EXPECT_EQ(pytorchConversion(DType::E8M0, 1.5).stored, 2.0);
  EXPECT_EQ(pytorchConversion(DType::E8M0, kInf).bits, 0xFFu);
}

}  // namespace
}  // namespace ampscope
