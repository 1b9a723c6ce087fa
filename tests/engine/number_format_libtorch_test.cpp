// Number formats against LibTorch: every FP16 and BF16 bit pattern, and over a million random values,
// compared with c10::Half / c10::BFloat16 and with tensor casts (.to(kHalf) / .to(kBFloat16)).
//
// LibTorch converts a double by rounding it to float first and then float -> half/bfloat16: two
// roundings. So the bit-for-bit comparisons feed LibTorch floats; encode() of the same value (as a
// double, exact) must then give identical bits. On the doubles themselves encode() rounds once;
// MillionRandomDoublesRoundOnce... shows LibTorch differs only where float rounding hit a tie, and
// DirectRoundingDiffersFromLibTorchsDoubleCast constructs one such case by hand.
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

#include "ampscope/engine/number_format.h"

#if __has_include(<c10/util/Float8_e4m3fn.h>)
#include <c10/util/Float8_e4m3fn.h>
#include <c10/util/Float8_e5m2.h>
#define AMPSCOPE_HAVE_C10_FLOAT8 1
#endif

namespace ampscope {
namespace {

uint16_t halfBits(float value) { return c10::Half(value).x; }
uint16_t bfloat16Bits(float value) { return c10::BFloat16(value).x; }

float halfToFloat(uint16_t bits) { return static_cast<float>(c10::Half(bits, c10::Half::from_bits())); }
float bfloat16ToFloat(uint16_t bits) {
  return static_cast<float>(c10::BFloat16(bits, c10::BFloat16::from_bits()));
}

struct ExhaustiveCounts {
  int patterns = 0;
  int nans = 0;
  int reencoded = 0;
};

template <typename ToFloat>
ExhaustiveCounts checkEveryPattern(DType dtype, ToFloat libtorchDecode) {
  ExhaustiveCounts counts;
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const float reference = libtorchDecode(static_cast<uint16_t>(bits));
    const double ours = decode(dtype, bits);
    ++counts.patterns;
    if (std::isnan(reference)) {
      EXPECT_TRUE(std::isnan(ours)) << std::hex << bits;
      EXPECT_EQ(classify(dtype, bits), ValueClass::NaN) << std::hex << bits;
      EXPECT_EQ(classify(dtype, encode(dtype, ours)), ValueClass::NaN) << std::hex << bits;
      ++counts.nans;
      continue;
    }
    EXPECT_EQ(ours, static_cast<double>(reference)) << std::hex << bits;
    EXPECT_EQ(std::signbit(ours), std::signbit(reference)) << std::hex << bits;  // -0 stays -0
    EXPECT_EQ(encode(dtype, ours), bits) << std::hex << bits;
    ++counts.reencoded;
  }
  return counts;
}

TEST(NumberFormatLibTorch, EveryFp16PatternDecodesAndReencodesLikeCHalf) {
  const ExhaustiveCounts counts = checkEveryPattern(DType::FP16, halfToFloat);
  // IEEE half: 2 * (2^10 - 1) NaN patterns (exponent all ones, mantissa non-zero, either sign).
  EXPECT_EQ(counts.patterns, 65536);
  EXPECT_EQ(counts.nans, 2046);
  EXPECT_EQ(counts.reencoded, 65536 - 2046);
  std::cout << "[ counts   ] FP16: " << counts.patterns << " patterns checked against c10::Half, "
            << counts.reencoded << " re-encoded to themselves, " << counts.nans << " NaN\n";
  RecordProperty("fp16_patterns_checked", counts.patterns);
}

TEST(NumberFormatLibTorch, EveryBf16PatternDecodesAndReencodesLikeCBFloat16) {
  const ExhaustiveCounts counts = checkEveryPattern(DType::BF16, bfloat16ToFloat);
  EXPECT_EQ(counts.patterns, 65536);
  EXPECT_EQ(counts.nans, 2 * 127);
  EXPECT_EQ(counts.reencoded, 65536 - 254);
  std::cout << "[ counts   ] BF16: " << counts.patterns << " patterns checked against c10::BFloat16, "
            << counts.reencoded << " re-encoded to themselves, " << counts.nans << " NaN\n";
  RecordProperty("bf16_patterns_checked", counts.patterns);
}

// Random doubles covering every range that matters: FP16/BF16 subnormals and normals, the overflow
// region, float's own subnormals, exact ties with float and with double-only neighbours, values next
// to max. Returned as doubles; the LibTorch comparisons use float(x).
std::vector<double> randomDoubles(std::size_t count) {
  std::mt19937_64 rng(0xA3F5C0DEULL);
  std::uniform_real_distribution<double> unit(1.0, 2.0);
  std::uniform_int_distribution<int> wideExponent(-155, 130);  // float subnormals .. float overflow
  std::uniform_int_distribution<int> halfExponent(-26, 17);    // FP16 subnormals .. FP16 overflow
  std::uniform_int_distribution<uint32_t> anyBits;
  std::uniform_int_distribution<uint32_t> anyHalf(0, 0x7BFE);
  std::uniform_int_distribution<uint32_t> anyBf16(0, 0x7F7E);
  // A tie itself, one float step either side, or a double-only nudge (2^-45 relative) that float
  // rounding erases again: the double-rounding trap.
  auto nearTie = [&](double tie) {
    const float t = static_cast<float>(tie);
    switch (rng() % 5) {
      case 0: return tie;
      case 1: return static_cast<double>(std::nextafter(t, 3e38f));
      case 2: return static_cast<double>(std::nextafter(t, -3e38f));
      case 3: return tie * (1 + std::ldexp(1.0, -45));
      default: return tie * (1 - std::ldexp(1.0, -45));
    }
  };
  std::vector<double> values;
  values.reserve(count);
  while (values.size() < count) {
    const int kind = static_cast<int>(values.size() % 8);
    const double sign = (values.size() / 8) % 2 == 0 ? 1.0 : -1.0;
    double x = 0;
    switch (kind) {
      case 0: x = std::ldexp(unit(rng), wideExponent(rng)); break;
      case 1: x = std::ldexp(unit(rng), halfExponent(rng)); break;
      case 2: {  // any float bit pattern except NaN
        const uint32_t raw = anyBits(rng);
        float f;
        std::memcpy(&f, &raw, sizeof f);
        if (std::isnan(f)) continue;
        values.push_back(f);
        continue;
      }
      case 3: {
        const uint32_t h = anyHalf(rng);
        x = nearTie((decode(DType::FP16, h) + decode(DType::FP16, h + 1)) / 2);
        break;
      }
      case 4: {
        const uint32_t b = anyBf16(rng);
        x = nearTie((decode(DType::BF16, b) + decode(DType::BF16, b + 1)) / 2);
        break;
      }
      case 5: x = 65504.0 + (unit(rng) - 1.5) * 64; break;  // FP16 max and overflow tie 65520
      case 6: x = std::ldexp(unit(rng), -25 - static_cast<int>(rng() % 3)); break;    // FP16 flush region
      case 7: x = finfo(DType::BF16).max * (0.998 + (unit(rng) - 1) * 0.004); break;  // BF16 max
    }
    values.push_back(sign * x);
  }
  return values;
}

std::vector<float> toFloats(const std::vector<double>& values) {
  std::vector<float> floats;
  floats.reserve(values.size());
  for (const double x : values) floats.push_back(static_cast<float>(x));
  return floats;
}

TEST(NumberFormatLibTorch, MillionRandomFloatsRoundLikeLibTorch) {
  constexpr std::size_t kCount = 1'200'000;
  const std::vector<float> values = toFloats(randomDoubles(kCount));

  // LibTorch's tensor casts, as the training code would do them.
  const torch::Tensor source = torch::from_blob(const_cast<float*>(values.data()),
                                                {static_cast<int64_t>(values.size())}, torch::kFloat32);
  const torch::Tensor halves = source.to(torch::kFloat16).contiguous();
  const torch::Tensor bfloats = source.to(torch::kBFloat16).contiguous();
  const auto* halfData = reinterpret_cast<const uint16_t*>(halves.data_ptr<c10::Half>());
  const auto* bf16Data = reinterpret_cast<const uint16_t*>(bfloats.data_ptr<c10::BFloat16>());

  std::size_t fp16Mismatches = 0;
  std::size_t bf16Mismatches = 0;
  std::size_t fp16Ties = 0;
  std::size_t fp16Subnormal = 0;
  std::size_t fp16Flushed = 0;
  std::size_t fp16Overflow = 0;
  std::size_t bf16Subnormal = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float f = values[i];
    const double x = f;  // exact
    const uint64_t h = encode(DType::FP16, x);
    const uint64_t b = encode(DType::BF16, x);
    if (h != halfBits(f) || h != halfData[i]) {
      if (++fp16Mismatches <= 10) {
        ADD_FAILURE() << "FP16 of " << std::hexfloat << x << ": ours " << std::hex << h << ", c10::Half "
                      << halfBits(f) << ", tensor cast " << halfData[i];
      }
    }
    if (b != bfloat16Bits(f) || b != bf16Data[i]) {
      if (++bf16Mismatches <= 10) {
        ADD_FAILURE() << "BF16 of " << std::hexfloat << x << ": ours " << std::hex << b << ", c10::BFloat16 "
                      << bfloat16Bits(f) << ", tensor cast " << bf16Data[i];
      }
    }
    const RoundingResult r = roundValue(DType::FP16, x);
    fp16Subnormal += r.becameSubnormal ? 1 : 0;
    fp16Flushed += r.flushedToZero ? 1 : 0;
    fp16Overflow += r.overflowed ? 1 : 0;
    fp16Ties += (std::isfinite(x) && !r.overflowed && r.absError != 0 &&
                 r.absError == ulp(DType::FP16, r.stored) / 2 && r.cls == ValueClass::Normal)
                    ? 1
                    : 0;
    bf16Subnormal += classify(DType::BF16, b) == ValueClass::Subnormal ? 1 : 0;
  }
  EXPECT_EQ(fp16Mismatches, 0u);
  EXPECT_EQ(bf16Mismatches, 0u);
  // The sample must actually reach the interesting regions.
  EXPECT_GT(fp16Ties, 10000u);
  EXPECT_GT(fp16Subnormal, 10000u);
  EXPECT_GT(fp16Flushed, 10000u);
  EXPECT_GT(fp16Overflow, 10000u);
  EXPECT_GT(bf16Subnormal, 1000u);
  std::cout << "[ counts   ] " << values.size()
            << " random values rounded to FP16 and to BF16, compared with "
            << "c10 scalars and tensor casts: " << fp16Mismatches << " FP16 and " << bf16Mismatches
            << " BF16 mismatches (FP16: " << fp16Ties << " normal-range ties, " << fp16Subnormal
            << " subnormal, " << fp16Flushed << " flushed, " << fp16Overflow
            << " overflowed; BF16: " << bf16Subnormal << " subnormal)\n";
  RecordProperty("random_values_checked", static_cast<int>(values.size()));
}

