#include "grad_clip.h"

namespace ampscope::detail {
namespace {

std::vector<torch::Tensor> definedGrads(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> grads;
  grads.reserve(parameters.size());
  for (const auto& p : parameters) {
    if (p.grad().defined()) grads.push_back(p.grad().detach());
  }
  return grads;
}

// torch 1.13: norm(stack([norm(g, 2) for g in grads]), 2), in the gradients' dtype.
torch::Tensor totalNorm(const std::vector<torch::Tensor>& grads) {
  std::vector<torch::Tensor> norms;
  norms.reserve(grads.size());
  const auto device = grads.front().device();
  for (const auto& g : grads) norms.push_back(torch::norm(g, 2).to(device));
  return torch::norm(torch::stack(norms), 2);
}

}  // namespace

double clipGradNorm(const std::vector<torch::Tensor>& parameters, double maxNorm) {
  torch::NoGradGuard noGrad;
  const std::vector<torch::Tensor> grads = definedGrads(parameters);
  if (grads.empty()) return 0.0;
  const torch::Tensor total = totalNorm(grads);
  // No "if coef < 1" branch, as in torch: every gradient is multiplied by the clamped coefficient,
  // which is how a NaN or inf total norm reaches the gradients.
  const torch::Tensor coef = torch::clamp(maxNorm / (total + 1e-6), c10::nullopt, 1.0);
  for (const auto& g : grads) {
    torch::Tensor target = g;
    target.mul_(coef.to(g.device()));
  }
  return total.item<double>();
}

double gradNorm(const std::vector<torch::Tensor>& parameters) {
  torch::NoGradGuard noGrad;
  const std::vector<torch::Tensor> grads = definedGrads(parameters);
  if (grads.empty()) return 0.0;
  return totalNorm(grads).item<double>();
}

}  // namespace ampscope::detail
