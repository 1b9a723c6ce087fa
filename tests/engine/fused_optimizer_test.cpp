// FusedAdamW / FusedSgd against LibTorch 1.13's own torch::optim::AdamW and SGD (and against
// RoundedAdamW / RoundedSgd for the rounded variants): the same random gradients for 100 steps, and
// after every step the parameters and the optimizer state must be the same bytes (memcmp). The
// expected values are whatever torch::optim computes on this machine: the claim is bit-identity with
// PyTorch's documented update (torch.optim.AdamW / SGD, single-tensor path), not any formula here.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <limits>
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
#include "support/under_isa.h"
#include "torch_compat.h"

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
    const auto it = optimizer.state().find(optimizerStateKey(p));
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

// Under each instruction set this CPU has (the passes are compiled once per set, kernel_isa.h): each
// must reproduce torch::optim, whichever set a user's CPU picks.
class FusedOptimizer : public support::UnderIsa {
 protected:
  void SetUp() override {
    support::UnderIsa::SetUp();
    if (!fusedStepsAvailable(torch::kFloat)) GTEST_SKIP() << "this LibTorch's add_ is neither always nor never an FMA";
  }
};
AMPSCOPE_UNDER_EACH_ISA(FusedOptimizer);

TEST_P(FusedOptimizer, AdamWWithWeightDecayMatchesTorchOptim) {
  EXPECT_EQ(compare(adamw(0.01), fusedAdamw(0.01, std::nullopt), std::nullopt), "");
}

TEST_P(FusedOptimizer, AdamWWithoutWeightDecayMatchesTorchOptim) {
  EXPECT_EQ(compare(adamw(0.0), fusedAdamw(0.0, std::nullopt), std::nullopt), "");
}

TEST_P(FusedOptimizer, SgdWithoutMomentumMatchesTorchOptim) {
  EXPECT_EQ(compare(sgd(0.0), fusedSgd(0.0, std::nullopt), std::nullopt), "");
}

TEST_P(FusedOptimizer, SgdWithMomentumMatchesTorchOptim) {
  EXPECT_EQ(compare(sgd(0.9), fusedSgd(0.9, std::nullopt), std::nullopt), "");
}

