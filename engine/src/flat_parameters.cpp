#include "flat_parameters.h"

#include <cstring>

#include "sum_of_squares.h"

namespace ampscope::detail {

FlatParameters::FlatParameters(const std::vector<torch::Tensor>& parameters) : parameters_(parameters) {
  TORCH_CHECK(!parameters_.empty(), "FlatParameters needs at least one parameter");
  const auto options = parameters_.front().options().requires_grad(false);
  for (const auto& p : parameters_) {
    TORCH_CHECK(p.scalar_type() == options.dtype() && p.device() == options.device(),
                "FlatParameters: every parameter must share one dtype and device");
    segments_.push_back({numel_, p.numel()});
    numel_ += p.numel();
  }
  at::NoGradGuard noGrad;
  values_ = torch::empty({numel_}, options);
  gradients_ = torch::zeros({numel_}, options);
  for (size_t i = 0; i < parameters_.size(); ++i) {
    torch::Tensor view = viewOf(values_, i);
    view.copy_(parameters_[i]);
    parameters_[i].set_data(view);
  }
  defined_.assign(parameters_.size(), false);
}

torch::Tensor FlatParameters::zerosLike() const { return torch::zeros_like(values_); }

torch::Tensor FlatParameters::viewOf(const torch::Tensor& flat, size_t index) const {
  const FlatSegment& s = segments_[index];
  return flat.narrow(0, s.offset, s.numel).view(parameters_[index].sizes());
}

const std::vector<bool>& FlatParameters::gatherGradients(std::optional<LowFormat> roundTo,
                                                         const std::vector<RoundingCounts*>* counts,
                                                         double* squaredNorm) {
  at::NoGradGuard noGrad;
  TORCH_CHECK(!roundTo || gradients_.scalar_type() == torch::kFloat,
              "FlatParameters: gradients are rounded on the way only into a float32 buffer");
  const bool floatBuffer = gradients_.scalar_type() == torch::kFloat && gradients_.device().is_cpu();
  TORCH_CHECK(squaredNorm == nullptr || floatBuffer,
              "FlatParameters: the squared norm is taken on the way only into a float32 CPU buffer");
  if (squaredNorm != nullptr) *squaredNorm = 0;
  const auto elementSize = static_cast<size_t>(gradients_.element_size());
  auto* base = static_cast<char*>(gradients_.data_ptr());
  for (size_t i = 0; i < parameters_.size(); ++i) {
    torch::Tensor& p = parameters_[i];
    const torch::Tensor& grad = p.grad();
    defined_[i] = grad.defined();
    if (!grad.defined()) continue;
    char* slice = base + static_cast<size_t>(segments_[i].offset) * elementSize;
    auto* floats = reinterpret_cast<float*>(slice);
    const int64_t n = segments_[i].numel;
    if (grad.data_ptr() == slice) {  // already the view (a second gather in one step)
      if (squaredNorm != nullptr) *squaredNorm += sumOfSquares(floats, n);
      continue;
    }
    if (roundTo) {
      const torch::Tensor g = grad.to(torch::kFloat).contiguous();
      roundToFormat(g.data_ptr<float>(), floats, g.numel(), *roundTo, counts != nullptr ? (*counts)[i] : nullptr);
      if (squaredNorm != nullptr) *squaredNorm += sumOfSquares(floats, n);
    } else if (grad.is_contiguous() && grad.scalar_type() == gradients_.scalar_type() && grad.device().is_cpu()) {
      if (squaredNorm != nullptr) {
        *squaredNorm += copyWithSumOfSquares(grad.data_ptr<float>(), floats, n);
      } else {
        std::memcpy(slice, grad.data_ptr(), static_cast<size_t>(n) * elementSize);
      }
    } else {
      viewOf(gradients_, i).copy_(grad);
      if (squaredNorm != nullptr) *squaredNorm += sumOfSquares(floats, n);
    }
    p.mutable_grad() = viewOf(gradients_, i);
  }
  return defined_;
}

}  // namespace ampscope::detail
