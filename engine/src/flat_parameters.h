// FlatParameters: one mode's parameters and gradients in two contiguous buffers. Each parameter's data
// becomes a view of its slice of the parameter buffer (set_data: the module keeps its parameters,
// autograd its leaves), and after backward each gradient is gathered into the same slice of the
// gradient buffer and replaced by a view of it, so the passes after backward (unscale, clip, the
// optimizer, the instruments) can run over one array, segment by segment.
//
// Why gather instead of giving every parameter a pre-set .grad view: with a defined .grad, autograd
// accumulates (grad += incoming), and 0 + (-0) is +0, so a -0.0 gradient would change its sign bit;
// zero_grad(set_to_none) followed by the copy keeps exactly the bits backward produced, and a parameter
// that got no gradient keeps an undefined .grad, as in PyTorch.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "low_precision.h"

namespace ampscope::detail {

struct FlatSegment {
  int64_t offset = 0;  // in elements
  int64_t numel = 0;
};

class FlatParameters {
 public:
  // All parameters must share one dtype and device; their values are copied into the buffer.
  explicit FlatParameters(const std::vector<torch::Tensor>& parameters);

  const std::vector<FlatSegment>& segments() const { return segments_; }
  int64_t numel() const { return numel_; }
  torch::Tensor& values() { return values_; }
  torch::Tensor& gradients() { return gradients_; }
  // A buffer shaped like the parameter buffer (zeros), and parameter i's view of it.
  torch::Tensor zerosLike() const;
  torch::Tensor viewOf(const torch::Tensor& flat, size_t index) const;

  // Copies each defined gradient into its slice and makes .grad that view; returns which were defined.
  // With roundTo (float32 buffers only), each gradient is rounded to that format on its way into the
  // slice (a pure mode's gradients are tensors of the format), counted into (*counts)[i] where given.
  // With squaredNorm (float32 CPU buffers only), *squaredNorm becomes the sum of the squares of every
  // gathered gradient value, taken in double in the same pass as the copy (sum_of_squares.h; the shown
  // norm of a step without scaler or clip: no second read, no ATen norm ops).
  const std::vector<bool>& gatherGradients(std::optional<LowFormat> roundTo = std::nullopt,
                                           const std::vector<RoundingCounts*>* counts = nullptr,
                                           double* squaredNorm = nullptr);
  const std::vector<bool>& gradientDefined() const { return defined_; }

 private:
  std::vector<torch::Tensor> parameters_;
  std::vector<FlatSegment> segments_;
  std::vector<bool> defined_;
  int64_t numel_ = 0;
  torch::Tensor values_;
  torch::Tensor gradients_;
};

}  // namespace ampscope::detail