TEST_P(FusedOptimizer, RoundedAdamWMatchesInFp16AndBf16) {
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

TEST_P(FusedOptimizer, RoundedSgdMatchesInFp16AndBf16) {
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

TEST_P(FusedOptimizer, RoundedUpdateCountsMatchRoundedAdamW) {
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
TEST_P(FusedOptimizer, TheOtherMultiplyAddRoundingIsDetected) {
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

// The gather's sum of squares (sum_of_squares.h: the shown norm of a step without clipping) under each
// instruction set: it must be the sum of the values' squares (each square is exact in double; the sum
// is checked against an 80-bit long double sum), the same bits under every instruction set, and the
// copy must keep every gradient bit (signed zeros, subnormals). Sizes cover the 64-lane body, its tail
// and the in-place and rounding paths of gatherGradients.
class FlatGatherNorm : public support::UnderIsa {};
AMPSCOPE_UNDER_EACH_ISA(FlatGatherNorm);

std::vector<torch::Tensor> gradientLikeParameters(uint64_t seed) {
  torch::manual_seed(static_cast<int64_t>(seed));
  std::vector<torch::Tensor> params = {torch::zeros({33, 7}).requires_grad_(true),
                                       torch::zeros({64}).requires_grad_(true),
                                       torch::zeros({1000}).requires_grad_(true),
                                       torch::zeros({3}).requires_grad_(true)};
  for (auto& p : params) {
    // Magnitudes over 2^-140 .. 2^60, both signs: float32 subnormals and squares far outside float's range.
    const torch::Tensor exponent = torch::randint(-140, 60, p.sizes()).to(torch::kFloat);
    p.mutable_grad() = torch::randn(p.sizes()) * torch::pow(2.0, exponent);
  }
  params[0].mutable_grad().view({-1})[5].fill_(-0.0);
  params[2].mutable_grad().view({-1})[999].fill_(std::numeric_limits<float>::denorm_min());
  return params;
}

long double longDoubleSquares(const std::vector<torch::Tensor>& grads) {
  long double sum = 0;
  for (const auto& g : grads) {
    const torch::Tensor c = g.contiguous();
    for (int64_t i = 0; i < c.numel(); ++i) sum += static_cast<long double>(c.data_ptr<float>()[i]) * c.data_ptr<float>()[i];
  }
  return sum;
}

double gatheredSquares(uint64_t seed, bool secondGather, std::optional<LowFormat> roundTo = std::nullopt) {
  std::vector<torch::Tensor> params = gradientLikeParameters(seed);
  FlatParameters flat(params);
  double squares = -1;
  flat.gatherGradients(roundTo, nullptr, &squares);
  if (secondGather) flat.gatherGradients(roundTo, nullptr, &squares);  // .grad is already the view
  return squares;
}

TEST_P(FlatGatherNorm, SumsTheSquaresOfEveryGradientAndCopiesTheirBits) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::vector<torch::Tensor> params = gradientLikeParameters(seed);
    std::vector<torch::Tensor> before;
    for (const auto& p : params) before.push_back(p.grad().clone());
    FlatParameters flat(params);
    double squares = -1;
    flat.gatherGradients(std::nullopt, nullptr, &squares);
    for (size_t i = 0; i < params.size(); ++i) {
      EXPECT_TRUE(sameBytes(params[i].grad(), before[i])) << "parameter " << i;
      EXPECT_EQ(params[i].grad().data_ptr<float>(), flat.gradients().data_ptr<float>() + flat.segments()[i].offset);
    }
    const long double want = longDoubleSquares(before);
    EXPECT_NEAR(static_cast<double>(squares / want), 1.0, 1e-13) << "seed " << seed;
    // The same bits when .grad is already the view, and under every other instruction set.
    EXPECT_EQ(gatheredSquares(seed, /*secondGather=*/true), squares);
    const KernelIsa chosen = kernelIsa();
    for (KernelIsa other : support::isasOfThisCpu()) {
      ASSERT_TRUE(setKernelIsa(other));
      EXPECT_EQ(gatheredSquares(seed, false), squares) << kernelIsaName(other) << " against " << kernelIsaName(chosen);
    }
    ASSERT_TRUE(setKernelIsa(chosen));
  }
}

TEST_P(FlatGatherNorm, SmallIntegerGradientsGiveTheExactSum) {
  // Squares of small integers and their sums are exact in double: the sum must be the count itself,
  // which a dropped, doubled or misplaced element would change.
  std::vector<torch::Tensor> params = gradientLikeParameters(6);
  long double want = 0;
  for (auto& p : params) {
    p.mutable_grad() = torch::randint(-3, 4, p.sizes()).to(torch::kFloat);
    want += longDoubleSquares({p.grad()});
  }
  FlatParameters flat(params);
  double squares = -1;
  flat.gatherGradients(std::nullopt, nullptr, &squares);
  EXPECT_EQ(squares, static_cast<double>(want));
  EXPECT_GT(squares, 1000.0);
}

TEST_P(FlatGatherNorm, RoundedGradientsAreSummedAsRounded) {
  std::vector<torch::Tensor> params = gradientLikeParameters(4);
  std::vector<torch::Tensor> rounded;  // c10::BFloat16's round-to-nearest-even, which roundToFormat matches
  for (const auto& p : params) rounded.push_back(p.grad().to(torch::kBFloat16).to(torch::kFloat));
  FlatParameters flat(params);
  double squares = -1;
  flat.gatherGradients(LowFormat::BF16, nullptr, &squares);
  for (size_t i = 0; i < params.size(); ++i) EXPECT_TRUE(sameBytes(params[i].grad(), rounded[i])) << i;
  EXPECT_NEAR(static_cast<double>(squares / longDoubleSquares(rounded)), 1.0, 1e-13);
}

TEST_P(FlatGatherNorm, AnInfOrNaNGradientMakesTheSumInfOrNaN) {
  std::vector<torch::Tensor> params = gradientLikeParameters(5);
  params[2].mutable_grad().view({-1})[77].fill_(-std::numeric_limits<float>::infinity());
  FlatParameters flat(params);
  double squares = 0;
  flat.gatherGradients(std::nullopt, nullptr, &squares);
  EXPECT_EQ(squares, std::numeric_limits<double>::infinity());
  std::vector<torch::Tensor> withNan = gradientLikeParameters(5);
  withNan[3].mutable_grad().view({-1})[1].fill_(std::numeric_limits<float>::quiet_NaN());
  FlatParameters flatNan(withNan);
  flatNan.gatherGradients(std::nullopt, nullptr, &squares);
  EXPECT_TRUE(std::isnan(squares));
}

}  // namespace
}  // namespace ampscope::detail
