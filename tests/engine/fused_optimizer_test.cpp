// FusedAdamW / FusedSgd against LibTorch 1.13's own torch::optim::AdamW and SGD (and against
// RoundedAdamW / RoundedSgd for the rounded variants): the same random gradients for 100 steps, and
// after every step the parameters and the optimizer state must be the same bytes (memcmp). The
// expected values are whatever torch::optim computes on this machine: the claim is bit-identity with
// PyTorch's documented update (torch.optim.AdamW / SGD, single-tensor path), not any formula here.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "flat_parameters.h"
#include "fused_kernels.h"
#include "fused_optimizer.h"
#include "precision_context.h"
#include "rounded_adamw.h"
#include "rounded_sgd.h"

namespace ampscope::detail {
namespace {

// Odd sizes: every parameter has a vector body and a scalar tail in ATen's kernels (and a size-1 one).
// The large one makes a float32-level difference visible through the rounded variants' final rounding.
const std::vector<std::vector<int64_t>> kShapes = {{7, 13}, {64}, {33, 5}, {1}, {100}, {3, 3, 3}, {4099}};

std::vector<torch::Tensor> makeParams(uint64_t seed, std::optional<LowFormat> format) {
  torch::manual_seed(seed);
  std::vector<torch::Tensor> params;
  for (const auto& shape : kShapes) {
    torch::Tensor p = torch::randn(shape);
    if (format) roundInPlace(p, *format, nullptr);
    params.push_back(p.requires_grad_(true));
  }
  return params;
}

std::vector<torch::Tensor> cloneParams(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> out;
  for (const auto& p : params) out.push_back(p.detach().clone().requires_grad_(true));
  return out;
}

// Step k's gradients: normal values over several binades, a few exact zeros of both signs, and on some
// steps no gradient for parameter 2 (it then skips the step, so its step count falls behind).
std::vector<torch::Tensor> gradientsFor(int step) {
  torch::manual_seed(1000 + static_cast<uint64_t>(step));
  std::vector<torch::Tensor> grads;
  for (size_t i = 0; i < kShapes.size(); ++i) {
    if (i == 2 && step % 7 == 3) {
      grads.emplace_back();
      continue;
    }
    torch::Tensor g = torch::randn(kShapes[i]) * std::pow(2.0, static_cast<double>(step % 9) - 4.0);
    auto flat = g.view({-1});
    if (flat.numel() > 4) {
      flat[0] = 0.0;
      flat[1] = -0.0;
    }
    grads.push_back(g);
  }
  return grads;
}

void setGradients(std::vector<torch::Tensor>& params, const std::vector<torch::Tensor>& grads) {
  for (size_t i = 0; i < params.size(); ++i) {
    params[i].mutable_grad() = grads[i].defined() ? grads[i].clone() : torch::Tensor();
  }
}

bool sameBytes(const torch::Tensor& a, const torch::Tensor& b) {
  if (a.defined() != b.defined()) return false;
  if (!a.defined()) return true;
  const torch::Tensor ca = a.contiguous(), cb = b.contiguous();
  return ca.sizes() == cb.sizes() && ca.scalar_type() == cb.scalar_type() &&
         std::memcmp(ca.data_ptr(), cb.data_ptr(), static_cast<size_t>(ca.nbytes())) == 0;
}

std::vector<torch::Tensor> stateTensors(torch::optim::Optimizer& optimizer, const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> tensors;
  for (const auto& p : params) {
    const auto it = optimizer.state().find(c10::guts::to_string(p.unsafeGetTensorImpl()));
    if (it == optimizer.state().end()) {
      tensors.emplace_back();
      tensors.emplace_back();
      continue;
    }
    if (auto* adam = dynamic_cast<torch::optim::AdamWParamState*>(it->second.get())) {
      tensors.push_back(adam->exp_avg());
      tensors.push_back(adam->exp_avg_sq());
    } else if (auto* sgd = dynamic_cast<torch::optim::SGDParamState*>(it->second.get())) {
      tensors.push_back(sgd->momentum_buffer());
      tensors.emplace_back();
    }
  }
  return tensors;
}

using MakeOptimizer = std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<torch::Tensor>&)>;
using MakeFused =
    std::function<std::unique_ptr<torch::optim::Optimizer>(FlatParameters&, std::vector<torch::Tensor>&)>;

// Runs both for `steps` steps; returns "" or where the first difference was.
std::string compare(const MakeOptimizer& makeReference, const MakeFused& makeFused,
                    std::optional<LowFormat> format, int steps = 100) {
  std::vector<torch::Tensor> reference = makeParams(7, format);
  std::vector<torch::Tensor> fusedParams = cloneParams(reference);
  FlatParameters flat(fusedParams);
  auto referenceOptimizer = makeReference(reference);
  auto fusedOptimizer = makeFused(flat, fusedParams);
  for (int step = 1; step <= steps; ++step) {
    const auto grads = gradientsFor(step);
    setGradients(reference, grads);
    setGradients(fusedParams, grads);
    flat.gatherGradients();
    referenceOptimizer->step();
    fusedOptimizer->step();
    const auto referenceState = stateTensors(*referenceOptimizer, reference);
    const auto fusedState = stateTensors(*fusedOptimizer, fusedParams);
    for (size_t i = 0; i < reference.size(); ++i) {
      if (!sameBytes(reference[i], fusedParams[i])) {
        return "step " + std::to_string(step) + ": parameter " + std::to_string(i);
      }
      if (!sameBytes(referenceState[2 * i], fusedState[2 * i]) ||
          !sameBytes(referenceState[2 * i + 1], fusedState[2 * i + 1])) {
        return "step " + std::to_string(step) + ": state of parameter " + std::to_string(i);
      }
    }
  }
  return "";
}

MakeOptimizer adamw(double weightDecay, double eps = 1e-8) {
  return [=](std::vector<torch::Tensor>& params) {
    return std::make_unique<torch::optim::AdamW>(
        params, torch::optim::AdamWOptions(1e-2).weight_decay(weightDecay).eps(eps));
  };
}
MakeFused fusedAdamw(double weightDecay, std::optional<LowFormat> format, double eps = 1e-8, double lr = 1e-2) {
  return [=](FlatParameters& flat, std::vector<torch::Tensor>& params) {
    return std::make_unique<FusedAdamW>(flat, params,
                                        torch::optim::AdamWOptions(lr).weight_decay(weightDecay).eps(eps), format);
  };
}
MakeOptimizer sgd(double momentum) {
  return [=](std::vector<torch::Tensor>& params) {
    return std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(0.05).momentum(momentum));
  };
}
MakeFused fusedSgd(double momentum, std::optional<LowFormat> format) {
  return [=](FlatParameters& flat, std::vector<torch::Tensor>& params) {
    return std::make_unique<FusedSgd>(flat, params, torch::optim::SGDOptions(0.05).momentum(momentum), format);
  };
}

