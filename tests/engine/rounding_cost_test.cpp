// rounding_cost.h: SQNR, changed values and range counts of a tensor rounded into FP16, BF16, FP8 E4M3 /
// E5M2 with per-tensor amax scaling, MXFP8 and NVFP4. Every expected value is worked out by hand from the
// specs: IEEE 754-2019 (binary16, round to nearest, ties to even, overflow to inf), bfloat16 (float32's
// exponent, 7 fraction bits, the same rounding), the OCP 8-bit Floating Point spec v1.0 (E4M3: max 448,
// smallest subnormal 2^-9; E5M2: max 57344), the OCP Microscaling spec v1.0 (FP4 E2M1 values 0, 0.5, 1,
// 1.5, 2, 3, 4, 6; MX block of 32 with scale 2^(floor(log2 amax) - emax), emax(E4M3) = 8), and the scale
// rules of docs/fp8-recipes.md (per tensor: 448 / amax; NVFP4: 2688 / tensor amax, block scale
// E4M3((block amax / 6) * tensor scale)).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "ampscope/engine/rounding_cost.h"

namespace ampscope {
namespace {

double db(double signal, double error) { return 10.0 * std::log10(signal / error); }
const double kInf = std::numeric_limits<double>::infinity();
const float kInfF = std::numeric_limits<float>::infinity();

RoundingCost cost(CostFormat f, const std::vector<float>& v) {
  return roundingCost(f, v.data(), static_cast<int64_t>(v.size()));
}

TEST(RoundingCost, Fp16TieToEvenFlushSubnormalAndOverflow) {
  // 1 + 2^-11 is the midpoint of 1 and 1 + 2^-10: the tie goes to 1 (even significand).
  const float tie = 1.0f + std::ldexp(1.0f, -11);
  auto c = cost(CostFormat::FP16, {1.0f, tie});
  EXPECT_EQ(c.elements, 2);
  EXPECT_EQ(c.changed, 1);
  EXPECT_DOUBLE_EQ(c.signal.value(), 1.0 + (1.0 + std::ldexp(1.0, -11)) * (1.0 + std::ldexp(1.0, -11)));
  EXPECT_EQ(c.error.value(), std::ldexp(1.0, -22));
  EXPECT_NEAR(c.sqnrDb(), db(2.0 + std::ldexp(1.0, -10) + std::ldexp(1.0, -22), std::ldexp(1.0, -22)), 1e-12);

  // 2^-25 is half the smallest subnormal 2^-24: the tie goes to the even zero (flushed); 2^-20 is a
  // subnormal, exact.
  c = cost(CostFormat::FP16, {std::ldexp(1.0f, -25), std::ldexp(1.0f, -20)});
  EXPECT_EQ(c.flushed, 1);
  EXPECT_EQ(c.subnormal, 1);
  EXPECT_EQ(c.changed, 1);
  EXPECT_EQ(c.error.value(), std::ldexp(1.0, -50));

  // 65520 = 65504 + ulp/2 with 65504's significand odd: rounds to inf. SQNR -inf; inf and NaN inputs are
  // left out of every count.
  c = cost(CostFormat::FP16, {65520.0f, 65504.0f, kInfF, std::nanf("")});
  EXPECT_EQ(c.elements, 2);
  EXPECT_EQ(c.overflowed, 1);
  EXPECT_EQ(c.sqnrDb(), -kInf);
}

TEST(RoundingCost, ExactValuesGivePlusInfinity) {
  auto c = cost(CostFormat::BF16, {1.0f, -2.5f, 0.0f});
  EXPECT_EQ(c.changed, 0);
  EXPECT_EQ(c.sqnrDb(), kInf);
  c = cost(CostFormat::FP16, {});
  EXPECT_EQ(c.elements, 0);
  EXPECT_EQ(c.sqnrDb(), kInf);
}

TEST(RoundingCost, Bf16TieToEven) {
  // bfloat16 keeps 7 fraction bits: 1 + 2^-8 is the midpoint of 1 and 1 + 2^-7, and goes to 1;
  // 1 + 3 * 2^-8 is the midpoint of 1 + 2^-7 and 1 + 2^-6 and goes to 1 + 2^-6 (even).
  const auto c = cost(CostFormat::BF16, {1.0f + std::ldexp(1.0f, -8), 1.0f + 3 * std::ldexp(1.0f, -8)});
  EXPECT_EQ(c.changed, 2);
  EXPECT_EQ(c.error.value(), 2 * std::ldexp(1.0, -16));
}

TEST(RoundingCost, Fp8PerTensorScaleComesFromTheAmax) {
  // Unscaled, 2^-20 and 2^-21 are below E4M3's smallest subnormal 2^-9 and would flush. The scale
  // 448 / 2^-20 maps them to 448 and 224, both E4M3 values: nothing changes.
  auto c = cost(CostFormat::FP8E4M3, {std::ldexp(1.0f, -20), std::ldexp(1.0f, -21)});
  EXPECT_EQ(c.flushed, 0);
  EXPECT_EQ(c.changed, 0);
  EXPECT_EQ(c.sqnrDb(), kInf);

  // amax 448: scale 1. 1.0625 = 1 + 2^-4 is the midpoint of 1 and 1.125 (3 fraction bits): goes to 1.
  c = cost(CostFormat::FP8E4M3, {448.0f, 1.0625f});
  EXPECT_EQ(c.changed, 1);
  EXPECT_EQ(c.error.value(), 0.0625 * 0.0625);
  EXPECT_NEAR(c.sqnrDb(), db(448.0 * 448.0 + 1.0625 * 1.0625, 0.0625 * 0.0625), 1e-12);

  // E5M2, amax 57344: scale 1. 1.125 is the midpoint of 1 and 1.25 (2 fraction bits): goes to 1.
  c = cost(CostFormat::FP8E5M2, {-57344.0f, 1.125f});
  EXPECT_EQ(c.changed, 1);
  EXPECT_EQ(c.error.value(), 0.125 * 0.125);
  // A per-tensor scale keeps the amax at the format's max: nothing overflows.
  EXPECT_EQ(c.overflowed, 0);
}

TEST(RoundingCost, MxBlocksOf32WithE8M0Scales) {
  // Block 0 (values 0..31), amax 1.9375 = 1.1111b: X = floor(log2 1.9375) - 8 = -8, so the values are
  // multiplied by 2^8. 1.9375 * 256 = 496 is beyond E4M3's 464 threshold: clamped to 448 (overflowed),
  // q = 1.75. 1.0625 * 256 = 272, the midpoint of 256 and 288 (spacing 32 in [256, 512)): goes to 256.
  // Block 1 (values 32..39, a shorter last block), amax 2^-30: X = -38, 2^-30 * 2^38 = 256 and
  // 3 * 2^-32 * 2^38 = 192 are exact.
  std::vector<float> v(40, 0.0f);
  v[0] = 1.9375f;
  v[1] = 1.0625f;
  v[2] = 1.0f;
  v[32] = std::ldexp(1.0f, -30);
  v[33] = 3 * std::ldexp(1.0f, -32);
  auto c = cost(CostFormat::MXFP8, v);
  EXPECT_EQ(c.elements, 40);
  EXPECT_EQ(c.changed, 2);
  EXPECT_EQ(c.overflowed, 1);
  EXPECT_EQ(c.flushed, 0);
  const double error = 0.1875 * 0.1875 + 0.0625 * 0.0625;
  EXPECT_EQ(c.error.value(), error);
  const double signal = 1.9375 * 1.9375 + 1.0625 * 1.0625 + 1.0 + std::ldexp(1.0, -60) + 9 * std::ldexp(1.0, -64);
  EXPECT_EQ(c.signal.value(), signal);
  EXPECT_NEAR(c.sqnrDb(), db(signal, error), 1e-12);

  // A block holding NaN becomes NaN: its finite values are changed and the error is infinite; the
  // other block is untouched.
  v[3] = std::nanf("");
  c = cost(CostFormat::MXFP8, v);
  EXPECT_EQ(c.elements, 39);
  EXPECT_EQ(c.changed, 31);
  EXPECT_EQ(c.sqnrDb(), -kInf);
}

TEST(RoundingCost, Nvfp4TwoLevelScale) {
  // Tensor amax 6: tensor scale 2688 / 6 = 448. Block 0 (values 0..15), amax 6: block scale
  // E4M3((6 / 6) * 448) = 448, factor 448 / 448 = 1, so the elements are rounded into E2M1 as they are:
  // 5 (midpoint of 4 and 6) -> 4, 2.5 (midpoint of 2 and 3) -> 2, 0.25 (midpoint of 0 and 0.5) -> 0
  // (flushed), 0.5 is E2M1's subnormal, 6 exact.
  // Block 1 (values 16..31), amax 3: block scale E4M3(0.5 * 448) = 224, factor 448 / 224 = 2:
  // 3 -> 6 and 1.5 -> 3, exact.
  std::vector<float> v(32, 0.0f);
  v[0] = 6.0f;
  v[1] = 5.0f;
  v[2] = 2.5f;
  v[3] = 0.25f;
  v[4] = 0.5f;
  v[16] = 3.0f;
  v[17] = -1.5f;
  const auto c = cost(CostFormat::NVFP4, v);
  EXPECT_EQ(c.elements, 32);
  EXPECT_EQ(c.changed, 3);
  EXPECT_EQ(c.flushed, 1);
  EXPECT_EQ(c.subnormal, 1);
  EXPECT_EQ(c.overflowed, 0);
  const double error = 1.0 + 0.25 + 0.0625;
  const double signal = 36 + 25 + 6.25 + 0.0625 + 0.25 + 9 + 2.25;
  EXPECT_EQ(c.error.value(), error);
  EXPECT_EQ(c.signal.value(), signal);
  EXPECT_NEAR(c.sqnrDb(), db(signal, error), 1e-12);

  // A tensor holding inf becomes NaN throughout.
  v[20] = kInfF;
  EXPECT_EQ(cost(CostFormat::NVFP4, v).sqnrDb(), -kInf);
}

TEST(RoundingCost, AllFormatsInTheRecordOrder) {
  const std::vector<float> v = {1.0f, 0.1f, -3.0f};
  const auto all = roundingCosts(v.data(), 3);
  std::vector<std::string> keys;
  for (size_t i = 0; i < all.size(); ++i) {
    keys.push_back(costFormatKey(allCostFormats()[i]));
    const auto one = roundingCost(allCostFormats()[i], v.data(), 3);
    EXPECT_EQ(all[i].changed, one.changed);
    EXPECT_EQ(all[i].sqnrDb(), one.sqnrDb());
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "mxfp8", "nvfp4"}));
  // 0.1 is not a dyadic fraction: every format changes it, so every SQNR is finite.
  for (const auto& c : all) EXPECT_TRUE(std::isfinite(c.sqnrDb()));
}

