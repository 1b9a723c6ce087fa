// SGD as torch.optim.SGD (PyTorch 1.13, single-tensor path, no Nesterov/dampening) runs it on
// FP16/BF16 parameters after model.half(): each in-place op's result is rounded to the format.
//   grad = r(grad)
//   buf  = r(r(buf * momentum) + grad)   (first step: buf = grad)
//   param = r(param - lr * buf)          so an update below half an ulp of the weight is lost
// Parameters, gradients and the momentum buffer are float32 tensors holding low-precision values.
#pragma once

#include <torch/torch.h>

#include "low_precision.h"

namespace ampscope::detail {

class RoundedSgd : public torch::optim::SGD {
 public:
  RoundedSgd(std::vector<torch::Tensor> params, torch::optim::SGDOptions options, LowFormat format)
      : torch::optim::SGD(std::move(params), options), format_(format) {}
  torch::Tensor step(LossClosure closure = nullptr) override;
  // Where the final rounding of each parameter (the stored update) is counted; null: not counted.
  void setUpdateCounts(RoundingCounts* counts) { updateCounts_ = counts; }

 private:
  LowFormat format_;
  RoundingCounts* updateCounts_ = nullptr;
};

}  // namespace ampscope::detail
