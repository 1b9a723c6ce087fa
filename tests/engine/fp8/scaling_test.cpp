// The recipes' scales against hand-computed values:
// - per-tensor: Transformer Engine's documented DelayedScaling formula, scale = (FP8 max / amax) / 2^margin
//   (recipe docs: margin default 0, amax_history_len 1024, amax_compute_algo "max" = the largest amax in
//   the window), an amax of 0 or inf/NaN keeping the previous scale;
// - MX blocks: the OCP MX spec 1.0 (section 6.3) rule X = floor(log2(max |v|)) - emax(element), elements
//   V / 2^X rounded to nearest even with magnitudes above the element's max clamped to it;
// - NVFP4: tensor scale 6 * 448 / amax, E4M3 block scales of (block amax / 6) * tensor scale.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "fp8/block_quantizer.h"
#include "fp8/scaling.h"

namespace ampscope::detail::fp8 {
namespace {

TEST(Fp8Scaling, PerTensorScaleIsTheDocumentedFormula) {
  // 448 / 3.5 = 128 exactly; margin 2 divides by 4.
  EXPECT_EQ(perTensorScale(3.5f, 448.0f, 0, 1.0f), 128.0f);
  EXPECT_EQ(perTensorScale(3.5f, 448.0f, 2, 1.0f), 32.0f);
  // E5M2: 57344 / 7 = 8192.
  EXPECT_EQ(perTensorScale(7.0f, 57344.0f, 0, 1.0f), 8192.0f);
  // Not a power of two: 448 / 3 in float32 arithmetic.
  EXPECT_EQ(perTensorScale(3.0f, 448.0f, 0, 1.0f), 448.0f / 3.0f);
  // amax 0 or non-finite: the previous scale stays.
  EXPECT_EQ(perTensorScale(0.0f, 448.0f, 0, 5.0f), 5.0f);
  EXPECT_EQ(perTensorScale(std::numeric_limits<float>::infinity(), 448.0f, 0, 5.0f), 5.0f);
  EXPECT_EQ(perTensorScale(std::numeric_limits<float>::quiet_NaN(), 448.0f, 0, 5.0f), 5.0f);
  // An amax so small that the scale overflows float32 gives float32's max.
  EXPECT_EQ(perTensorScale(1e-44f, 448.0f, 0, 1.0f), std::numeric_limits<float>::max());
}

TEST(Fp8Scaling, DefaultsAreTransformerEnginesDelayedScaling) {
  const Fp8Config defaults;
  EXPECT_EQ(defaults.amaxHistoryLen, 1024);
  EXPECT_EQ(defaults.margin, 0);
  EXPECT_TRUE(defaults.scaling);
}

TEST(Fp8Scaling, TheHistoryKeepsTheLastLengthAmaxesAndGivesTheirMax) {
  AmaxHistory history(3);
  EXPECT_EQ(history.max(), 0.0f);
  history.push(1.0f);
  history.push(50.0f);  // a spike
  history.push(2.0f);
  EXPECT_EQ(history.max(), 50.0f);
  history.push(1.0f);  // 1, 50, 2 -> 50, 2, 1
  EXPECT_EQ(history.max(), 50.0f);
  history.push(1.0f);  // the spike falls out after `length` newer steps
  EXPECT_EQ(history.max(), 2.0f);
  EXPECT_EQ(history.size(), 3);
}

TEST(Fp8Scaling, MxSharedExponentFollowsTheSpecRule) {
  // E4M3's emax is 8 (448 = 1.75 * 2^8); E2M1's is 2 (6 = 1.5 * 2^2).
  EXPECT_EQ(mxSharedExponent(3.0f, 8), 1 - 8);
  EXPECT_EQ(mxSharedExponent(1.0f, 8), -8);
  EXPECT_EQ(mxSharedExponent(1000.0f, 8), 9 - 8);
  EXPECT_EQ(mxSharedExponent(0.75f, 2), -1 - 2);
  EXPECT_EQ(mxSharedExponent(0.0f, 8), -127);
  EXPECT_EQ(mxSharedExponent(0x1p-140f, 8), -127);  // clamped to E8M0's range
  EXPECT_EQ(mxSharedExponent(3e38f, 2), 127 - 2);
}

TEST(Fp8Scaling, MxBlocksQuantiseEachBlockWithItsOwnScale) {
  // Two blocks of 32 in one row. Block 0: amax 1000 -> X = 1; 1000 / 2 = 500 > 448 clamps to 448, so
  // 1000 becomes 896 (the spec's clamp: the largest value of a block can saturate); 3 / 2 = 1.5 stays 3.
  // Block 1: amax 0.75 -> X = -9 (floor(log2 0.75) = -1); 0.75 * 512 = 384 is exact; 0.001 * 512 =
  // 0.512 rounds in E4M3 (spacing 2^-4 between 0.5 and 1) to 0.5, so 0.001 becomes 0.5 / 512.
  std::vector<float> in(64, 0.0f);
  in[0] = 1000.0f;
  in[1] = 3.0f;
  in[32] = 0.75f;
  in[33] = 0.001f;
  std::vector<float> out(in.size());
  QuantCounts counts;
  BlockStats stats;
  quantizeMxBlocks(in.data(), out.data(), 1, 64, 32, QuantFormat::E4M3, &counts, &stats);
  EXPECT_EQ(out[0], 896.0f);
  EXPECT_EQ(out[1], 3.0f);
  EXPECT_EQ(out[32], 0.75f);
  EXPECT_EQ(out[33], 0.5f / 512.0f);
  EXPECT_EQ(counts.saturated, 1);
  EXPECT_EQ(stats.minExp, -9);
  EXPECT_EQ(stats.maxExp, 1);
  // A block holding inf becomes NaN throughout; an all-zero block stays zero.
  std::vector<float> bad(64, 1.0f);
  bad[5] = std::numeric_limits<float>::infinity();
  std::fill(bad.begin() + 32, bad.end(), 0.0f);
  quantizeMxBlocks(bad.data(), out.data(), 1, 64, 32, QuantFormat::E4M3, nullptr, nullptr);
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_TRUE(std::isnan(out[31]));
  EXPECT_EQ(out[32], 0.0f);
}

TEST(Fp8Scaling, Nvfp4TwoLevelScales) {
  // One row, blocks of 16: block 0 amax 6 (the tensor's), block 1 amax 0.75.
  // Tensor scale 6 * 448 / 6 = 448. Block 0: (6 / 6) * 448 = 448 (an E4M3 value): decode 1, so its
  // elements are plain E2M1 values: 5 rounds (tie) to 4, 6 stays. Block 1: (0.75 / 6) * 448 = 56
  // (E4M3-exact): decode 56 / 448 = 0.125; 0.75 / 0.125 = 6 stays; 0.3 / 0.125 = 2.4 rounds to 2 -> 0.25.
  std::vector<float> in(32, 0.0f);
  in[0] = 6.0f;
  in[1] = 5.0f;
  in[16] = 0.75f;
  in[17] = 0.3f;
  std::vector<float> out(in.size());
  BlockStats stats;
  quantizeNvfp4Blocks(in.data(), out.data(), 1, 32, nullptr, &stats);
  EXPECT_EQ(stats.tensorScale, 448.0f);
  EXPECT_EQ(out[0], 6.0f);
  EXPECT_EQ(out[1], 4.0f);
  EXPECT_EQ(out[16], 0.75f);
  EXPECT_EQ(out[17], 0.25f);
  EXPECT_EQ(stats.maxExp, 0);
  EXPECT_EQ(stats.minExp, -3);
}

}  // namespace
}  // namespace ampscope::detail::fp8