TEST(ExactSquareSum, DoesNotDependOnTheOrderOfItsTerms) {
  std::mt19937_64 rng(45);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-290, 250);
  std::vector<double> terms;
  for (int i = 0; i < 5000; ++i) terms.push_back(std::ldexp(mantissa(rng), exponent(rng)));
  ExactSquareSum forward, backward, sorted;
  for (double t : terms) forward.add(t);
  for (auto it = terms.rbegin(); it != terms.rend(); ++it) backward.add(*it);
  std::sort(terms.begin(), terms.end());
  for (double t : terms) sorted.add(t);
  EXPECT_EQ(forward.parts(), backward.parts());
  EXPECT_EQ(forward.parts(), sorted.parts());
  EXPECT_EQ(forward.value(), sorted.value());
  // A plain double sum of the same terms does depend on the order (otherwise this test proves nothing).
  double a = 0, b = 0;
  for (double t : terms) a += t;
  for (auto it = terms.rbegin(); it != terms.rend(); ++it) b += *it;
  EXPECT_NE(a, b);
}

TEST(ExactSquareSum, KeepsSmallTermsBesideLargeOnes) {
  // Sixteen terms 2^4, each far below half an ulp of 2^60 (2^7), add up to one ulp (2^8) in the parts: a
  // running double sum would lose every one of them.
  ExactSquareSum s;
  s.add(std::ldexp(1.0, 60));
  for (int i = 0; i < 16; ++i) s.add(std::ldexp(1.0, 4));  // 16 * 2^4 = 2^8 = ulp(2^60)
  EXPECT_EQ(s.value(), std::ldexp(1.0, 60) + std::ldexp(1.0, 8));
  s.add(kInf);
  EXPECT_EQ(s.value(), kInf);
}

TEST(RoundingCost, BadInputNamesTheArgument) {
  try {
    roundingCost(CostFormat::FP16, nullptr, -1);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("n:"), std::string::npos) << e.what();
  }
  ExactSquareSum s;
  EXPECT_THROW(s.addPart(ExactSquareSum::kBands * ExactSquareSum::kChunks, 1.0), std::invalid_argument);
}

}  // namespace
}  // namespace ampscope