class FusedOptimizer : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fusedStepsAvailable(torch::kFloat)) GTEST_SKIP() << "this LibTorch's add_ is neither always nor never an FMA";
  }
};

TEST_F(FusedOptimizer, AdamWWithWeightDecayMatchesTorchOptim) {
  EXPECT_EQ(compare(adamw(0.01), fusedAdamw(0.01, std::nullopt), std::nullopt), "");
}

TEST_F(FusedOptimizer, AdamWWithoutWeightDecayMatchesTorchOptim) {
  EXPECT_EQ(compare(adamw(0.0), fusedAdamw(0.0, std::nullopt), std::nullopt), "");
}

TEST_F(FusedOptimizer, SgdWithoutMomentumMatchesTorchOptim) {
  EXPECT_EQ(compare(sgd(0.0), fusedSgd(0.0, std::nullopt), std::nullopt), "");
}

TEST_F(FusedOptimizer, SgdWithMomentumMatchesTorchOptim) {
  EXPECT_EQ(compare(sgd(0.9), fusedSgd(0.9, std::nullopt), std::nullopt), "");
}

TEST_F(FusedOptimizer, RoundedAdamWMatchesInFp16AndBf16) {
  // A large learning rate: the update then reaches the bits the final rounding keeps, so a float32
  // difference in it would show (with lr 1e-2 it would almost never change the rounded parameter).
  // Weight decay on and off: without it the stored parameter enters the update unrounded again.
  for (const LowFormat format : {LowFormat::FP16, LowFormat::BF16}) {
    for (const double weightDecay : {0.01, 0.0}) {
      const MakeOptimizer reference = [=](std::vector<torch::Tensor>& params) {
        return std::make_unique<RoundedAdamW>(
            params, torch::optim::AdamWOptions(0.5).weight_decay(weightDecay).eps(1e-4), format);
      };
      EXPECT_EQ(compare(reference, fusedAdamw(weightDecay, format, 1e-4, 0.5), format), "")
          << lowFormatDtypeName(format) << " weight decay " << weightDecay;
    }
  }
}

