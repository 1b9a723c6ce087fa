// An MLP of Linear layers with GELU between them, laid out like PyTorch's
// nn.Sequential(nn.Linear, nn.GELU(), nn.Linear, ...) under the attribute "net", so its state_dict
// names are "net.0.weight", "net.0.bias", "net.2.weight", ... The chapter's TinyMLP(128, 512, 10) is
// Mlp({128, 512, 10}). Layers are named fc1, fc2, ... in the instruments.
#pragma once

#include <vector>

#include "models/model.h"

namespace ampscope::detail {

class Mlp : public Model {
 public:
  static constexpr int64_t kTinyInput = 128;   // the chapter's input_dim
  static constexpr int64_t kTinyClasses = 10;  // and output_dim
  explicit Mlp(const std::vector<int64_t>& sizes);
  Act forward(PrecisionContext& ctx, const torch::Tensor& inputs) override;
  const std::vector<torch::nn::Linear>& layers() const { return layers_; }
  const std::vector<std::string>& layerNames() const { return layerNames_; }

 private:
  torch::nn::Sequential net_{nullptr};
  std::vector<torch::nn::Linear> layers_;
  std::vector<std::string> layerNames_;
};

}  // namespace ampscope::detail