// The value a bit pattern stands for, with inf read as the first value past max (2^(emax+1)), so
// the overflow tie (65520 for FP16) is a midpoint like any other.
double unboundedValue(DType dtype, uint64_t bits) {
  const double value = decode(dtype, bits);
  if (!std::isinf(value)) return value;
  const double past = finfo(dtype).max + ulp(dtype, finfo(dtype).max);
  return value > 0 ? past : -past;
}

TEST(NumberFormatLibTorch, MillionRandomDoublesRoundOnceAndLibTorchOnlyDiffersOnFloatTies) {
  // Directly from the double, encode() must pick the nearest neighbour (ties to even): checked against
  // the neighbours, without LibTorch. LibTorch's double path (float first) may differ, but only where
  // float(x) != x landed exactly on a tie of the target format: double rounding, nothing else.
  const std::vector<double> values = randomDoubles(1'200'000);
  std::size_t checked = 0;
  std::size_t doubleRounding[2] = {0, 0};
  const DType dtypes[2] = {DType::FP16, DType::BF16};
  for (const double x : values) {
    const float f = static_cast<float>(x);
    for (int k = 0; k < 2; ++k) {
      const DType dtype = dtypes[k];
      const uint64_t direct = encode(dtype, x);
      const double stored = unboundedValue(dtype, direct);
      const double error = std::fabs(stored - x);
      for (const uint64_t neighbour : {nextUp(dtype, direct), nextDown(dtype, direct)}) {
        if (classify(dtype, neighbour) == ValueClass::Infinite &&
            classify(dtype, direct) == ValueClass::Infinite) {
          continue;
        }
        const double otherError = std::fabs(unboundedValue(dtype, neighbour) - x);
        ASSERT_LE(error, otherError) << formatSpec(dtype).name << " " << std::hexfloat << x;
        if (error == otherError) {
          ASSERT_EQ(direct & 1, 0u) << formatSpec(dtype).name << " tie " << x;
        }
      }
      const uint64_t viaFloat = dtype == DType::FP16 ? halfBits(f) : bfloat16Bits(f);
      if (viaFloat != direct) {
        ++doubleRounding[k];
        const double midpoint = (unboundedValue(dtype, direct) + unboundedValue(dtype, viaFloat)) / 2;
        ASSERT_NE(static_cast<double>(f), x) << std::hexfloat << x;
        ASSERT_EQ(static_cast<double>(f), midpoint) << formatSpec(dtype).name << " " << std::hexfloat << x;
        ASSERT_TRUE(nextUp(dtype, direct) == viaFloat || nextDown(dtype, direct) == viaFloat);
      }
    }
    ++checked;
  }
  EXPECT_EQ(checked, values.size());
  EXPECT_GT(doubleRounding[0], 1000u);  // the generator plants such cases; they must show up
  EXPECT_GT(doubleRounding[1], 1000u);
  std::cout << "[ counts   ] " << checked << " random doubles rounded once to FP16 and BF16, each the "
            << "nearest (ties even); LibTorch's double->float->dtype differs on " << doubleRounding[0]
            << " (FP16) and " << doubleRounding[1] << " (BF16), all of them float-rounded onto a tie\n";
  RecordProperty("random_doubles_checked", static_cast<int>(checked));
}

