// The models a comparison trains. Each is a torch::nn::Module whose parameters carry the state_dict
// names of an equivalent PyTorch nn.Module (so the "reproduce in PyTorch" export can load them), and
// whose forward pass is written in PrecisionContext ops so one definition runs in every mode.
#pragma once

#include <torch/torch.h>

#include <memory>

#include "ampscope/engine/run_config.h"
#include "precision_context.h"

namespace ampscope::detail {

class Model : public torch::nn::Module {
 public:
  // Logits: [batch, classes] for the MLPs, [batch, time, vocab] for the Transformer.
  virtual Act forward(PrecisionContext& ctx, const torch::Tensor& inputs) = 0;
  // Mean cross entropy of the logits against the targets (flattened over batch and time).
  torch::Tensor loss(PrecisionContext& ctx, const Act& logits, const torch::Tensor& targets);
};

// A freshly initialised model (PyTorch's default initialisation, from the global torch generator).
std::shared_ptr<Model> makeModel(ModelKind kind);

}  // namespace ampscope::detail
