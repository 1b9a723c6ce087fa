#include "models/tiny_transformer.h"

#include <cmath>

namespace ampscope::detail {

TransformerBlockImpl::TransformerBlockImpl(int64_t dModel, int64_t heads, int64_t mlpHidden,
                                           std::string name)
    : dModel_(dModel), heads_(heads), name_(std::move(name)) {
  ln1_ = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dModel})));
  auto attention = std::make_shared<torch::nn::Module>();
  qkv_ = attention->register_module("qkv", torch::nn::Linear(/*in=*/dModel, /*out=*/3 * dModel));
  proj_ = attention->register_module("proj", torch::nn::Linear(/*in=*/dModel, /*out=*/dModel));
  register_module("attn", attention);
  ln2_ = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dModel})));
  torch::nn::Sequential mlp;
  fc1_ = torch::nn::Linear(/*in=*/dModel, /*out=*/mlpHidden);
  fc2_ = torch::nn::Linear(/*in=*/mlpHidden, /*out=*/dModel);
  mlp->push_back(fc1_);
  mlp->push_back(torch::nn::GELU());
  mlp->push_back(fc2_);
  register_module("mlp", mlp);
}

Act TransformerBlockImpl::forward(PrecisionContext& ctx, const Act& x, const torch::Tensor& mask) {
  const int64_t batch = x.t.size(0);
  const int64_t time = x.t.size(1);
  const int64_t headDim = dModel_ / heads_;
  const std::string& n = name_;

  const Act h = ctx.layerNorm(n + ".ln1", x, ln1_->weight, ln1_->bias);
  const Act qkv = ctx.linear(n + ".attn.qkv", h, qkv_->weight, qkv_->bias);
  // [B, T, 3, H, Dh] -> three [B, H, T, Dh] views: no arithmetic, so no rounding.
  const torch::Tensor split = qkv.t.view({batch, time, 3, heads_, headDim}).permute({2, 0, 3, 1, 4});
  const Act q{split[0], qkv.low, qkv.format};
  const Act kT{split[1].transpose(-2, -1), qkv.low, qkv.format};
  const Act v{split[2], qkv.low, qkv.format};
  Act scores = ctx.matmul(n + ".attn.scores", q, kT);
  scores = ctx.mulScalar(n + ".attn.scale", scores, 1.0 / std::sqrt(static_cast<double>(headDim)));
  scores = ctx.maskedFill(scores, mask.slice(0, 0, time).slice(1, 0, time), -INFINITY);
  const Act probs = ctx.softmax(n + ".attn.softmax", scores, -1);
  const Act context = ctx.matmul(n + ".attn.context", probs, v);
  const Act merged{context.t.transpose(1, 2).reshape({batch, time, dModel_}), context.low, context.format};
  const Act attnOut = ctx.linear(n + ".attn.proj", merged, proj_->weight, proj_->bias);
  const Act afterAttn = ctx.add(n + ".residual1", x, attnOut);

  const Act h2 = ctx.layerNorm(n + ".ln2", afterAttn, ln2_->weight, ln2_->bias);
  const Act up = ctx.linear(n + ".mlp.fc1", h2, fc1_->weight, fc1_->bias);
  const Act act = ctx.gelu(n + ".mlp.gelu", up);
  const Act down = ctx.linear(n + ".mlp.fc2", act, fc2_->weight, fc2_->bias);
  return ctx.add(n + ".residual2", afterAttn, down);
}

TinyTransformer::TinyTransformer(const Options& options) : options_(options) {
  TORCH_CHECK(options.dModel % options.heads == 0, "dModel must be a multiple of heads");
  tokEmb_ = register_module("tok_emb", torch::nn::Embedding(options.vocab, options.dModel));
  posEmb_ = register_parameter("pos_emb", torch::randn({options.context, options.dModel}) * 0.02);
  blocks_ = torch::nn::ModuleList();
  for (int64_t i = 0; i < options.blocks; ++i) {
    blocks_->push_back(TransformerBlock(options.dModel, options.heads, options.mlpHidden,
                                        "block" + std::to_string(i)));
  }
  register_module("blocks", blocks_);
  lnF_ = register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({options.dModel})));
  head_ = register_module("head", torch::nn::Linear(/*in=*/options.dModel, /*out=*/options.vocab));
  causalMask_ = torch::ones({options.context, options.context}, torch::kBool).triu(1);
}

Act TinyTransformer::forward(PrecisionContext& ctx, const torch::Tensor& tokenIds) {
  const int64_t time = tokenIds.size(1);
  TORCH_CHECK(time <= options_.context, "sequence longer than the context");
  const Act tokens = ctx.embedding("tok_emb", tokEmb_->weight, tokenIds);
  const Act positions = ctx.embedding("pos_emb", posEmb_,
                                      torch::arange(time, torch::TensorOptions(torch::kLong)));
  Act x = ctx.add("embed", tokens, positions);
  for (const auto& module : *blocks_) {
    x = module->as<TransformerBlockImpl>()->forward(ctx, x, causalMask_);
  }
  x = ctx.layerNorm("ln_f", x, lnF_->weight, lnF_->bias);
  return ctx.linear("head", x, head_->weight, head_->bias);
}

}  // namespace ampscope::detail
