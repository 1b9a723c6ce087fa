// Number formats without LibTorch: the layouts (IEEE-754 2019 §3.6, OCP 8-bit FP spec v1.0), the
// chapter's printed tables (its sections 1, 2 and 5), rounding rules, neighbours and parsing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "ampscope/engine/number_format.h"

namespace ampscope {
namespace {

std::string sci(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

uint64_t bitsOfDouble(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

uint32_t bitsOfFloat(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(NumberFormat, LayoutsMatchTheChapterIeeeAndOcp) {
  struct Row {
    DType dtype;
    int total, exponent, mantissa, bias, storageBits;
    bool inf;
  };
  // FP64/FP32/FP16/BF16 widths from the chapter's table (section 1); TF32 1/8/10 (NVIDIA);
  // E4M3FN / E5M2 from the OCP spec; E2M1 (bias 1) and E8M0 (no sign, bias 127) from the OCP MX spec
  // v1.0, section 5.3; bias 2^(E-1)-1 throughout. FP4 occupies half a byte (two elements per byte).
  const Row rows[] = {{DType::FP64, 64, 11, 52, 1023, 64, true}, {DType::FP32, 32, 8, 23, 127, 32, true},
                      {DType::TF32, 19, 8, 10, 127, 32, true},   {DType::FP16, 16, 5, 10, 15, 16, true},
                      {DType::BF16, 16, 8, 7, 127, 16, true},    {DType::FP8E4M3FN, 8, 4, 3, 7, 8, false},
                      {DType::FP8E5M2, 8, 5, 2, 15, 8, true},    {DType::FP4E2M1, 4, 2, 1, 1, 4, false},
                      {DType::E8M0, 8, 8, 0, 127, 8, false}};
  ASSERT_EQ(allDTypes().size(), std::size(rows));
  for (const Row& row : rows) {
    const FormatSpec& spec = formatSpec(row.dtype);
    SCOPED_TRACE(spec.name);
    EXPECT_EQ(spec.totalBits, row.total);
    EXPECT_EQ(spec.exponentBits, row.exponent);
    EXPECT_EQ(spec.mantissaBits, row.mantissa);
    EXPECT_EQ(spec.bias, row.bias);
    EXPECT_EQ(spec.storageBits, row.storageBits);
    EXPECT_EQ(spec.hasInfinity, row.inf);
  }
}

TEST(NumberFormat, FinfoReproducesTheChaptersTorchFinfoTable) {
  // The chapter, section 1: torch.finfo min / max / eps printed with %e.
  struct Row {
    DType dtype;
    const char *min, *max, *eps;
  };
  const Row rows[] = {{DType::FP64, "-1.797693e+308", "1.797693e+308", "2.220446e-16"},
                      {DType::FP32, "-3.402823e+38", "3.402823e+38", "1.192093e-07"},
                      {DType::FP16, "-6.550400e+04", "6.550400e+04", "9.765625e-04"},
                      {DType::BF16, "-3.389531e+38", "3.389531e+38", "7.812500e-03"}};
  for (const Row& row : rows) {
    const FInfo info = finfo(row.dtype);
    SCOPED_TRACE(formatSpec(row.dtype).name);
    EXPECT_EQ(sci("%e", info.lowest), row.min);
    EXPECT_EQ(sci("%e", info.max), row.max);
    EXPECT_EQ(sci("%e", info.eps), row.eps);
  }
  // Exact values behind the printed ones.
  EXPECT_EQ(finfo(DType::FP64).max, std::numeric_limits<double>::max());
  EXPECT_EQ(finfo(DType::FP32).max, static_cast<double>(std::numeric_limits<float>::max()));
  EXPECT_EQ(finfo(DType::FP16).max, 65504.0);
  EXPECT_EQ(finfo(DType::BF16).max, std::ldexp(255.0, 120));  // 1.1111111b * 2^127
}

TEST(NumberFormat, FinfoTinyAndSmallestSubnormalMatchIeee754) {
  // torch.finfo's tiny and the smallest subnormal, which the chapter does not print: IEEE 754-2019
  // gives 2^(1-bias) and 2^(1-bias-mantissa_bits), shown with %e.
  EXPECT_EQ(sci("%e", finfo(DType::FP16).smallestNormal), "6.103516e-05");
  EXPECT_EQ(sci("%e", finfo(DType::FP16).smallestSubnormal), "5.960464e-08");
  EXPECT_EQ(sci("%e", finfo(DType::BF16).smallestNormal), "1.175494e-38");
  EXPECT_EQ(sci("%e", finfo(DType::BF16).smallestSubnormal), "9.183550e-41");
  // IEEE-754: 2^emin and 2^(emin - M).
  EXPECT_EQ(finfo(DType::FP16).smallestSubnormal, std::ldexp(1.0, -24));
  EXPECT_EQ(finfo(DType::BF16).smallestSubnormal, std::ldexp(1.0, -133));
  EXPECT_EQ(finfo(DType::FP32).smallestSubnormal,
            static_cast<double>(std::numeric_limits<float>::denorm_min()));
  EXPECT_EQ(finfo(DType::FP64).smallestSubnormal, std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(finfo(DType::FP64).smallestNormal, std::numeric_limits<double>::min());
  // torch.finfo(...).precision: 15, 6, 3, 2 for float64/32/16/bfloat16.
  EXPECT_EQ(finfo(DType::FP64).decimalDigits, 15);
  EXPECT_EQ(finfo(DType::FP32).decimalDigits, 6);
  EXPECT_EQ(finfo(DType::FP16).decimalDigits, 3);
  EXPECT_EQ(finfo(DType::BF16).decimalDigits, 2);
  EXPECT_EQ(finfo(DType::FP16).resolution, 1e-3);
}

TEST(NumberFormat, Fp8MatchesTheOcpSpecValues) {
  // OCP 8-bit Floating Point Specification (OFP8) v1.0, table 1.
  const FInfo e4m3 = finfo(DType::FP8E4M3FN);
  EXPECT_EQ(e4m3.max, 448.0);
  EXPECT_EQ(e4m3.smallestNormal, std::ldexp(1.0, -6));
  EXPECT_EQ(e4m3.smallestSubnormal, std::ldexp(1.0, -9));
  EXPECT_EQ(maxFiniteBits(DType::FP8E4M3FN), 0x7Eu);                // S.1111.110
  EXPECT_EQ(quietNaNBits(DType::FP8E4M3FN), 0x7Fu);                 // S.1111.111, the only NaN
  EXPECT_EQ(classify(DType::FP8E4M3FN, 0x78), ValueClass::Normal);  // exponent all ones is normal: 256
  EXPECT_EQ(decode(DType::FP8E4M3FN, 0x78), 256.0);
  EXPECT_EQ(classify(DType::FP8E4M3FN, 0xFF), ValueClass::NaN);

  const FInfo e5m2 = finfo(DType::FP8E5M2);
  EXPECT_EQ(e5m2.max, 57344.0);
  EXPECT_EQ(e5m2.smallestNormal, std::ldexp(1.0, -14));
  EXPECT_EQ(e5m2.smallestSubnormal, std::ldexp(1.0, -16));
  EXPECT_EQ(infinityBits(DType::FP8E5M2), 0x7Cu);
  EXPECT_EQ(classify(DType::FP8E5M2, 0x7D), ValueClass::NaN);
}

TEST(NumberFormat, E4m3fnOverflowsToNanAndSaturatesOnRequest) {
  // E4M3FN has no infinity (OCP): out of range is NaN; 464 is the tie between 448 (mantissa 110, even)
  // and 480 (111, the NaN pattern), so RNE keeps 448 and anything above 464 becomes NaN.
  EXPECT_EQ(encode(DType::FP8E4M3FN, 464.0), 0x7Eu);
  EXPECT_EQ(encode(DType::FP8E4M3FN, 464.0001), 0x7Fu);
  EXPECT_EQ(encode(DType::FP8E4M3FN, -1e6), 0xFFu);
  EXPECT_EQ(encode(DType::FP8E4M3FN, kInf), 0x7Fu);
  EXPECT_EQ(encodeSaturating(DType::FP8E4M3FN, 1e6), 0x7Eu);
  EXPECT_EQ(encodeSaturating(DType::FP8E4M3FN, -kInf), 0xFEu);
  EXPECT_EQ(classify(DType::FP8E4M3FN, encodeSaturating(DType::FP8E4M3FN, kNaN)), ValueClass::NaN);
  const RoundingResult r = roundValue(DType::FP8E4M3FN, 500.0);
  EXPECT_TRUE(r.overflowed);
  EXPECT_EQ(r.cls, ValueClass::NaN);
}

TEST(NumberFormat, E5m2OverflowsToInfinityLikeIeee) {
  // 61440 = 57344 + half an ulp (4096): tie between mantissa 11 (odd) and 2^16, so it rounds up and
  // overflows.
  EXPECT_EQ(encode(DType::FP8E5M2, 61439.0), 0x7Bu);
  EXPECT_EQ(encode(DType::FP8E5M2, 61440.0), 0x7Cu);
  EXPECT_EQ(encodeSaturating(DType::FP8E5M2, 61440.0), 0x7Bu);
}

TEST(NumberFormat, Fp8EveryPatternDecodesAndReencodesToItself) {
  int checked = 0;
  for (const DType dtype : {DType::FP8E4M3FN, DType::FP8E5M2}) {
    for (uint64_t bits = 0; bits < 256; ++bits) {
      const double value = decode(dtype, bits);
      if (classify(dtype, bits) == ValueClass::NaN) {
        EXPECT_TRUE(std::isnan(value));
        EXPECT_EQ(classify(dtype, encode(dtype, value)), ValueClass::NaN);
      } else {
        EXPECT_EQ(encode(dtype, value), bits) << formatSpec(dtype).name << " " << bits;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 512);
}

TEST(NumberFormat, TiesRoundToEvenInNormalAndSubnormalRanges) {
  // FP16 ulp at 1 is 2^-10: 1 + 2^-11 lies halfway between 1 (mantissa 0, even) and 1 + 2^-10 (odd).
  EXPECT_EQ(encode(DType::FP16, 1.0 + std::ldexp(1.0, -11)), 0x3C00u);
  // 1 + 3*2^-11 lies between mantissa 1 (odd) and 2 (even): up.
  EXPECT_EQ(encode(DType::FP16, 1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02u);
  // Subnormal ties: half the smallest subnormal goes to 0, 1.5 of it to 2 (even), 2.5 of it to 2.
  EXPECT_EQ(encode(DType::FP16, std::ldexp(1.0, -25)), 0x0000u);
  EXPECT_EQ(encode(DType::FP16, std::ldexp(3.0, -25)), 0x0002u);
  EXPECT_EQ(encode(DType::FP16, std::ldexp(5.0, -25)), 0x0002u);
  EXPECT_EQ(encode(DType::FP16, -std::ldexp(1.0, -25)), 0x8000u);  // the sign survives underflow
  // Just above a tie always goes up.
  EXPECT_EQ(encode(DType::FP16, std::nextafter(std::ldexp(1.0, -25), 1.0)), 0x0001u);
  // The largest subnormal rounds up into the smallest normal.
  EXPECT_EQ(encode(DType::FP16, std::ldexp(2047.0, -25)), 0x0400u);
  // Overflow: 65520 is the tie between 65504 (mantissa all ones, odd) and 2^16: up, so inf (IEEE 7.4).
  EXPECT_EQ(encode(DType::FP16, 65519.99), 0x7BFFu);
  EXPECT_EQ(encode(DType::FP16, 65520.0), 0x7C00u);
  EXPECT_EQ(encode(DType::FP16, -65520.0), 0xFC00u);
  // BF16: ulp at 1 is 2^-7.
  EXPECT_EQ(encode(DType::BF16, 1.0 + std::ldexp(1.0, -8)), 0x3F80u);
  EXPECT_EQ(encode(DType::BF16, 1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82u);
  // TF32 rounds like FP16's mantissa on FP32's exponent.
  EXPECT_EQ(roundTo(DType::TF32, 1.0 + std::ldexp(1.0, -11)), 1.0);
  EXPECT_EQ(roundTo(DType::TF32, 1e30), roundTo(DType::TF32, roundTo(DType::TF32, 1e30)));
}

TEST(NumberFormat, DirectDoubleRoundingBeatsRoundingTwice) {
  // x = 1 + 2^-11 + 2^-40 is just above the FP16 tie 1 + 2^-11, so its correct FP16 rounding is up,
  // 1 + 2^-10 (0x3C01). Rounding to float first drops the 2^-40 (float keeps 23 fraction bits) and
  // lands exactly on the tie, which then goes to even: 1.0 (0x3C00). LibTorch's double -> half takes
  // that float detour; encode() does not.
  const double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(encode(DType::FP16, x), 0x3C01u);
  const float viaFloat = static_cast<float>(x);
  EXPECT_EQ(static_cast<double>(viaFloat), 1.0 + std::ldexp(1.0, -11));
  EXPECT_EQ(encode(DType::FP16, viaFloat), 0x3C00u);
  // The same for BF16 with its tie at 1 + 2^-8.
  const double y = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(encode(DType::BF16, y), 0x3F81u);
  EXPECT_EQ(encode(DType::BF16, static_cast<float>(y)), 0x3F80u);
}

TEST(NumberFormat, Fp64AndFp32AgreeWithTheHardware) {
  // The host's double -> float conversion is IEEE RNE in hardware: an independent reference for the
  // generic code at FP32's widths. FP64 must be the identity on bits (NaNs come back quiet).
  std::mt19937_64 rng(20240501);
  std::uniform_int_distribution<uint64_t> anyBits;
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint64_t raw = anyBits(rng);
    double x;
    std::memcpy(&x, &raw, sizeof x);
    if (std::isnan(x)) {
      EXPECT_EQ(classify(DType::FP64, encode(DType::FP64, x)), ValueClass::NaN);  // quietened
    } else {
      EXPECT_EQ(encode(DType::FP64, x), raw);
    }
    // Bring most samples into and around FP32's range, subnormals and overflow included.
    int unusedExponent = 0;
    const double scaled =
        std::isfinite(x) ? std::ldexp(std::frexp(x, &unusedExponent), static_cast<int>(raw % 300) - 160) : x;
    const float f = static_cast<float>(scaled);
    if (std::isnan(f)) {
      EXPECT_EQ(classify(DType::FP32, encode(DType::FP32, scaled)), ValueClass::NaN);
    } else {
      ASSERT_EQ(encode(DType::FP32, scaled), bitsOfFloat(f)) << std::hexfloat << scaled;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 200000);
}

TEST(NumberFormat, RandomDoublesRoundToTheNearestNeighbourTiesToEven) {
  // A check independent of encode()'s arithmetic: the result r must be at least as close to x as its
  // two neighbours, and on a tie the mantissa must be even (IEEE-754 roundTiesToEven).
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-150, 140);
  int checked = 0;
  for (const DType dtype : allDTypes()) {
    // E2M1 saturates and E8M0 has no sign: number_format_mx_test.cpp checks every value of both.
    if (dtype == DType::FP64 || dtype == DType::FP4E2M1 || dtype == DType::E8M0) continue;
    for (int i = 0; i < 50000; ++i) {
      const double x = std::ldexp(unit(rng), exponent(rng)) * ((i & 1) != 0 ? -1 : 1);
      const uint64_t r = encode(dtype, x);
      const ValueClass cls = classify(dtype, r);
      ++checked;
      if (cls == ValueClass::Infinite || cls == ValueClass::NaN) {
        EXPECT_GE(std::fabs(x), finfo(dtype).max) << formatSpec(dtype).name << " " << x;
        continue;
      }
      const double stored = decode(dtype, r);
      const double error = std::fabs(stored - x);
      for (const uint64_t neighbour : {nextUp(dtype, r), nextDown(dtype, r)}) {
        const double other = decode(dtype, neighbour);
        if (!std::isfinite(other)) continue;
        const double otherError = std::fabs(other - x);
        ASSERT_LE(error, otherError) << formatSpec(dtype).name << " " << std::hexfloat << x;
        if (error == otherError) {
          ASSERT_EQ(decompose(dtype, r).mantissaField & 1, 0u) << formatSpec(dtype).name << " tie " << x;
        }
      }
    }
  }
  EXPECT_EQ(checked, 6 * 50000);
}

TEST(NumberFormat, ChaptersUnderflowTableFp16FlushesBf16Keeps) {
  // The chapter, section 5: the FP32 tensor [1e-2, 1e-4, 1e-6, 1e-7, 1e-8, 1e-9] cast to FP16 and BF16, %.4e.
  const float inputs[] = {1e-2f, 1e-4f, 1e-6f, 1e-7f, 1e-8f, 1e-9f};
  const char* fp16[] = {"1.0002e-02", "1.0002e-04", "1.0133e-06", "1.1921e-07", "0.0000e+00", "0.0000e+00"};
  const char* bf16[] = {"1.0010e-02", "1.0014e-04", "9.9838e-07", "1.0012e-07", "1.0012e-08", "9.9681e-10"};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(sci("%.4e", roundTo(DType::FP16, inputs[i])), fp16[i]);
    EXPECT_EQ(sci("%.4e", roundTo(DType::BF16, inputs[i])), bf16[i]);
  }
  EXPECT_TRUE(roundValue(DType::FP16, 1e-8).flushedToZero);
  EXPECT_TRUE(roundValue(DType::FP16, 1e-7).becameSubnormal);
  EXPECT_FALSE(roundValue(DType::BF16, 1e-8).flushedToZero);
  EXPECT_EQ(roundValue(DType::FP16, 1e-8).relError, 1.0);
}

TEST(NumberFormat, MemoryOfABillionElementsMatchesTheChapter) {
  // The chapter, section 2: 1e9 elements, GiB = bytes / 2^30.
  const auto rows = memoryFootprints(1e9L);
  ASSERT_EQ(rows.size(), allDTypes().size());
  auto gib = [&](DType dtype) {
    for (const auto& row : rows) {
      if (row.dtype == dtype) return sci("%.4f", row.gib);
    }
    return std::string("missing");
  };
  EXPECT_EQ(gib(DType::FP64), "7.4506");
  EXPECT_EQ(gib(DType::FP32), "3.7253");
  EXPECT_EQ(gib(DType::FP16), "1.8626");
  EXPECT_EQ(gib(DType::BF16), "1.8626");
  EXPECT_EQ(gib(DType::FP8E4M3FN), "0.9313");
  EXPECT_EQ(rows.front().bytes, 8e9L);
  EXPECT_THROW(memoryFootprints(-1), std::invalid_argument);
}

TEST(NumberFormat, NextUpAndNextDownCrossZeroInfinityAndSubnormals) {
  const DType h = DType::FP16;
  EXPECT_EQ(nextUp(h, 0x0000), 0x0001u);    // +0 -> smallest subnormal
  EXPECT_EQ(nextUp(h, 0x8000), 0x0001u);    // -0 -> smallest subnormal
  EXPECT_EQ(nextDown(h, 0x0000), 0x8001u);  // +0 -> -smallest subnormal
  EXPECT_EQ(nextUp(h, 0x8001), 0x8000u);    // -smallest subnormal -> -0
  EXPECT_EQ(nextUp(h, 0x03FF), 0x0400u);    // largest subnormal -> smallest normal
  EXPECT_EQ(nextUp(h, 0x7BFF), 0x7C00u);    // max -> inf
  EXPECT_EQ(nextUp(h, 0x7C00), 0x7C00u);    // inf stays
  EXPECT_EQ(nextDown(h, 0x7C00), 0x7BFFu);  // inf -> max
  EXPECT_EQ(nextUp(h, 0xFC00), 0xFBFFu);    // -inf -> lowest
  EXPECT_EQ(nextDown(h, 0xFBFF), 0xFC00u);  // lowest -> -inf
  EXPECT_EQ(nextUp(h, 0x7E00), 0x7E00u);    // NaN stays
  EXPECT_EQ(decode(h, nextUp(h, 0x3C00)) - 1.0, finfo(h).eps);
  EXPECT_EQ(nextUp(DType::FP8E4M3FN, 0x7E), 0x7Eu);  // no infinity above 448
  EXPECT_EQ(nextDown(DType::FP8E4M3FN, 0xFE), 0xFEu);
  // Walking every FP16 encoding upward from -inf visits each non-NaN value once, in increasing order.
  uint64_t bits = 0xFC00;
  int steps = 0;
  double previous = -kInf;
  while (bits != 0x7C00) {
    bits = nextUp(h, bits);
    const double value = decode(h, bits);
    ASSERT_TRUE(value > previous || (value == 0 && previous == 0)) << std::hex << bits;
    previous = value;
    ++steps;
  }
  EXPECT_EQ(steps, 2 * 0x7C00);  // 63,490 non-NaN encodings, less the start and +0 (nextUp(-0) skips it)
}

TEST(NumberFormat, UlpIsTheSpacingOfTheBinade) {
  EXPECT_EQ(ulp(DType::FP16, 1.0), std::ldexp(1.0, -10));
  EXPECT_EQ(ulp(DType::FP16, 1.9), std::ldexp(1.0, -10));
  EXPECT_EQ(ulp(DType::FP16, -2.0), std::ldexp(1.0, -9));
  EXPECT_EQ(ulp(DType::FP16, 65504.0), 32.0);
  EXPECT_EQ(ulp(DType::FP16, 1e6), 32.0);  // beyond max: the top binade's spacing
  EXPECT_EQ(ulp(DType::FP16, 0.0), std::ldexp(1.0, -24));
  EXPECT_EQ(ulp(DType::FP16, 1e-7), std::ldexp(1.0, -24));  // subnormal range: fixed spacing
  EXPECT_EQ(ulp(DType::BF16, 1.0), std::ldexp(1.0, -7));
  EXPECT_EQ(ulp(DType::FP32, 1.0), static_cast<double>(std::numeric_limits<float>::epsilon()));
  EXPECT_EQ(ulp(DType::FP8E4M3FN, 448.0), 32.0);
  EXPECT_TRUE(std::isinf(ulp(DType::FP16, kInf)));
  EXPECT_TRUE(std::isnan(ulp(DType::FP16, kNaN)));
}

TEST(NumberFormat, DecomposeComposeAndClassify) {
  const Decomposed one = decompose(DType::FP16, 0x3C00);
  EXPECT_FALSE(one.sign);
  EXPECT_EQ(one.exponentField, 15u);
  EXPECT_EQ(one.mantissaField, 0u);
  EXPECT_EQ(one.unbiasedExponent, 0);
  EXPECT_EQ(one.cls, ValueClass::Normal);
  const Decomposed sub = decompose(DType::FP16, 0x8001);
  EXPECT_TRUE(sub.sign);
  EXPECT_EQ(sub.unbiasedExponent, -14);  // subnormals use emin, not 0 - bias
  EXPECT_EQ(sub.cls, ValueClass::Subnormal);
  EXPECT_EQ(compose(DType::FP16, true, 0x1F, 0), 0xFC00u);
  EXPECT_EQ(compose(DType::BF16, false, 127, 0), 0x3F80u);
  EXPECT_EQ(compose(DType::FP64, false, 1023, 0), bitsOfDouble(1.0));
  EXPECT_THROW(compose(DType::FP16, false, 32, 0), std::invalid_argument);
  EXPECT_THROW(compose(DType::FP16, false, 0, 1024), std::invalid_argument);
  EXPECT_EQ(classify(DType::FP16, 0x7C00), ValueClass::Infinite);
  EXPECT_EQ(classify(DType::FP16, 0x7C01), ValueClass::NaN);
  EXPECT_EQ(classify(DType::FP16, 0x8000), ValueClass::Zero);
  EXPECT_EQ(classify(DType::TF32, 0x3FC00), ValueClass::Infinite);  // TF32 in 19 bits
  EXPECT_EQ(valueClassName(ValueClass::Subnormal), "subnormal");
}

TEST(NumberFormat, FlipBitTogglesOneBitInsideTheFormat) {
  EXPECT_EQ(flipBit(DType::FP16, 0x3C00, 15), 0xBC00u);                   // sign bit: 1 -> -1
  EXPECT_EQ(decode(DType::FP16, flipBit(DType::FP16, 0x3C00, 10)), 0.5);  // exponent LSB
  EXPECT_EQ(flipBit(DType::FP16, flipBit(DType::FP16, 0x1234, 3), 3), 0x1234u);
  EXPECT_EQ(flipBit(DType::FP64, 0, 63), bitsOfDouble(-0.0));
  EXPECT_THROW(flipBit(DType::FP16, 0, 16), std::invalid_argument);
  EXPECT_THROW(flipBit(DType::FP16, 0, -1), std::invalid_argument);
  EXPECT_EQ(bitMask(DType::FP8E5M2), 0xFFu);
  EXPECT_EQ(bitMask(DType::FP64), ~uint64_t{0});
}

TEST(NumberFormat, FormatsBitsGroupedAndInHex) {
  EXPECT_EQ(formatBitsBinary(DType::FP16, 0x3C00), "0 01111 0000000000");
  EXPECT_EQ(formatBitsBinary(DType::FP8E4M3FN, 0x7E), "0 1111 110");
  EXPECT_EQ(formatBitsHex(DType::FP16, 0x3C00), "0x3c00");
  EXPECT_EQ(formatBitsHex(DType::FP8E5M2, 0x7), "0x07");
  EXPECT_EQ(formatBitsHex(DType::TF32, encode(DType::TF32, 1.0)), "0x1fc00");
}

TEST(NumberFormat, ParsesNumbersSpecialsAndBitPatterns) {
  EXPECT_EQ(parseValue("1e-8", DType::FP16).value, 1e-8);
  EXPECT_EQ(parseValue(" 65504 ", DType::FP16).value, 65504.0);
  const ParsedValue minusZero = parseValue("-0", DType::FP16);
  ASSERT_TRUE(minusZero.ok);
  EXPECT_TRUE(std::signbit(minusZero.value));
  EXPECT_EQ(parseValue("inf", DType::FP16).value, kInf);
  EXPECT_EQ(parseValue("-Infinity", DType::FP16).value, -kInf);
  EXPECT_TRUE(std::isnan(parseValue("NaN", DType::FP16).value));
  EXPECT_EQ(parseValue("+2.5E3", DType::FP16).value, 2500.0);
  EXPECT_EQ(parseValue("0x1.8p3", DType::FP16).value, 12.0);  // a hex float, not a pattern

  const ParsedValue pattern = parseValue("0x3c00", DType::FP16);
  ASSERT_TRUE(pattern.ok);
  EXPECT_TRUE(pattern.isBitPattern);
  EXPECT_EQ(pattern.bits, 0x3C00u);
  EXPECT_EQ(pattern.value, 1.0);
  EXPECT_EQ(parseValue("0x3c00", DType::BF16).value, 0.0078125);             // same bits, BF16 meaning
  EXPECT_EQ(parseValue("0b0 01111 0000000000", DType::FP16).bits, 0x3C00u);  // formatBitsBinary reads back
  EXPECT_EQ(parseValue("0x0000_3c00", DType::FP16).bits, 0x3C00u);           // leading zeros are fine
  EXPECT_EQ(parseValue("0xffffffffffffffff", DType::FP64).bits, ~uint64_t{0});
}

TEST(NumberFormat, RejectsGarbageWithAMessageNamingIt) {
  struct Case {
    const char* text;
    const char* messagePart;
  };
  const Case cases[] = {{"1e-8x", "unexpected 'x'"},
                        {"", "empty value"},
                        {"   ", "empty value"},
                        {"0xZZ", "'Z' is not a hexadecimal digit"},
                        {"0x1ffff", "wider than FP16's 16 bits"},
                        {"0b2", "'2' is not a binary digit"},
                        {"0x", "no digits"},
                        {"abc", "'abc' is not a number"},
                        {"--1", "is not a number"},
                        {"1e400", "beyond double's range"},
                        {"1e-400", "below double's smallest subnormal"},
                        {"-0x3c00", "no sign"}};
  for (const Case& c : cases) {
    const ParsedValue parsed = parseValue(c.text, DType::FP16);
    EXPECT_FALSE(parsed.ok) << c.text;
    EXPECT_NE(parsed.error.find(c.messagePart), std::string::npos) << c.text << ": " << parsed.error;
  }
  EXPECT_FALSE(parseValue("0x1ffffffffffffffff", DType::FP64).ok);  // 65 bits
}

TEST(NumberFormat, RoundValueReportsErrorAndFlags) {
  const RoundingResult tenth = roundValue(DType::FP16, 0.1);
  EXPECT_EQ(tenth.bits, 0x2E66u);  // 0.0999755859375
  EXPECT_EQ(tenth.stored, 0.0999755859375);
  EXPECT_EQ(tenth.absError, 0.1 - 0.0999755859375);
  EXPECT_DOUBLE_EQ(tenth.relError, (0.1 - 0.0999755859375) / 0.1);
  EXPECT_EQ(tenth.cls, ValueClass::Normal);

  const RoundingResult big = roundValue(DType::FP16, 1e5);
  EXPECT_TRUE(big.overflowed);
  EXPECT_EQ(big.stored, kInf);
  EXPECT_EQ(big.absError, kInf);

  const RoundingResult infinite = roundValue(DType::FP16, -kInf);
  EXPECT_FALSE(infinite.overflowed);
  EXPECT_EQ(infinite.absError, 0.0);

  const RoundingResult nan = roundValue(DType::BF16, kNaN);
  EXPECT_EQ(nan.cls, ValueClass::NaN);
  EXPECT_TRUE(std::isnan(nan.absError));

  const RoundingResult zero = roundValue(DType::FP16, -0.0);
  EXPECT_EQ(zero.bits, 0x8000u);
  EXPECT_FALSE(zero.flushedToZero);
  EXPECT_EQ(zero.relError, 0.0);
}

TEST(NumberFormat, NanKeepsSignAndQuietsPayload) {
  EXPECT_EQ(encode(DType::FP16, kNaN), 0x7E00u);
  EXPECT_EQ(encode(DType::FP16, -kNaN), 0xFE00u);
  EXPECT_EQ(encode(DType::BF16, kNaN), 0x7FC0u);
  EXPECT_EQ(quietNaNBits(DType::FP32), 0x7FC00000u);
  EXPECT_EQ(encode(DType::FP8E4M3FN, -kNaN), 0xFFu);
}

TEST(NumberFormat, ParsesDtypeAliases) {
  EXPECT_EQ(parseDType("fp16"), DType::FP16);
  EXPECT_EQ(parseDType("Half"), DType::FP16);
  EXPECT_EQ(parseDType("bfloat16"), DType::BF16);
  EXPECT_EQ(parseDType("float8_e4m3fn"), DType::FP8E4M3FN);
  EXPECT_EQ(parseDType("FP8-E5M2"), DType::FP8E5M2);
  EXPECT_EQ(parseDType("tf32"), DType::TF32);
  EXPECT_EQ(parseDType("double"), DType::FP64);
  EXPECT_FALSE(parseDType("fp12").has_value());
}

}  // namespace
}  // namespace ampscope
