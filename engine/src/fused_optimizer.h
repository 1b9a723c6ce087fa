// FusedAdamW / FusedSgd: torch::optim::AdamW and SGD (LibTorch 1.13, single-tensor path) as one pass
// over the flat buffers (flat_parameters.h) instead of a sequence of ATen ops per parameter, with the
// same float32 operations in the same order, so the results are bit-identical:
//   AdamW: p = p * f(1 - lr*wd);  m = m*f(b1) (+) g*f(1-b1);  v = v*f(b2) (+) (f(1-b2)*g)*g;
//          d = sqrt(v) / f(sqrt(1 - b2^t)) + f(eps);  p = p + (f(-lr / (1 - b1^t)) * m) / d
//   SGD:   d = g (+) p*f(wd);  buf = d at the first step, else buf*f(momentum) (+) d;  p = p (+) d*f(-lr)
// f() is the double scalar rounded to float32 (ATen converts a Scalar to the tensor's type), and (+)
// marks the x + a*b that ATen's add_/addcmul_ kernels evaluate: its AVX2/AVX512 builds contract it
// into one FMA (vector body and scalar tail alike), its DEFAULT build does not. Which one this LibTorch
// does is measured once at run time (atenMultiplyAdd()); when it is neither consistently, the fused
// path is not used and the trainer keeps torch::optim.
//
// With a rounding format (the emulated pure modes) every in-place op's result is rounded as model.half()
// stores it, exactly as RoundedAdamW / RoundedSgd do (rounded_adamw.h), in blocks that stay in cache.
//
// The optimizer state lives in flat buffers too; AdamWParamState / SGDParamState hold views of them,
// so state() reads as torch::optim's. Only float32 parameters, one parameter group, no amsgrad, no
// Nesterov or dampening.
#pragma once

#include <torch/torch.h>

#include <optional>
#include <vector>

#include "flat_parameters.h"
#include "low_precision.h"

namespace ampscope::detail {

enum class AtenMultiplyAdd { Fused, Separate, Inconsistent };
AtenMultiplyAdd atenMultiplyAdd();  // measured on first use, then cached
// Whether FusedAdamW / FusedSgd reproduce this LibTorch for parameters of `dtype`.
bool fusedStepsAvailable(torch::ScalarType dtype);

class FusedAdamW : public torch::optim::AdamW {
 public:
  // `flat` must hold exactly `params`, in order, and outlive the optimizer.
  FusedAdamW(FlatParameters& flat, std::vector<torch::Tensor> params, torch::optim::AdamWOptions options,
             std::optional<LowFormat> rounding);
  torch::Tensor step(LossClosure closure = nullptr) override;
  // Where the final rounding of each parameter is counted (rounding formats only); null: not counted.
  void setUpdateCounts(RoundingCounts* counts) { updateCounts_ = counts; }
  // Whether every parameter the last step wrote is finite (computed in the same pass).
  bool parametersFinite() const { return finite_; }

 private:
  FlatParameters& flat_;
  std::optional<LowFormat> rounding_;
  RoundingCounts* updateCounts_ = nullptr;
  bool fma_;
  bool finite_ = true;
  torch::Tensor expAvg_, expAvgSq_;  // flat, allocated at the first step
  std::vector<torch::optim::AdamWParamState*> states_;
};

class FusedSgd : public torch::optim::SGD {
 public:
  FusedSgd(FlatParameters& flat, std::vector<torch::Tensor> params, torch::optim::SGDOptions options,
           std::optional<LowFormat> rounding);
  torch::Tensor step(LossClosure closure = nullptr) override;
  void setUpdateCounts(RoundingCounts* counts) { updateCounts_ = counts; }
  bool parametersFinite() const { return finite_; }

 private:
  FlatParameters& flat_;
  std::optional<LowFormat> rounding_;
  RoundingCounts* updateCounts_ = nullptr;
  bool fma_;
  bool finite_ = true;
  torch::Tensor momentum_;  // flat, allocated at the first step with momentum
  std::vector<torch::optim::SGDParamState*> states_;
};

}  // namespace ampscope::detail