TEST(NumberFormatLibTorch, EveryFp16AndBf16TieRoundsToEvenLikeLibTorch) {
  // The midpoint between each pair of adjacent finite values (both signs) is exact in float; IEEE
  // sends it to the neighbour with the even mantissa, and so must LibTorch.
  std::size_t ties = 0;
  for (const DType dtype : {DType::FP16, DType::BF16}) {
    const uint64_t maxBits = maxFiniteBits(dtype);
    for (uint64_t bits = 0; bits < maxBits; ++bits) {
      for (const uint64_t sign : {uint64_t{0}, uint64_t{0x8000}}) {
        const double tie = (decode(dtype, bits | sign) + decode(dtype, (bits + 1) | sign)) / 2;
        const float f = static_cast<float>(tie);
        ASSERT_EQ(static_cast<double>(f), tie);
        const uint64_t even = ((bits & 1) == 0 ? bits : bits + 1) | sign;
        ASSERT_EQ(encode(dtype, tie), even) << std::hexfloat << tie;
        ASSERT_EQ(encode(dtype, tie), dtype == DType::FP16 ? halfBits(f) : bfloat16Bits(f)) << tie;
        ++ties;
      }
    }
  }
  EXPECT_EQ(ties, 2u * 0x7BFF + 2u * 0x7F7F);
  std::cout << "[ counts   ] " << ties << " exact FP16/BF16 ties checked against c10\n";
}

