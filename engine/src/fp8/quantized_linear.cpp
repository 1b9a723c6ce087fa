#include "fp8/quantized_linear.h"

namespace ampscope::detail::fp8 {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class QuantizedLinearFunction : public torch::autograd::Function<QuantizedLinearFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const torch::Tensor& x2d, const torch::Tensor& weight,
                               int64_t quantizer, const std::string& layer) {
    auto* q = reinterpret_cast<RecipeQuantizer*>(static_cast<intptr_t>(quantizer));
    const torch::Tensor xq = q->quantize(x2d, layer + ".input", layer, false);
    const torch::Tensor wq = q->quantize(weight, layer + ".weight", layer, false);
    ctx->saved_data["quantizer"] = quantizer;
    ctx->saved_data["layer"] = layer;
    if (q->perTensor()) {
      ctx->save_for_backward({xq, wq});
    } else {
      ctx->save_for_backward({x2d, weight});
    }
    return {xq.mm(wq.t())};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    auto* q = reinterpret_cast<RecipeQuantizer*>(static_cast<intptr_t>(ctx->saved_data["quantizer"].toInt()));
    const std::string layer = ctx->saved_data["layer"].toStringRef();
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor grad = grads[0].contiguous();
    // Quantised even where only wgrad reads it (or nothing): its statistics are this step's record.
    const torch::Tensor gq = q->quantize(grad, layer + ".grad_output", layer, true);
    // The first layer's input (the batch) needs no gradient: no dgrad, as torch's own linear skips it.
    const bool needsGradX = ctx->needs_input_grad(0);
    torch::Tensor gradX, gradW;
    if (q->perTensor()) {
      if (needsGradX) gradX = gq.mm(saved[1]);
      gradW = gq.t().mm(saved[0]);
    } else {
      // dgrad reduces over the output features (rows of W); wgrad over the batch (rows of x and grad).
      if (needsGradX) gradX = gq.mm(q->quantizeColumns(saved[1], false));
      gradW = q->quantizeColumns(grad, true).t().mm(q->quantizeColumns(saved[0], false));
    }
    return {gradX, gradW, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor quantizedLinear(RecipeQuantizer& quantizer, const std::string& layer, const torch::Tensor& x,
                              const torch::Tensor& weight, const torch::Tensor& bias) {
  const int64_t k = x.size(-1);
  const torch::Tensor x2d = x.reshape({-1, k});
  torch::Tensor y = QuantizedLinearFunction::apply(x2d, weight,
                                                   static_cast<int64_t>(reinterpret_cast<intptr_t>(&quantizer)),
                                                   layer)[0];
  if (bias.defined()) y = y + bias;
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = weight.size(0);
  return y.reshape(shape);
}

}  // namespace ampscope::detail::fp8
