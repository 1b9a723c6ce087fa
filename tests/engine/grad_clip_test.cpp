// clipGradNorm against torch.nn.utils.clip_grad_norm_ (PyTorch 1.13, norm_type=2,
// error_if_nonfinite=False), and the clip/unscale_ order of the AMP recipe.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <vector>

#include "grad_clip.h"
#include "grad_scaler.h"

namespace ampscope::detail {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

torch::Tensor paramWithGrad(std::vector<float> grad) {
  torch::Tensor p = torch::zeros({static_cast<int64_t>(grad.size())}).requires_grad_(true);
  p.mutable_grad() = torch::tensor(grad);
  return p;
}

double trueNorm(const std::vector<torch::Tensor>& params) {
  double sum = 0;
  for (const auto& p : params) sum += p.grad().to(torch::kDouble).pow(2).sum().item<double>();
  return std::sqrt(sum);
}

TEST(GradClip, ReturnsTheNormBeforeClippingAndScalesToMaxNorm) {
  // Total norm over all gradients as if concatenated: sqrt(3^2 + 4^2 + 12^2) = 13; coef = 1/(13 + 1e-6).
  std::vector<torch::Tensor> params{paramWithGrad({3, 4}), paramWithGrad({12})};
  EXPECT_FLOAT_EQ(clipGradNorm(params, /*maxNorm=*/1.0), 13.0);
  EXPECT_NEAR(trueNorm(params), 1.0, 1e-6);
  EXPECT_FLOAT_EQ(params[0].grad()[0].item<float>(), 3.0f / 13.0f);
}

TEST(GradClip, LeavesGradientsBelowMaxNormUnchanged) {
  // coef = max_norm / (total + 1e-6) clamped to 1.0; multiplying by exactly 1 changes nothing.
  std::vector<torch::Tensor> params{paramWithGrad({0.3f, 0.4f})};
  EXPECT_FLOAT_EQ(clipGradNorm(params, 1.0), 0.5);
  EXPECT_TRUE(torch::equal(params[0].grad(), torch::tensor({0.3f, 0.4f})));
}

TEST(GradClip, ComputesTheNormInFloat32ForFloat32Gradients) {
  // torch.norm of a float32 tensor is float32: a norm that is not representable comes back rounded.
  std::vector<torch::Tensor> params{paramWithGrad({1.0f, 1.0f})};
  EXPECT_EQ(gradNorm(params), static_cast<double>(static_cast<float>(std::sqrt(2.0))));
}

TEST(GradClip, InfiniteNormZeroesFiniteEntriesAndTurnsInfIntoNaN) {
  // torch 1.13 prints: clip_grad_norm_ -> tensor(inf); grads [0., nan, 0.] and [0., 0.]
  // (coef = 1/(inf + 1e-6) = 0 and inf * 0 = NaN).
  std::vector<torch::Tensor> params{paramWithGrad({1, kInf, 2}), paramWithGrad({3, 4})};
  EXPECT_TRUE(std::isinf(clipGradNorm(params, 1.0)));
  EXPECT_EQ(params[0].grad()[0].item<float>(), 0.0f);
  EXPECT_TRUE(std::isnan(params[0].grad()[1].item<float>()));
  EXPECT_EQ(params[1].grad()[1].item<float>(), 0.0f);
}

TEST(GradClip, NaNNormMakesEveryGradientNaN) {
  // torch 1.13: clip_grad_norm_ -> tensor(nan); every gradient becomes NaN (clamp keeps NaN).
  std::vector<torch::Tensor> params{paramWithGrad({1, kNaN, 2}), paramWithGrad({3, 4})};
  EXPECT_TRUE(std::isnan(clipGradNorm(params, 1.0)));
  EXPECT_TRUE(torch::isnan(params[0].grad()).all().item<bool>());
  EXPECT_TRUE(torch::isnan(params[1].grad()).all().item<bool>());
}

TEST(GradClip, SkipsParametersWithoutGradients) {
  // grads = [p.grad for p in parameters if p.grad is not None]; none at all -> norm 0.
  torch::Tensor noGrad = torch::zeros({3}).requires_grad_(true);
  EXPECT_EQ(clipGradNorm({noGrad}, 1.0), 0.0);
  std::vector<torch::Tensor> params{noGrad, paramWithGrad({6, 8})};
  EXPECT_FLOAT_EQ(clipGradNorm(params, 5.0), 10.0);
  EXPECT_FALSE(noGrad.grad().defined());
}

TEST(GradClip, GradNormDoesNotModifyGradients) {
  std::vector<torch::Tensor> params{paramWithGrad({30, 40})};
  EXPECT_FLOAT_EQ(gradNorm(params), 50.0);
  EXPECT_TRUE(torch::equal(params[0].grad(), torch::tensor({30.0f, 40.0f})));
}

// The AMP recipe (PyTorch's "Working with Unscaled Gradients"): scaler.scale(loss).backward();
// scaler.unscale_(optimizer); clip_grad_norm_(...); scaler.step(optimizer). Clipping the *scaled*
// gradients compares max_norm with norm * scale.
struct ScaledGrads {
  torch::Tensor param = torch::zeros({2}).requires_grad_(true);
  torch::optim::SGD sgd{std::vector<torch::Tensor>{param}, torch::optim::SGDOptions(0.1)};
  GradScaler scaler{ScalerConfig{}};  // scale 65536
  explicit ScaledGrads(float a, float b) {
    param.mutable_grad() = torch::tensor({a, b}) * static_cast<float>(scaler.getScale());
  }
};

TEST(GradClip, ClippingAfterUnscaleBoundsTheTrueNormToMaxNorm) {
  ScaledGrads s(30, 40);  // true norm 50
  s.scaler.unscale_(s.sgd);
  EXPECT_FLOAT_EQ(clipGradNorm({s.param}, 1.0), 50.0) << "the norm clip saw is the true one";
  EXPECT_NEAR(trueNorm({s.param}), 1.0, 1e-6);
  EXPECT_TRUE(s.scaler.step(s.sgd));
}

TEST(GradClip, ClippingBeforeUnscaleClipsTheWrongNorm) {
  // The lesson: clip sees norm * 65536, so even a small true gradient (norm 0.005, nothing to clip)
  // is cut to max_norm / scale ~ 1.5e-5 after unscale_: a 330x smaller update.
  ScaledGrads s(0.003f, 0.004f);
  const double seen = clipGradNorm({s.param}, 1.0);
  EXPECT_NEAR(seen, 0.005 * 65536, 0.01) << "clip saw the scaled norm";
  s.scaler.unscale_(s.sgd);
  EXPECT_NEAR(trueNorm({s.param}), 1.0 / 65536, 1e-9);
  EXPECT_LT(trueNorm({s.param}), 0.005 / 100);

  ScaledGrads right(0.003f, 0.004f);
  right.scaler.unscale_(right.sgd);
  clipGradNorm({right.param}, 1.0);
  EXPECT_NEAR(trueNorm({right.param}), 0.005, 1e-9) << "the right order leaves it alone";
}

}  // namespace
}  // namespace ampscope::detail
