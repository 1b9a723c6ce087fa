// MlpDirectPass: an Mlp's training pass (forward, mean cross entropy, backward) in FP32 and in the
// emulated modes, as the ATen ops autograd runs for it, called in that order without building a graph.
//
// Why: for a model this small, autograd's bookkeeping (a graph node per op, saved-variable checks, the
// engine's ready queue, a custom Function node per emulated rounding, hooks for the instruments) costs
// more than any kernel but the GEMMs. The results stay bit-identical because each backward op is the
// one PyTorch's derivative formula calls, on the same operands (derivatives.yaml, PyTorch 1.13):
//   linear  y = addmm(b, x, W^T):  dx = mm(dy, W)  (mm_mat1_backward: W^T is column-major, so W)
//                                   dW = mm(dy^T, x) (mm_mat2_backward's column-major case, then t())
//                                   db = sum(dy, 0)  (autograd's sum_to of the broadcast bias)
//   gelu                         :  gelu_backward(dy, x, "none")
//   cross_entropy = nll_loss(_log_softmax(z)):  nll_loss_backward, then _log_softmax_backward_data,
//   seeded with ones_like(loss), times the scale and the loss weight (MulBackward), as backward() is.
// The emulated modes (AMP and pure, FP16 or BF16) round where PrecisionContext's ops round and count
// the same rounding points (its Sites), and a rounded tensor's gradient is rounded where RoundToFormat's
// backward rounds it. tests/engine/models/mlp_direct_pass_test.cpp compares losses, gradients,
// histograms and rounding counts bit for bit with the autograd pass, in every mode it runs.
//
// Native low-precision dtypes (autocast's casts and kernels), the quantised modes and the outlier factor
// (its product and quotient are more ops) keep the autograd pass.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "models/mlp.h"
#include "precision_context.h"

namespace ampscope::detail {

class MlpDirectPass {
 public:
  explicit MlpDirectPass(Mlp& model);

  // Whether a pass of this context over this model can be run directly (see above).
  bool applies(const PrecisionContext& ctx) const;

  // The loss; keeps what backward needs. The context's pass must have begun (beginPass).
  torch::Tensor forward(PrecisionContext& ctx, const torch::Tensor& inputs, const torch::Tensor& targets);

  // The backward of (loss * lossWeight) * scale, as the trainer's autograd pass runs it (the weighted
  // loss rounded in a pure emulated mode, the scale a float32 tensor: GradScaler::scale). Sets every
  // parameter's .grad: destination(p) gives a contiguous float32 tensor shaped like p to write p's
  // gradient into (it becomes .grad), or an undefined tensor for a fresh one. A pure emulated mode's
  // gradients are rounded there already, counted where FlatParameters::gatherGradients would count
  // them (which then finds them in place). The gradient taps are filled on the way, as the autograd
  // pass's hooks fill them.
  void backward(PrecisionContext& ctx, double lossWeight, double scale,
                const std::function<torch::Tensor(const torch::Tensor&)>& destination);

  // Drops what forward kept (after backward, or when a step ends without one).
  void release();

 private:
  using Site = PrecisionContext::Site;
  struct Layer {
    torch::Tensor weight;  // the parameters
    torch::Tensor bias;
    std::string name;      // fc1, fc2, ...
    std::string geluName;  // gelu1, ... (hidden layers)
    // Kept from forward: the GEMM's operands as it used them (rounded where the mode rounds them)
    // and, for a hidden layer, GELU's input (the layer's output).
    torch::Tensor input;
    torch::Tensor gemmWeight;
    torch::Tensor output;
    Site inputSite, weightSite, biasSite, outputSite, geluSite;
  };
  std::vector<Layer> layers_;
  bool pureEmulated_ = false;
  torch::Tensor logProbs_;         // _log_softmax's output (its backward reads it)
  torch::Tensor nllInput_;         // nll_loss's input: logProbs_, rounded in a pure emulated mode
  Site logProbsSite_, lossSite_;  // pure emulated: the rounded log-probabilities and loss
  torch::Tensor targets_;
  torch::Tensor totalWeight_;
  torch::Tensor loss_;
};

}  // namespace ampscope::detail
