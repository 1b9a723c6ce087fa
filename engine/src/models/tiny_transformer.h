// A tiny decoder-only Transformer (GPT-style, pre-LayerNorm) for character-level language modelling:
// token embedding + learned positions, `blocks` blocks of causal multi-head self-attention (softmax)
// and a GELU MLP, a final LayerNorm and a linear head. Small enough that a step takes a few ms on one
// CPU thread, yet with the op mix of an LLM (matmul, softmax, layer_norm, gelu, cross_entropy).
//
// state_dict names follow an equivalent PyTorch module: tok_emb.weight, pos_emb,
// blocks.N.ln1.{weight,bias}, blocks.N.attn.qkv.{weight,bias}, blocks.N.attn.proj.{weight,bias},
// blocks.N.ln2.{weight,bias}, blocks.N.mlp.0.{weight,bias}, blocks.N.mlp.2.{weight,bias},
// ln_f.{weight,bias}, head.{weight,bias}.
#pragma once

#include "models/model.h"

namespace ampscope::detail {

class TransformerBlockImpl : public torch::nn::Module {
 public:
  TransformerBlockImpl(int64_t dModel, int64_t heads, int64_t mlpHidden, std::string name);
  Act forward(PrecisionContext& ctx, const Act& x, const torch::Tensor& causalMask);

 private:
  int64_t dModel_;
  int64_t heads_;
  std::string name_;
  torch::nn::LayerNorm ln1_{nullptr};
  torch::nn::Linear qkv_{nullptr};
  torch::nn::Linear proj_{nullptr};
  torch::nn::LayerNorm ln2_{nullptr};
  torch::nn::Linear fc1_{nullptr};
  torch::nn::Linear fc2_{nullptr};
};
TORCH_MODULE(TransformerBlock);

class TinyTransformer : public Model {
 public:
  struct Options {
    int64_t vocab = 13;    // "0123456789+=\n"
    int64_t context = 32;  // tokens per sequence
    int64_t dModel = 32;
    int64_t heads = 2;
    int64_t blocks = 2;
    int64_t mlpHidden = 128;
  };
  explicit TinyTransformer(const Options& options);
  Act forward(PrecisionContext& ctx, const torch::Tensor& tokenIds) override;

 private:
  Options options_;
  torch::nn::Embedding tokEmb_{nullptr};
  torch::Tensor posEmb_;
  torch::nn::ModuleList blocks_{nullptr};
  torch::nn::LayerNorm lnF_{nullptr};
  torch::nn::Linear head_{nullptr};
  torch::Tensor causalMask_;  // [context, context], true above the diagonal (future positions)
};

}  // namespace ampscope::detail
