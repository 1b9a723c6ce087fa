#include "models/mlp.h"

namespace ampscope::detail {

Mlp::Mlp(const std::vector<int64_t>& sizes) {
  TORCH_CHECK(sizes.size() >= 2, "an MLP needs an input and an output size");
  net_ = torch::nn::Sequential();
  for (size_t i = 0; i + 1 < sizes.size(); ++i) {
    torch::nn::Linear layer(torch::nn::LinearOptions(/*in=*/sizes[i], /*out=*/sizes[i + 1]));
    net_->push_back(layer);
    layers_.push_back(layer);
    layerNames_.push_back("fc" + std::to_string(i + 1));
    if (i + 2 < sizes.size()) net_->push_back(torch::nn::GELU());
  }
  register_module("net", net_);
}

Act Mlp::forward(PrecisionContext& ctx, const torch::Tensor& inputs) {
  Act x = ctx.input(inputs);
  for (size_t i = 0; i < layers_.size(); ++i) {
    x = ctx.linear(layerNames_[i], x, layers_[i]->weight, layers_[i]->bias);
    if (i + 1 < layers_.size()) x = ctx.gelu("gelu" + std::to_string(i + 1), x);
  }
  return x;
}

}  // namespace ampscope::detail