TEST(NumberFormatLibTorch, DirectRoundingDiffersFromLibTorchsDoubleCast) {
  // 1 + 2^-11 + 2^-40 is just above FP16's tie 1 + 2^-11: correctly rounded it is 1 + 2^-10 (0x3c01).
  // A double tensor cast to half rounds to float first, which drops the 2^-40 and lands on the tie;
  // ties-to-even then gives 1.0 (0x3c00). encode() rounds once, from the double's bits.
  const double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  const torch::Tensor viaTorch = torch::tensor({x}, torch::kFloat64).to(torch::kFloat16);
  EXPECT_EQ(viaTorch.data_ptr<c10::Half>()[0].x, 0x3C00);
  EXPECT_EQ(encode(DType::FP16, static_cast<float>(x)), 0x3C00u);  // the same two roundings
  EXPECT_EQ(encode(DType::FP16, x), 0x3C01u);                      // one rounding: correct
  EXPECT_EQ(static_cast<double>(c10::Half(static_cast<float>(x))), 1.0);

  const double y = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  const torch::Tensor bfViaTorch = torch::tensor({y}, torch::kFloat64).to(torch::kBFloat16);
  EXPECT_EQ(bfViaTorch.data_ptr<c10::BFloat16>()[0].x, 0x3F80);
  EXPECT_EQ(encode(DType::BF16, y), 0x3F81u);
}

TEST(NumberFormatLibTorch, Float8AgainstC10WhenThisLibTorchHasIt) {
#ifdef AMPSCOPE_HAVE_C10_FLOAT8
  int checked = 0;
  for (uint32_t bits = 0; bits < 256; ++bits) {
    const float e4 =
        static_cast<float>(c10::Float8_e4m3fn(static_cast<uint8_t>(bits), c10::Float8_e4m3fn::from_bits()));
    const float e5 =
        static_cast<float>(c10::Float8_e5m2(static_cast<uint8_t>(bits), c10::Float8_e5m2::from_bits()));
    if (std::isnan(e4)) {
      EXPECT_TRUE(std::isnan(decode(DType::FP8E4M3FN, bits)));
    } else {
      EXPECT_EQ(decode(DType::FP8E4M3FN, bits), static_cast<double>(e4)) << bits;
    }
    if (std::isnan(e5)) {
      EXPECT_TRUE(std::isnan(decode(DType::FP8E5M2, bits)));
    } else {
      EXPECT_EQ(decode(DType::FP8E5M2, bits), static_cast<double>(e5)) << bits;
    }
    checked += 2;
  }
  EXPECT_EQ(checked, 512);
#else
  GTEST_SKIP() << "this LibTorch has no c10/util/Float8_e4m3fn.h (added in 2.1); FP8 is checked "
                  "against the OCP spec values in number_format_spec_test";
#endif
}

}  // namespace
}  // namespace ampscope
