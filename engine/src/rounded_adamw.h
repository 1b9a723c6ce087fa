// AdamW as torch.optim.AdamW (PyTorch 1.13, single-tensor path) runs it on FP16/BF16 parameters
// after model.half(): every in-place op writes a low-precision tensor, so its result is rounded
// (ops compute internally in FP32, "opmath", and round once on store). Used by the emulated pure modes,
// whose parameters, gradients and state are float32 tensors holding low-precision values:
//   grad  = r(grad)                                  (FP16 gradients; unscale_ writes FP16 too)
//   param = r(param * (1 - lr * weight_decay))
//   m     = r(r(m * beta1) + (1 - beta1) * grad)       mul_ then add_
//   v     = r(r(v * beta2) + (1 - beta2) * grad^2)     mul_ then addcmul_
//   denom = r(r(r(sqrt(v)) / sqrt(1 - beta2^t)) + eps) sqrt, div, add_
//   param = r(param - lr / (1 - beta1^t) * m / denom)  addcdiv_
// So updates below half an ulp vanish, and eps = 1e-8 rounds to 0 in FP16 (below 2^-25): where v
// underflows to zero, denom is 0 and the update is inf or NaN, the well-known model.half() + Adam
// failure. The state lives in AdamWParamState, like torch::optim::AdamW's.
#pragma once

#include <torch/torch.h>

#include "low_precision.h"

namespace ampscope::detail {

class RoundedAdamW : public torch::optim::AdamW {
 public:
  RoundedAdamW(std::vector<torch::Tensor> params, torch::optim::AdamWOptions options, LowFormat format)
      : torch::optim::AdamW(std::move(params), options), format_(format) {}
  torch::Tensor step(LossClosure closure = nullptr) override;
  // Where the final rounding of each parameter (the stored update) is counted; null: not counted.
  void setUpdateCounts(RoundingCounts* counts) { updateCounts_ = counts; }

 private:
  LowFormat format_;
  RoundingCounts* updateCounts_ = nullptr;
};

}  // namespace ampscope::detail
