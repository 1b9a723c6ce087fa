#include "models/mlp_direct_pass.h"

namespace ampscope::detail {
namespace {

constexpr int64_t kIgnoreIndex = -100;  // cross_entropy's default ignore_index
constexpr int64_t kMeanReduction = at::Reduction::Mean;

torch::Tensor roundedAt(const PrecisionContext::Site& site, const torch::Tensor& x, LowFormat format,
                        bool backward) {
  if (!site.round) return x;
  return roundedCopy(x, format, backward ? site.backward : site.forward);
}

// The same rounding in place, for a tensor this pass just made and no one else reads unrounded (the
// autograd pass rounds a copy and frees the original: the same values, one allocation fewer).
torch::Tensor& roundedInPlaceAt(const PrecisionContext::Site& site, torch::Tensor& x, LowFormat format,
                                bool backward) {
  if (site.round) roundInPlace(x, format, backward ? site.backward : site.forward);
  return x;
}

// A parameter's gradient, computed by `compute` into `into` when given (else into a fresh tensor),
// then rounded there when `counts` says so (AMP emulated: RoundToFormat's backward between the
// parameter and its cast; pure emulated: the rounding the trainer's gather would do, counted where the
// gather counts it).
template <typename Compute>
torch::Tensor parameterGradient(bool round, RoundingCounts* counts, LowFormat format, const torch::Tensor& into,
                                Compute compute) {
  torch::Tensor out = compute(into);
  if (round) roundInPlace(out, format, counts);
  return out;
}

}  // namespace

MlpDirectPass::MlpDirectPass(Mlp& model) {
  for (size_t i = 0; i < model.layers().size(); ++i) {
    Layer layer;
    layer.weight = model.layers()[i]->weight;
    layer.bias = model.layers()[i]->bias;
    layer.name = model.layerNames()[i];
    layer.geluName = "gelu" + std::to_string(i + 1);
    layers_.push_back(std::move(layer));
  }
}

bool MlpDirectPass::applies(const PrecisionContext& ctx) const {
  const ExecKind kind = ctx.kind();
  if (kind != ExecKind::FP32 && kind != ExecKind::AmpEmulated && kind != ExecKind::PureEmulated) return false;
  if (ctx.outlierActive() || ctx.hasPlan()) return false;
  for (const Layer& layer : layers_) {
    for (const torch::Tensor* p : {&layer.weight, &layer.bias}) {
      if (!p->defined() || p->scalar_type() != torch::kFloat || !p->device().is_cpu() ||
          !p->is_contiguous() || !p->requires_grad()) {
        return false;
      }
    }
  }
  return true;
}

torch::Tensor MlpDirectPass::forward(PrecisionContext& ctx, const torch::Tensor& inputs,
                                     const torch::Tensor& targets) {
  release();
  const LowFormat format = ctx.format();
  pureEmulated_ = ctx.kind() == ExecKind::PureEmulated;
  Act x = ctx.input(inputs);  // the spike factor; pure emulated: the rounded cast of the batch
  TORCH_CHECK(x.t.dim() == 2 && x.t.scalar_type() == torch::kFloat,
              "MlpDirectPass: the inputs must be a float32 [batch, features] tensor");
  // Below autograd's dispatch keys: the ops record nothing and skip autograd's kernels entirely
  // (a NoGradGuard would still pass through them for tensors that require grad).
  at::AutoDispatchBelowADInplaceOrView belowAutograd;
  torch::Tensor logits;
  for (size_t i = 0; i < layers_.size(); ++i) {
    Layer& layer = layers_[i];
    // PrecisionContext::linearOp's order: input, weight, bias, then the output's site.
    layer.inputSite = ctx.inputSite(layer.name, "input", x.low);
    layer.input = roundedAt(layer.inputSite, x.t, format, false);
    layer.weightSite = ctx.parameterSite(layer.name, "weight", layer.weight);
    layer.gemmWeight = roundedAt(layer.weightSite, layer.weight, format, false);
    layer.biasSite = ctx.parameterSite(layer.name, "bias", layer.bias);
    const torch::Tensor bias = roundedAt(layer.biasSite, layer.bias, format, false);
    // torch::linear on a 2-D input with a bias.
    torch::Tensor y = at::addmm(bias, layer.input, layer.gemmWeight.t());
    layer.outputSite = ctx.linearOutputSite(layer.name);
    const Act out{roundedInPlaceAt(layer.outputSite, y, format, false), layer.outputSite.round, format};
    if (i + 1 < layers_.size()) {
      layer.output = out.t;
      layer.geluSite = ctx.passThroughSite(layer.geluName, out.low);
      torch::Tensor activated = at::gelu(out.t);
      x = {roundedInPlaceAt(layer.geluSite, activated, format, false), out.low};
    } else {
      logits = out.t;  // not kept: log_softmax's backward reads its output
    }
  }
  // PrecisionContext::crossEntropy: cross_entropy_loss is nll_loss(_log_softmax(z)); a pure emulated
  // mode rounds both outputs.
  logProbs_ = at::_log_softmax(logits, 1, /*half_to_float=*/false);
  logProbsSite_ = pureEmulated_ ? ctx.passThroughSite("loss.log_softmax", true) : Site{};
  nllInput_ = roundedAt(logProbsSite_, logProbs_, format, false);
  targets_ = targets.reshape({-1});
  torch::Tensor loss;
  std::tie(loss, totalWeight_) =
      at::nll_loss_forward(nllInput_, targets_, /*weight=*/{}, kMeanReduction, kIgnoreIndex);
  lossSite_ = pureEmulated_ ? ctx.passThroughSite("loss", true) : Site{};
  loss_ = roundedInPlaceAt(lossSite_, loss, format, false);
  return loss_;
}

void MlpDirectPass::backward(PrecisionContext& ctx, double lossWeight, double scale,
                             const std::function<torch::Tensor(const torch::Tensor&)>& destination) {
  TORCH_CHECK(loss_.defined(), "MlpDirectPass: backward without a forward");
  const LowFormat format = ctx.format();
  at::AutoDispatchBelowADInplaceOrView belowAutograd;
  // The seed, back through what the trainer puts after the loss: ones_like, GradScaler::scale's
  // multiply (MulBackward0: grad * the float32 scale), the weight's (grad * Scalar), a pure emulated
  // mode's rounding of the weighted loss (uncounted, as PrecisionContext::weightLoss).
  torch::Tensor grad = at::ones_like(loss_);
  if (scale != 1.0) grad = at::mul(grad, at::scalar_tensor(scale, loss_.options().dtype(torch::kFloat)));
  if (lossWeight != 1.0) {
    if (pureEmulated_) roundInPlace(grad, format, nullptr);
    grad = at::mul(grad, lossWeight);
  }
  roundedInPlaceAt(lossSite_, grad, format, true);
  grad = at::nll_loss_backward(grad, nllInput_, targets_, /*weight=*/{}, kMeanReduction, kIgnoreIndex,
                               totalWeight_);
  roundedInPlaceAt(logProbsSite_, grad, format, true);
  grad = at::_log_softmax_backward_data(grad, logProbs_, 1, torch::kFloat);
  logProbs_ = nllInput_ = torch::Tensor();
  for (size_t k = layers_.size(); k-- > 0;) {
    Layer& layer = layers_[k];
    // The gradient at the layer's output: rounded where the output was, then the tap's histograms.
    roundedInPlaceAt(layer.outputSite, grad, format, true);
    ctx.accumulateGradientTap(layer.outputSite.tap, grad);
    // Pure emulated: the gradient is rounded on its way into the flat buffer, as the gather does it.
    const bool roundWeight = layer.weightSite.round || pureEmulated_;
    const bool roundBias = layer.biasSite.round || pureEmulated_;
    RoundingCounts* const weightCounts =
        pureEmulated_ ? ctx.parameterGradientCounts(layer.weight) : layer.weightSite.backward;
    RoundingCounts* const biasCounts = pureEmulated_ ? ctx.parameterGradientCounts(layer.bias) : layer.biasSite.backward;
    // AddmmBackward0 (PyTorch 1.13's mm_mat2_backward takes W^T's column-major case, then TBackward
    // transposes back; the bias is summed to its shape), then each parameter's own site.
    const torch::Tensor gradWeight =
        parameterGradient(roundWeight, weightCounts, format, destination(layer.weight), [&](torch::Tensor out) {
          if (!out.defined()) return at::mm(grad.t(), layer.input);
          at::mm_out(out, grad.t(), layer.input);
          return out;
        });
    const torch::Tensor gradBias =
        parameterGradient(roundBias, biasCounts, format, destination(layer.bias), [&](torch::Tensor out) {
          if (!out.defined()) return at::sum(grad, {0}, /*keepdim=*/true).view({grad.size(1)});
          torch::Tensor row = out.view({1, grad.size(1)});
          at::sum_out(row, grad, {0}, /*keepdim=*/true);
          return out;
        });
    if (k > 0) {
      // mm_mat1_backward (the input is row-major): grad W, through the input's site and GELU's.
      torch::Tensor gradInput = at::mm(grad, layer.gemmWeight);
      roundedInPlaceAt(layer.inputSite, gradInput, format, true);
      const Layer& below = layers_[k - 1];
      roundedInPlaceAt(below.geluSite, gradInput, format, true);
      grad = at::gelu_backward(gradInput, below.output, "none");
    }
    layer.weight.mutable_grad() = gradWeight;
    layer.bias.mutable_grad() = gradBias;
  }
  release();
}

void MlpDirectPass::release() {
  for (Layer& layer : layers_) {
    layer.input = layer.gemmWeight = layer.output = torch::Tensor();
    layer.inputSite = layer.weightSite = layer.biasSite = layer.outputSite = layer.geluSite = Site{};
  }
  logProbs_ = nllInput_ = targets_ = totalWeight_ = loss_ = torch::Tensor();
  logProbsSite_ = lossSite_ = Site{};
}

}  // namespace ampscope::detail