TEST_F(FusedOptimizer, RoundedSgdMatchesInFp16AndBf16) {
  for (const LowFormat format : {LowFormat::FP16, LowFormat::BF16}) {
    for (const double momentum : {0.0, 0.9}) {
      const MakeOptimizer reference = [=](std::vector<torch::Tensor>& params) {
        return std::make_unique<RoundedSgd>(params, torch::optim::SGDOptions(0.05).momentum(momentum), format);
      };
      EXPECT_EQ(compare(reference, fusedSgd(momentum, format), format), "")
          << lowFormatDtypeName(format) << " momentum " << momentum;
    }
  }
}

TEST_F(FusedOptimizer, RoundedUpdateCountsMatchRoundedAdamW) {
  std::vector<torch::Tensor> reference = makeParams(3, LowFormat::FP16);
  std::vector<torch::Tensor> fusedParams = cloneParams(reference);
  FlatParameters flat(fusedParams);
  const auto options = torch::optim::AdamWOptions(1e-2).eps(1e-4);
  RoundedAdamW referenceOptimizer(reference, options, LowFormat::FP16);
  FusedAdamW fusedOptimizer(flat, fusedParams, options, LowFormat::FP16);
  RoundingCounts a, b;
  referenceOptimizer.setUpdateCounts(&a);
  fusedOptimizer.setUpdateCounts(&b);
  for (int step = 1; step <= 20; ++step) {
    const auto grads = gradientsFor(step);
    setGradients(reference, grads);
    setGradients(fusedParams, grads);
    flat.gatherGradients();
    referenceOptimizer.step();
    fusedOptimizer.step();
  }
  EXPECT_EQ(a.elements, b.elements);
  EXPECT_EQ(a.flushedToZero, b.flushedToZero);
  EXPECT_EQ(a.subnormal, b.subnormal);
  EXPECT_EQ(a.overflowed, b.overflowed);
  EXPECT_EQ(a.nan, b.nan);
  EXPECT_GT(a.elements, 0);
}

// The comparison can fail: the same pass with the other multiply-add rounding differs from torch.
TEST_F(FusedOptimizer, TheOtherMultiplyAddRoundingIsDetected) {
  const bool fma = atenMultiplyAdd() == AtenMultiplyAdd::Fused;
  torch::manual_seed(5);
  const int64_t n = 1000;
  torch::Tensor p = torch::randn({n}), g = torch::randn({n});
  torch::Tensor p2 = p.clone();
  torch::Tensor m = torch::zeros({n}), v = torch::zeros({n});
  p.requires_grad_(true);
  p.mutable_grad() = g.clone();
  torch::optim::SGD reference({p}, torch::optim::SGDOptions(0.0123));
  reference.step();
  SgdCoefficients c;
  c.negativeLr = static_cast<float>(-0.0123);
  sgdPass(p2.data_ptr<float>(), g.data_ptr<float>(), nullptr, n, c, !fma);
  EXPECT_FALSE(sameBytes(p.detach(), p2));
}

TEST(FlatParameters, GatherKeepsSignedZerosAndUndefinedGradients) {
  std::vector<torch::Tensor> params = {torch::ones({2, 3}).requires_grad_(true), torch::ones({4}).requires_grad_(true)};
  const torch::Tensor module0 = params[0];  // the same TensorImpl a module would hold
  FlatParameters flat(params);
  EXPECT_EQ(module0.data_ptr(), flat.values().data_ptr());
  EXPECT_EQ(static_cast<float*>(params[1].data_ptr()), flat.values().data_ptr<float>() + 6);
  params[0].mutable_grad() = torch::full({2, 3}, -0.0);
  flat.gatherGradients();
  EXPECT_TRUE(flat.gradientDefined()[0]);
  EXPECT_FALSE(flat.gradientDefined()[1]);
  EXPECT_FALSE(params[1].grad().defined());
  EXPECT_TRUE(std::signbit(flat.gradients().data_ptr<float>()[0]));
  EXPECT_EQ(params[0].grad().data_ptr(), flat.gradients().data_ptr());
}

}  // namespace
}  // namespace ampscope::detail
