// The quantised linear (fp8/quantized_linear.h): when every scale is a power of two and every operand
// is exactly representable after scaling (E4M3 for x and W, E5M2 for the gradient: OCP 8-bit FP spec),
// quantisation changes nothing, so the output and both gradients equal the FP32 GEMMs bit for bit; one
// value off the grid makes them differ (the test can fail). Delayed scaling uses scale 1 on its first
// step and 448 / amax after the history has rolled.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <cstring>
#include <random>
#include <vector>

#include "ampscope/engine/number_format.h"
#include "fp8/quantized_linear.h"
#include "fp8/recipe_quantizer.h"

namespace ampscope::detail::fp8 {
namespace {

// rows x cols values drawn from the format's finite values times `factor`, with the largest magnitude
// `top` present once (so amax = top * factor).
torch::Tensor gridTensor(int64_t rows, int64_t cols, DType dtype, double top, double factor, uint32_t seed) {
  std::vector<double> values;
  for (uint64_t bits = 0; bits < 0x80; ++bits) {
    const double v = decode(dtype, bits);
    if (std::isfinite(v) && v <= top && v >= 1.0 / 64) values.push_back(v);
  }
  std::mt19937 rng(seed);
  torch::Tensor t = torch::empty({rows, cols}, torch::kFloat);
  float* data = t.data_ptr<float>();
  for (int64_t i = 0; i < rows * cols; ++i) {
    const double v = values[rng() % values.size()] * factor;
    data[i] = static_cast<float>(rng() % 2 ? -v : v);
  }
  data[0] = static_cast<float>(top * factor);
  return t;
}

struct Result {
  torch::Tensor y, gradX, gradW, gradB;
};

Result runQuantized(RecipeQuantizer& q, const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                    const torch::Tensor& g) {
  const torch::Tensor xv = x.clone().requires_grad_(true);
  const torch::Tensor wv = w.clone().requires_grad_(true);
  const torch::Tensor bv = b.clone().requires_grad_(true);
  q.beginPass(true);
  const torch::Tensor y = quantizedLinear(q, "fc", xv, wv, bv);
  y.backward(g);
  return {y.detach(), xv.grad(), wv.grad(), bv.grad()};
}

Result runFp32(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b, const torch::Tensor& g) {
  // The FP32 GEMMs the emulation performs: x W^T + b, g W, g^T x, sum of g.
  return {x.mm(w.t()) + b, g.mm(w), g.t().mm(x), g.sum(0)};
}

bool sameBits(const torch::Tensor& a, const torch::Tensor& b) {
  return a.sizes() == b.sizes() && std::memcmp(a.contiguous().data_ptr<float>(), b.contiguous().data_ptr<float>(),
                                               static_cast<size_t>(a.numel()) * sizeof(float)) == 0;
}

struct Operands {
  torch::Tensor x, w, b, g;
};

Operands exactOperands() {
  // x: E4M3 values / 4 with amax 112 (scale 448 / 112 = 4); W: / 8 with amax 56 (scale 8); the gradient:
  // E5M2 values / 16 with amax 3584 (scale 57344 / 3584 = 16).
  return {gridTensor(8, 64, DType::FP8E4M3FN, 448, 0.25, 1), gridTensor(16, 64, DType::FP8E4M3FN, 448, 0.125, 2),
          torch::linspace(-1, 1, 16), gridTensor(8, 16, DType::FP8E5M2, 57344, 1.0 / 16, 3)};
}

TEST(QuantizedLinear, PowerOfTwoScalesOnExactOperandsGiveTheFp32ResultBitForBit) {
  const Operands o = exactOperands();
  RecipeQuantizer q(Recipe::Current, Fp8Config{});
  const Result got = runQuantized(q, o.x, o.w, o.b, o.g);
  const Result want = runFp32(o.x, o.w, o.b, o.g);
  EXPECT_TRUE(sameBits(got.y, want.y));
  EXPECT_TRUE(sameBits(got.gradX, want.gradX));
  EXPECT_TRUE(sameBits(got.gradW, want.gradW));
  EXPECT_TRUE(sameBits(got.gradB, want.gradB));
  const auto stats = q.endStep();
  ASSERT_EQ(stats.size(), 3u);
  EXPECT_EQ(stats[0].name, "fc.input");
  EXPECT_EQ(stats[0].scale, 4.0);
  EXPECT_EQ(stats[1].name, "fc.weight");
  EXPECT_EQ(stats[1].scale, 8.0);
  EXPECT_EQ(stats[2].name, "fc.grad_output");
  EXPECT_EQ(stats[2].format, QuantFormat::E5M2);
  EXPECT_EQ(stats[2].scale, 16.0);
  for (const auto& s : stats) {
    EXPECT_TRUE(s.measured);
    EXPECT_EQ(s.saturated, 0);
    EXPECT_EQ(s.flushed, 0);
    ASSERT_TRUE(s.histogram);
    EXPECT_EQ(s.histogram->total(), s.numel);
  }
}

TEST(QuantizedLinear, OneValueOffTheGridChangesTheResult) {
  Operands o = exactOperands();
  o.x[1][1] = o.x[1][1].item<float>() * 1.01f;  // no longer an E4M3 value after scaling by 4
  RecipeQuantizer q(Recipe::Current, Fp8Config{});
  const Result got = runQuantized(q, o.x, o.w, o.b, o.g);
  const Result want = runFp32(o.x, o.w, o.b, o.g);
  EXPECT_FALSE(sameBits(got.y, want.y));
  EXPECT_FALSE(sameBits(got.gradW, want.gradW));
}

TEST(QuantizedLinear, DelayedScalingUsesTheHistoryOfEarlierSteps) {
  const Operands o = exactOperands();
  RecipeQuantizer q(Recipe::Delayed, Fp8Config{});
  // Step 1: no history, scale 1: x (amax 112) is E4M3-exact as it is, so nothing changes either.
  Result first = runQuantized(q, o.x, o.w, o.b, o.g);
  auto stats = q.endStep();
  ASSERT_EQ(stats.size(), 3u);
  EXPECT_EQ(stats[0].scale, 1.0);
  EXPECT_EQ(stats[0].amax, 112.0);
  EXPECT_EQ(stats[0].amaxHistoryMax, 0.0);
  // Step 2: the scales come from step 1's amaxes.
  runQuantized(q, o.x, o.w, o.b, o.g);
  stats = q.endStep();
  EXPECT_EQ(stats[0].scale, 4.0);
  EXPECT_EQ(stats[0].amaxHistoryMax, 112.0);
  EXPECT_EQ(stats[1].scale, 8.0);
  EXPECT_EQ(stats[2].scale, 16.0);
  // A spike of 8x in step 3 saturates: scale 4 maps 8 * 112 = 896 to 3584 > 448.
  const Result spiked = runQuantized(q, o.x * 8, o.w, o.b, o.g);
  stats = q.endStep();
  EXPECT_GT(stats[0].saturated, 0);
  EXPECT_EQ(stats[0].amax, 896.0);
  // Step 4 takes the spike's amax: scale 448 / 896 = 0.5.
  runQuantized(q, o.x, o.w, o.b, o.g);
  stats = q.endStep();
  EXPECT_EQ(stats[0].scale, 0.5);
}

TEST(QuantizedLinear, BlockRecipesTrainThroughTheSameFunction) {
  const Operands o = exactOperands();
  for (Recipe recipe : {Recipe::MxBlock, Recipe::Nvfp4Block}) {
    RecipeQuantizer q(recipe, Fp8Config{});
    const Result got = runQuantized(q, o.x, o.w, o.b, o.g);
    EXPECT_TRUE(torch::isfinite(got.gradW).all().item<bool>());
    EXPECT_EQ(got.gradX.sizes(), o.x.sizes());
    const auto stats = q.endStep();
    ASSERT_EQ(stats.size(), 3u);
    EXPECT_LE(stats[0].blockScaleExpMin, stats[0].blockScaleExpMax);
  }
  // MXFP8 of E4M3 values in a block whose amax is 448 (X = 8 - 8 = 0, scale 1) is exact too.
  RecipeQuantizer mx(Recipe::MxBlock, Fp8Config{});
  const torch::Tensor x = gridTensor(4, 32, DType::FP8E4M3FN, 448, 1.0, 7);
  mx.beginPass(false);
  const torch::Tensor xq = mx.quantize(x.slice(0, 0, 1), "t", "t", false);
  EXPECT_TRUE(sameBits(xq, x.slice(0, 0, 1)));
}

TEST(QuantizedLinear, AnInputWithoutGradientSkipsDgradAndChangesNothingElse) {
  // The first layer's input (the batch) needs no gradient: backward leaves dgrad out, and the output,
  // the weight and bias gradients and every operand's statistics stay those of a run that computes it.
  Operands o = exactOperands();
  o.x[1][1] = o.x[1][1].item<float>() * 1.01f;  // off the grid: the quantisation matters
  for (Recipe recipe : {Recipe::Current, Recipe::MxBlock, Recipe::Nvfp4Block}) {
    RecipeQuantizer withGrad(recipe, Fp8Config{}), without(recipe, Fp8Config{});
    const Result want = runQuantized(withGrad, o.x, o.w, o.b, o.g);
    const torch::Tensor wv = o.w.clone().requires_grad_(true);
    const torch::Tensor bv = o.b.clone().requires_grad_(true);
    without.beginPass(true);
    const torch::Tensor y = quantizedLinear(without, "fc", o.x, wv, bv);
    y.backward(o.g);
    EXPECT_TRUE(sameBits(y.detach(), want.y));
    EXPECT_TRUE(sameBits(wv.grad(), want.gradW));
    EXPECT_TRUE(sameBits(bv.grad(), want.gradB));
    const auto a = withGrad.endStep(), b = without.endStep();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].name, b[i].name);
      EXPECT_EQ(a[i].amax, b[i].amax);
      EXPECT_EQ(a[i].numel, b[i].numel);
      EXPECT_EQ(a[i].scale, b[i].scale);
      EXPECT_EQ(a[i].saturated, b[i].saturated);
      EXPECT_EQ(a[i].flushed, b[i].flushed);
      EXPECT_EQ(a[i].blockScaleExpMin, b[i].blockScaleExpMin);
      EXPECT_EQ(a[i].blockScaleExpMax, b[i].blockScaleExpMax);
    }
  }
}

}  // namespace
}  // namespace ampscope::detail::fp8
